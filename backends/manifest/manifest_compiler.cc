#include "backends/manifest/manifest_compiler.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <nlohmann/json.hpp>

#include "backends/kit/levels.h"
#include "backends/kit/reproducer_data.h"
#include "backends/kit/worker_requests.h"
#include "compiler/support/diagnostics.h"
#include "compiler/ir/fix_dims.h"
#include "compiler/ir/printer.h"
#include "compiler/tensor/npy.h"
#include "exporters/expected_results.h"
#include "oracle/io/json_file.h"
#include "oracle/reduce/bisect.h"
#include "oracle/reduce/reduce_failure.h"
#include "reference/inputs.h"
#include "tolerance/precision.h"

namespace difftest::backends {

namespace fs = std::filesystem;
using oracle::Case;
using oracle::ChildOutcome;
using oracle::IsolationLimits;
using oracle::Variant;
using oracle::VariantKind;
using oracle::WorkerAnswer;

std::string manifest_worker_missing(const Manifest& m) {
  if (!runnable(m.worker.front())) {
    return fmt::format("its worker program '{}' (manifest {}) is not installed or not on PATH{}", m.worker.front(),
                       m.path, m.install_hint.empty() ? "" : " (" + m.install_hint + ")");
  }
  return "";
}

namespace {

// Replaces every {{key}} of `text`.
std::string filled(std::string text, const std::map<std::string, std::string>& values) {
  for (const auto& [key, value] : values) {
    const std::string mark = "{{" + key + "}}";
    for (size_t at = 0; (at = text.find(mark, at)) != std::string::npos; at += value.size()) {
      text.replace(at, mark.size(), value);
    }
  }
  return text;
}

class ManifestCompiler final : public LevelCompiler {
 public:
  ManifestCompiler(Manifest m, std::string flag) : m_(std::move(m)), flag_(std::move(flag)), models_(m_.name) {}

  std::string name() const override { return m_.name; }

  std::string identity() const override {
    return fmt::format("{} {}{}", m_.name, version(), m_.description.empty() ? "" : " (" + m_.description + ")");
  }

  Variant named(const std::string& name, const std::string& where) const override {
    const Level* level = m_.level(name);
    if (!level) {
      throw UserError(ErrorKind::Usage, fmt::format("{}: {} has no level '{}' (levels: {})", where, m_.name, name,
                                                    fmt::join(m_.level_names(), ", ")));
    }
    Variant v{VariantKind::Named, name, level->steps};
    v.settings = {{"level", name}};
    v.precision = level->precision;
    return v;
  }

  std::vector<Variant> variants(const Program& p, const oracle::CheckOptions& options) const override {
    std::vector<Variant> out = LevelCompiler::variants(p, options);
    const auto orders = draw_orders(m_.random_orders, p, m_.random_orders.phases.empty() ? 0 : options.random_orders);
    for (size_t i = 0; i < orders.size(); ++i) {
      out.push_back(order_variant(fmt::format("{}{}", kOrderPrefix, i + 1), orders[i]));
    }
    return out;
  }

  Variant recorded(const std::string& name, std::vector<std::string> steps, const nlohmann::json&,
                   const std::string& where) const override {
    if (is_order_name(name)) {
      const std::vector<std::string> known = m_.random_orders.all_steps();
      for (const auto& s : steps) {
        if (std::find(known.begin(), known.end(), s) == known.end()) {
          throw UserError(ErrorKind::Usage, fmt::format("{}: {}'s random orders have no step '{}'", where, m_.name, s));
        }
      }
      bool specialized = false;
      Variant v = order_variant(level_of_recorded_name(name, specialized), std::move(steps));
      return specialized ? specialized_level(v) : v;
    }
    bool specialized = false;
    const std::string level = level_of_recorded_name(name, specialized);
    Variant v = named(level, where);
    if (specialized) v = specialized_level(v);
    if (!steps.empty()) {
      for (const auto& s : steps) {
        if (std::find(v.steps.begin(), v.steps.end(), s) == v.steps.end()) {
          throw UserError(ErrorKind::Usage,
                          fmt::format("{}: level '{}' of {} has no step '{}'", where, level, m_.name, s));
        }
      }
      v.steps = std::move(steps);
    }
    return v;
  }

