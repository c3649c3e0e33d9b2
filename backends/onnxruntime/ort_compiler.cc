#include "backends/onnxruntime/ort_compiler.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>

#include "backends/kit/worker_requests.h"
#include "backends/kit/levels.h"
#include "backends/kit/model_files.h"
#include "backends/onnxruntime/ort_culprit.h"
#include "backends/onnxruntime/ort_report.h"
#include "compiler/ir/diagnostics.h"
#include "compiler/ir/printer.h"
#include "compiler/tensor/npy.h"
#include "oracle/check/wire.h"
#include "oracle/isolate/worker_process.h"

#ifndef DIFFTEST_ORT_DEFAULT_DIR
#define DIFFTEST_ORT_DEFAULT_DIR ""
#endif

namespace difftest::backends {

using oracle::Case;
using oracle::ChildOutcome;
using oracle::CompiledRuns;
using oracle::IsolationLimits;
using oracle::Stage;
using oracle::Variant;
using oracle::VariantKind;
using oracle::WorkerAnswer;

namespace fs = std::filesystem;

const std::vector<std::string>& ort_levels() {
  static const std::vector<std::string> levels = {"disabled", "basic", "extended", "layout", "all"};
  return levels;
}

OrtInstall ort_install() {
  OrtInstall in;
  const char* dir = std::getenv("DIFFTEST_ORT_DIR");
  in.dir = dir && *dir ? dir : DIFFTEST_ORT_DEFAULT_DIR;
  const char* node = std::getenv("DIFFTEST_NODE");
  in.node = node && *node ? node : "node";
  const fs::path package = fs::path(in.dir) / "node_modules" / "onnxruntime-node" / "package.json";
  std::ifstream f(package);
  if (f) {
    try {
      in.version = nlohmann::json::parse(f).value("version", "");
    } catch (const nlohmann::json::exception&) {
      in.version = "";
    }
  }
  if (in.dir.empty()) {
    in.missing = "no onnxruntime-node directory is configured (set DIFFTEST_ORT_DIR)";
  } else if (!fs::exists(fs::path(in.dir) / "ort_worker.js")) {
    in.missing = fmt::format("{} has no ort_worker.js (scripts/setup.sh configures the build and installs it)", in.dir);
  } else if (in.version.empty()) {
    in.missing = fmt::format("onnxruntime-node is not installed in {} (scripts/setup.sh installs it)", in.dir);
  } else if (!runnable(in.node)) {
    in.missing = fmt::format("Node.js ('{}') is not installed or not on PATH (scripts/setup.sh installs nodejs; "
                             "DIFFTEST_NODE names another binary)",
                             in.node);
  }
  return in;
}

namespace {

Variant level_variant(VariantKind kind, const std::string& label, const std::string& level,
                      std::vector<std::string> disabled = {}) {
  Variant v{kind, label, {}};
  v.settings = {{"level", level}, {"disabled", std::move(disabled)}};
  return v;
}

std::string level_of(const Variant& v) { return v.settings.value("level", std::string("all")); }

std::vector<std::string> disabled_of(const Variant& v) {
  return v.settings.value("disabled", std::vector<std::string>{});
}

// ORT has no kernel for the type of a node of the exported model (its CPU provider and bf16,
// most ops): not a finding. The exporter leaves its nodes unnamed; a node a transformer made
// (named after it, '/QuickGeluFusion/') without a kernel is the transformer's finding.
bool is_missing_kernel(const std::string& error) {
  const bool missing = error.find("Could not find an implementation") != std::string::npos ||
                       error.find("NOT_IMPLEMENTED") != std::string::npos;
  return missing && error.find("node with name ''") != std::string::npos;
}

class OrtCompiler final : public LevelCompiler {
 public:
  std::string name() const override { return "ort"; }
  std::optional<oracle::Variant> baseline() const override { return named("disabled", "the baseline"); }