  ChildOutcome run_in_own_process(const Program& p, const Variant& variant, const std::vector<const Case*>& cases,
                                  const IsolationLimits& limits) const override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (const std::string missing = manifest_worker_missing(m_); !missing.empty()) {
      return unsupported_outcome(m_.name + " cannot run here: " + missing);
    }
    if (const std::string why = undeclared_dtype(p); !why.empty()) return unsupported_outcome(why);
    const PreparedModel& prepared = models_.prepare(p, m_.model_format);
    if (!prepared.unsupported.empty()) return unsupported_outcome(prepared.unsupported);
    nlohmann::json request = run_request(++requests_, prepared, p, cases, 2);
    add_variant_fields(request, variant);
    const WorkerAnswer answer = worker().request(request.dump(), request_limits(limits, cases.size()));
    return outcome_of_answer(answer, prepared, p, cases, AnswerReading{m_.name, {}, {}});
  }

  oracle::StepRole step_role(const std::string&) const override { return oracle::StepRole::Other; }
  std::optional<Program> program_after(const Program&, const Variant&, int) const override { return std::nullopt; }
  std::string fixed_culprit(const oracle::Stage& failed_in) const override {
    return fmt::format("{}'s {} with no optional step", m_.name, failed_in.compiling() ? "compile" : "generated code");
  }

  std::optional<oracle::Culprit> own_culprit_search(const Program& p, const oracle::FailingRun& failing,
                                                    const oracle::CheckOptions& base,
                                                    const oracle::BisectProgress& on_call) const override {
    if (m_.culprit_search != CulpritSearch::None) return std::nullopt;  // find_culprit over the level's steps
    oracle::Culprit c;
    if (on_call) on_call(1, failing.variant.name());
    const oracle::VariantVerdict whole = oracle::check_variant_outcome(p, failing.variant, failing.binding, base);
    c.key = oracle::FailureKey::of(whole);
    c.reproduced = oracle::is_failure(whole.kind);
    c.failure = whole;
    c.oracle_calls = 1;
    c.pass = fmt::format("level '{}'", failing.variant.tested.settings.value("level", failing.variant.name()));
    c.summary = fmt::format(
        "culprit: not searched — {}'s manifest declares no culprit search (culprit_search: none); the failure ({}) "
        "is the level's",
        m_.name, c.key.str());
    return c;
  }

  std::optional<Variant> baseline() const override {
    if (m_.baseline.empty()) return std::nullopt;
    return named(m_.baseline, "the baseline");
  }

  std::string environment(const Variant& variant) const override {
    if (is_order(variant)) {
      return fmt::format("{}, the random order {}: {}", identity(), variant.name(),
                         fmt::join(order_steps(variant), ","));
    }
    const auto disabled = disabled_steps(variant);
    return fmt::format("{}, level '{}'{}", identity(), level_of(variant),
                       disabled.empty() ? "" : fmt::format(", disabled: {}", fmt::join(disabled, ";")));
  }

  std::string replay_flags(const Variant& variant) const override {
    if (is_order(variant)) {
      // Orders are drawn from the program's hash: the same program draws orderK again among K.
      // Its steps follow as a shell comment (a reduction's shrunk list runs only from its record).
      bool specialized = false;
      const std::string name = level_of_recorded_name(variant.name(), specialized);
      return fmt::format("--backend {} --opt none --orders {}  # {}", flag_,
                         name.substr(std::string(kOrderPrefix).size()), fmt::join(order_steps(variant), ","));
    }
    return fmt::format("--backend {} --opt {}", flag_, level_of(variant));
  }

  void write_reproducer(const std::string& dir, const Program& p, const sym::Env& binding,
                        const oracle::VariantVerdict& failure, const oracle::CheckOptions& options) const override {
    const WorkerModel model = export_model(p, m_.model_format);
    write_file_atomic((fs::path(dir) / model.file_name()).string(), model.bytes);
    const Case c = oracle::make_case(p, binding, options.cases());
    if (c.invalid()) return;
    const Variant& v = failure.variant.tested;
    // A level with a precision is judged against the program computed in it, on the same inputs.
    const std::optional<Case> narrowed =
        v.precision ? std::optional<Case>(oracle::make_case(tolerance::computed_in(p, *v.precision), binding,
                                                            options.cases(), c.inputs))
                    : std::nullopt;
    if (narrowed && narrowed->invalid()) return;
    nlohmann::json data = reproducer_data(model, p, c, narrowed ? *narrowed : c, failure.kind, options);
    data["backend"] = m_.name;
    data["level"] = level_of(v);
    data["disable"] = disabled_steps(v);
    data["config"] = config_of(v);
    if (is_order(v)) data["steps"] = order_steps(v);
    if (const Level* base = m_.level(m_.baseline)) data["baseline"] = {{"level", base->name}, {"config", base->config}};
    nlohmann::json bound = nlohmann::json::object();
    for (const auto& [dim, value] : binding) bound[dim] = value;
    data["binding"] = bound;
    write_file_atomic((fs::path(dir) / "expected.json").string(), data.dump(1));
    const std::map<std::string, std::string> values = template_values(p, failure, model.file_name(), bound.dump());
    for (const auto& [name, path] : m_.reproducer) {
      if (name != kReportFile) write_file_atomic((fs::path(dir) / name).string(), filled(read_template(path), values));
    }
  }

  // A report.md template replaces difftest's report, and the culprit joins expected.json (a
  // reproducer then also runs the failing level with it disabled).
  void write_report(const std::string& dir, const oracle::ReductionReport& r,
                    const oracle::CheckOptions& options) const override {
    const oracle::Culprit& c = r.culprit;
    const bool named = c.reproduced && c.application > 0 && c.summary.empty();
    const sym::Env binding = reference::resolve_binding(r.reduced.program, r.reduced.binding, nullptr);
    const fs::path expected = fs::path(dir) / "expected.json";
    if (named && fs::exists(expected)) {
      nlohmann::json data = oracle::read_json_file(expected.string());
      data["culprits"] = {c.pass};
      write_file_atomic(expected.string(), data.dump(1));
    }
    const auto report = m_.reproducer.find(kReportFile);
    if (report == m_.reproducer.end()) return;
    const Program p = r.failing.variant.specialized() ? fix_dims(r.reduced.program, binding) : r.reduced.program;
    std::map<std::string, std::string> values =
        template_values(p, r.reduced_failure, model_file_name(m_.model_format), "");
    const std::map<std::string, std::string> around =
        named ? dump_around(p, r.reduced_failure.variant.tested, options.limits, c.pass, dir)
              : std::map<std::string, std::string>{};
    std::string modules;
    if (around.count("before")) {
      modules = fmt::format("\n\nThe module before {} is `{}`; {}.", c.pass, around.at("before"),
                            around.count("after") ? fmt::format("after it, `{}`", around.at("after"))
                                                  : fmt::format("{} did not return one", c.pass));
    }
    values["culprit"] = fmt::format("The culprit search ({}, over the level's optional passes):\n\n```\n{}\n```{}",
                                    culprit_search_name(m_.culprit_search), oracle::format_culprit(c), modules);
    values["culprit_short"] = named ? c.pass : values["level"];
    write_file_atomic((fs::path(dir) / kReportFile).string(), filled(read_template(report->second), values));
  }

  std::string reproducer_files() const override {
    std::vector<std::string> files = {fmt::format("`{}` is the model {} ran", model_file_name(m_.model_format), m_.name),
                                      "`expected.json` holds the failing inputs, the reference values and the allowance"};
    for (const auto& [name, path] : m_.reproducer) files.push_back(fmt::format("`{}` (from {})", name, path));
    return fmt::format("{}", fmt::join(files, "; "));
  }

  bool has_model(const Program& p) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return models_.prepare(p, m_.model_format).unsupported.empty();
  }

  std::string version() const {
    std::lock_guard<std::mutex> lock(mutex_);
    query_version();
    return version_;
  }