  std::string identity() const override {
    const OrtInstall in = ort_install();
    return fmt::format("ONNX Runtime {} (onnxruntime-node, CPU execution provider, single-threaded)",
                       in.version.empty() ? "(not installed)" : in.version);
  }

  Variant named(const std::string& name, const std::string& where) const override {
    if (std::find(ort_levels().begin(), ort_levels().end(), name) == ort_levels().end()) {
      throw UserError(ErrorKind::Usage, fmt::format("{}: ONNX Runtime has no optimization level '{}' (levels: {})",
                                                    where, name, fmt::join(ort_levels(), ", ")));
    }
    return level_variant(VariantKind::Named, name, name);
  }

  Variant recorded(const std::string& name, std::vector<std::string> steps, const nlohmann::json& record,
                   const std::string& where) const override {
    bool specialized = false;
    Variant v = named(level_of_recorded_name(name, specialized), where);
    v.label = name;
    v.steps = std::move(steps);
    try {
      v.settings["disabled"] = record.value("disabled", std::vector<std::string>{});
    } catch (const nlohmann::json::exception& e) {
      throw UserError(ErrorKind::Syntax, fmt::format("{}: a recorded variant's \"disabled\": {}", where, e.what()));
    }
    return v;
  }

  ChildOutcome run_in_own_process(const Program& p, const Variant& variant, const std::vector<const Case*>& cases,
                                  const IsolationLimits& limits) const override {
    std::lock_guard<std::mutex> lock(mutex_);
    const OrtInstall install = ort_install();
    if (!install.missing.empty()) return backends::unsupported_outcome("ONNX Runtime cannot run here: " + install.missing);
    const PreparedModel& prepared = models_.prepare(p, ModelFormat::Onnx);
    if (!prepared.unsupported.empty()) return backends::unsupported_outcome(prepared.unsupported);
    const WorkerAnswer answer = send(install, p, prepared, variant, cases, limits, false);
    return outcome_of_answer(answer, prepared, p, cases, reading());
  }

  oracle::StepRole step_role(const std::string&) const override { return oracle::StepRole::Other; }
  std::optional<Program> program_after(const Program&, const Variant&, int) const override { return std::nullopt; }
  std::optional<oracle::Culprit> own_culprit_search(const Program& p, const oracle::FailingRun& failing,
                                                    const oracle::CheckOptions& base,
                                                    const oracle::BisectProgress& on_call) const override {
    return find_culprit_transformers(p, failing, base, on_call);
  }
  std::string fixed_culprit(const Stage& failed_in) const override {
    return failed_in.compiling() ? "ONNX Runtime's session set-up (no transformer)" : "ONNX Runtime's CPU kernels";
  }

  std::string environment(const Variant& variant) const override {
    const auto disabled = disabled_of(variant);
    return fmt::format("{}, graphOptimizationLevel '{}'{}", identity(), level_of(variant),
                       disabled.empty() ? "" : fmt::format(", disabled: {}", fmt::join(disabled, ";")));
  }

  std::string replay_flags(const Variant& variant) const override {
    return fmt::format("--backend ort --opt {}", level_of(variant));
  }

  void write_reproducer(const std::string& dir, const Program& p, const sym::Env&, const oracle::VariantVerdict&,
                        const oracle::CheckOptions&) const override {
    write_file_atomic((fs::path(dir) / "model.onnx").string(), export_onnx_model(p).bytes);
  }

  std::string reproducer_files() const override {
    return "`model.onnx` is the model ONNX Runtime ran; `repro.py` and `repro.js` check it by themselves";
  }

  void write_report(const std::string& dir, const oracle::ReductionReport& report,
                    const oracle::CheckOptions& options) const override {
    write_ort_report(dir, report, options);
  }

  OrtSessionLog session_log(const Program& p, const Variant& variant, const Case& c,
                            const IsolationLimits& limits) const {
    std::lock_guard<std::mutex> lock(mutex_);
    OrtSessionLog log;
    const OrtInstall install = ort_install();
    if (!install.missing.empty()) {
      log.error = "ONNX Runtime cannot run here: " + install.missing;
      return log;
    }
    const PreparedModel& prepared = models_.prepare(p, ModelFormat::Onnx);
    if (!prepared.unsupported.empty()) {
      log.error = prepared.unsupported;
      return log;
    }
    const WorkerAnswer answer = send(install, p, prepared, variant, {&c}, limits, true);
    if (answer.status != WorkerAnswer::Status::Ok) {
      log.error = fmt::format("the worker did not answer ({})", last_line(answer.log));
      return log;
    }
    parse_transformer_log(answer.log, log);
    std::ifstream f(prepared.dir / "optimized.onnx", std::ios::binary);
    log.optimized_model.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    log.ok = true;
    return log;
  }

 private:
  // One request for `variant` of `prepared` on `cases`; with `log`, ORT logs every transformer
  // and saves the optimized model as optimized.onnx in the model's directory.
  WorkerAnswer send(const OrtInstall& install, const Program& p, const PreparedModel& prepared, const Variant& variant,
                    const std::vector<const Case*>& cases, const IsolationLimits& limits, bool log) const {
    nlohmann::json request = run_request(++requests_, prepared, p, cases, log ? 1 : 2);
    request["level"] = level_of(variant);
    request["disable"] = disabled_of(variant);
    request["log"] = log;
    request["optimized"] = log ? nlohmann::json((prepared.dir / "optimized.onnx").string()) : nullptr;
    return worker(install).request(request.dump(), request_limits(limits, cases.size()));
  }

  static AnswerReading reading() {
    return {"ONNX Runtime", [](const std::string& stage, const std::string& error) {
              return stage == "compile" && is_missing_kernel(error) ? "ONNX Runtime has no kernel for it: " + first_line(error)
                                                                    : std::string();
            }};
  }

  // The worker of `install`, started again when the install moved (DIFFTEST_ORT_DIR, DIFFTEST_NODE).
  oracle::WorkerProcess& worker(const OrtInstall& install) const {
    std::vector<std::string> argv = {install.node, (fs::path(install.dir) / "ort_worker.js").string(),
                                     (fs::path(install.dir) / "node_modules").string()};
    if (!worker_ || argv != worker_argv_) {
      worker_ = std::make_unique<oracle::WorkerProcess>(argv);
      worker_argv_ = std::move(argv);
    }
    return *worker_;
  }

  mutable std::mutex mutex_;
  mutable std::unique_ptr<oracle::WorkerProcess> worker_;
  mutable std::vector<std::string> worker_argv_;
  mutable uint64_t requests_ = 0;
  mutable ModelCache models_{"ort"};
};

}  // namespace

const oracle::CompilerUnderTest& ort_compiler() {
  static const OrtCompiler compiler;
  return compiler;
}

void parse_transformer_log(const std::string& log, OrtSessionLog& out) {
  // ORT (graph_transformer.cc) logs "GraphTransformer <name> modified: <0|1> with status: ..."
  // after each application of a transformer, in every step of every level.
  const std::string head = "GraphTransformer ", tail = " modified: ";
  for (size_t at = 0; (at = log.find(head, at)) != std::string::npos;) {
    const size_t name_end = log.find(tail, at);
    const size_t line_end = log.find('\n', at);
    if (name_end == std::string::npos || name_end > line_end) {
      at += head.size();
      continue;
    }
    const std::string name = log.substr(at + head.size(), name_end - at - head.size());
    const bool modified = log.compare(name_end + tail.size(), 1, "1") == 0;
    const auto add = [&](std::vector<std::string>& list) {
      if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
    };
    add(out.applied);
    if (modified) add(out.modified);
    at = name_end;
  }
}

OrtSessionLog ort_session_log(const Program& p, const Variant& variant, const Case& c, const IsolationLimits& limits) {
  return static_cast<const OrtCompiler&>(ort_compiler()).session_log(p, variant, c, limits);
}

}  // namespace difftest::backends