  // The default check's levels this machine runs natively: those whose `needs` the worker
  // reports among its capabilities (all, when the worker is not installed: the check then says
  // so).
  std::vector<std::string> default_levels() const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!manifest_worker_missing(m_).empty()) return m_.default_levels;
    query_version();
    std::vector<std::string> out;
    for (const std::string& name : m_.default_levels) {
      const Level* level = m_.level(name);
      if (level->needs.empty() || capabilities_.count(level->needs)) out.push_back(name);
    }
    return out;
  }

 private:
  void query_version() const {
    if (!version_.empty()) return;
    if (const std::string missing = manifest_worker_missing(m_); !missing.empty()) {
      version_ = "(not installed)";
      return;
    }
    IsolationLimits limits;
    limits.cpu_seconds = 60;
    const WorkerAnswer answer =
        worker().request(nlohmann::json({{"id", 0}, {"op", "version"}, {"protocol", 1}}).dump(), limits);
    std::string v;
    if (answer.status == WorkerAnswer::Status::Ok) {
      try {
        const nlohmann::json reply = nlohmann::json::parse(answer.line);
        if (reply.value("ok", false) && reply.contains("version") && reply["version"].is_string()) {
          v = reply["version"].get<std::string>();
        }
        if (reply.contains("capabilities") && reply["capabilities"].is_array()) {
          for (const auto& c : reply["capabilities"]) {
            if (c.is_string()) capabilities_.insert(c.get<std::string>());
          }
        }
      } catch (const nlohmann::json::exception&) {
        v = "";
      }
    }
    version_ = v.empty() ? "(the worker did not say its version)" : v;
  }

  static constexpr const char* kReportFile = "report.md";

  // Asks the worker to compile `v` once more (running no case), writing the program before and after the first
  // application of `pass` (the request's "dump_around"; the answer's "dumps" names the files it
  // wrote), and copies them into `dir`: {"before": name, "after": name}, either absent when the
  // worker does not dump (a worker may ignore the field) or the pass raised.
  std::map<std::string, std::string> dump_around(const Program& p, const Variant& v, const IsolationLimits& limits,
                                                 const std::string& pass, const std::string& dir) const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::map<std::string, std::string> out;
    if (!manifest_worker_missing(m_).empty()) return out;
    const PreparedModel& prepared = models_.prepare(p, m_.model_format);
    if (!prepared.unsupported.empty()) return out;
    // A compile is what shows the pass at work: no case is run.
    nlohmann::json request = run_request(++requests_, prepared, p, {}, 1);
    add_variant_fields(request, v);
    request["dump_around"] = pass;
    const WorkerAnswer answer = worker().request(request.dump(), request_limits(limits, 0));
    if (answer.status != WorkerAnswer::Status::Ok) return out;
    try {
      const nlohmann::json reply = nlohmann::json::parse(answer.line);
      const auto dumps = reply.find("dumps");
      if (dumps == reply.end() || !dumps->is_object()) return out;
      for (auto it = dumps->begin(); it != dumps->end(); ++it) {
        if (!it->is_string()) continue;
        const std::string file = it->get<std::string>();
        if (file.find('/') != std::string::npos) continue;
        std::error_code ec;
        fs::copy_file(prepared.dir / file, fs::path(dir) / file, fs::copy_options::overwrite_existing, ec);
        if (!ec) out[it.key()] = file;
      }
    } catch (const nlohmann::json::exception&) {
      return out;  // an answer that is not the protocol's: no dumps
    }
    return out;
  }

  static std::string read_template(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw UserError(ErrorKind::Io, fmt::format("cannot read the reproducer template {}", path));
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }

  std::map<std::string, std::string> template_values(const Program& p, const oracle::VariantVerdict& failure,
                                                     const std::string& model_file, const std::string& binding) const {
    const Variant& v = failure.variant.tested;
    const Level* level = m_.level(level_of(v));
    const auto disabled = disabled_steps(v);
    return {{"name", m_.name},
            {"version", version()},
            {"level", level_of(v)},
            {"level_description", level && !level->description.empty() ? level->description : level_of(v)},
            {"baseline", m_.baseline},
            {"disabled", nlohmann::json(disabled).dump()},
            {"disabled_text", disabled.empty() ? "" : fmt::format("; with {} disabled", fmt::join(disabled, ", "))},
            {"model", model_file},
            {"binding", binding},
            {"expected", "expected.json"},
            {"verdict", oracle::verdict_kind_name(failure.kind)},
            {"message", failure.message},
            {"program", print(p)},
            {"platform", os_description()},
            {"difftest_version", oracle::kDifftestVersion},
            {"python_check", exporters::python_check_function()}};
  }

  static std::string level_of(const Variant& v) { return v.settings.value("level", v.name()); }

  static constexpr const char* kOrderPrefix = "order";
  // "order1", "order2-specialized", ...: a random order's name, never a level's (read_manifest
  // refuses a level named so when the manifest declares orders).
  bool is_order_name(const std::string& name) const {
    if (m_.random_orders.phases.empty() || name.rfind(kOrderPrefix, 0) != 0) return false;
    const size_t digits = std::string(kOrderPrefix).size();
    return name.size() > digits && std::isdigit(static_cast<unsigned char>(name[digits])) && !m_.level(name);
  }
  static bool is_order(const Variant& v) { return v.settings.value("order", false); }

  static Variant order_variant(const std::string& name, std::vector<std::string> steps) {
    Variant v{VariantKind::RandomOrder, name, std::move(steps)};
    v.settings = {{"level", name}, {"order", true}};
    return v;
  }

  // The steps a variant runs: a random order's drawn steps up to its bisection limit.
  static std::vector<std::string> order_steps(const Variant& v) {
    std::vector<std::string> steps = v.steps;
    if (v.limit >= 0 && static_cast<size_t>(v.limit) < steps.size()) steps.resize(static_cast<size_t>(v.limit));
    return steps;
  }

  // The level's declared steps the variant does not run: those after its bisection limit, and
  // those a shrunk list left out.
  std::vector<std::string> disabled_steps(const Variant& v) const {
    if (is_order(v)) return {};  // an order runs what its steps say
    const Level* level = m_.level(level_of(v));
    std::vector<std::string> enabled = v.steps;
    if (m_.culprit_search != CulpritSearch::OptBisect && v.limit >= 0 &&
        static_cast<size_t>(v.limit) < enabled.size()) {
      enabled.resize(static_cast<size_t>(v.limit));
    }
    std::vector<std::string> out;
    for (const auto& s : level ? level->steps : std::vector<std::string>{}) {
      if (std::find(enabled.begin(), enabled.end(), s) == enabled.end()) out.push_back(s);
    }
    return out;
  }

  // "" when `p` computes only in dtypes the manifest declares, else the first it does not.
  std::string undeclared_dtype(const Program& p) const {
    if (m_.dtypes.empty()) return "";
    for (DType t : p.dtypes_computed()) {
      if (std::find(m_.dtypes.begin(), m_.dtypes.end(), t) != m_.dtypes.end()) continue;
      return fmt::format("{} does not compute in {} as declared{}", m_.name, dtype_name(t),
                         m_.dtypes_reason.empty() ? "" : ": " + m_.dtypes_reason);
    }
    return "";
  }

  nlohmann::json config_of(const Variant& v) const {
    if (is_order(v)) return m_.random_orders.config;
    const Level* level = m_.level(level_of(v));
    return level ? level->config : nlohmann::json::object();
  }

  void add_variant_fields(nlohmann::json& request, const Variant& v) const {
    request["level"] = level_of(v);
    request["config"] = config_of(v);
    request["disable"] = disabled_steps(v);
    if (is_order(v)) {
      request["steps"] = order_steps(v);
    } else if (m_.culprit_search == CulpritSearch::OptBisect) {
      request["limit"] = v.limit;
    }
  }

  oracle::WorkerProcess& worker() const {
    if (!worker_) worker_ = std::make_unique<oracle::WorkerProcess>(m_.worker);
    return *worker_;
  }

  Manifest m_;
  std::string flag_;
  mutable std::mutex mutex_;
  mutable std::unique_ptr<oracle::WorkerProcess> worker_;
  mutable uint64_t requests_ = 0;
  mutable ModelCache models_;
  mutable std::string version_;
  mutable std::set<std::string> capabilities_;  // what the worker's version answer says it runs natively
};

}  // namespace

const ManifestCompiler& as_manifest_compiler(const oracle::CompilerUnderTest& compiler) {
  const auto* m = dynamic_cast<const ManifestCompiler*>(&compiler);
  DT_CHECK(m != nullptr, "not a manifest's compiler: " + compiler.name());
  return *m;
}

std::vector<std::string> manifest_compiler_default_levels(const oracle::CompilerUnderTest& compiler) {
  return as_manifest_compiler(compiler).default_levels();
}

std::string manifest_compiler_version(const oracle::CompilerUnderTest& compiler) {
  return as_manifest_compiler(compiler).version();
}

bool manifest_compiler_has_model(const oracle::CompilerUnderTest& compiler, const Program& p) {
  return as_manifest_compiler(compiler).has_model(p);
}

std::unique_ptr<oracle::CompilerUnderTest> make_manifest_compiler(Manifest manifest, std::string flag) {
  return std::make_unique<ManifestCompiler>(std::move(manifest), std::move(flag));
}

}  // namespace difftest::backends
