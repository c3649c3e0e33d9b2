#include "oracle/check/verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "compiler/support/diagnostics.h"
#include "oracle/check/reproducer_writer.h"
#include "oracle/check/variant_ladder.h"
#include "oracle/io/json_file.h"
#include "reference/summary.h"

namespace difftest::oracle {

const char* verdict_kind_name(VerdictKind k) {
  switch (k) {
    case VerdictKind::Ok: return "ok";
    case VerdictKind::Mismatch: return "mismatch";
    case VerdictKind::CompileCrash: return "compile_crash";
    case VerdictKind::CompileReject: return "compile_reject";
    case VerdictKind::RuntimeCrash: return "runtime_crash";
    case VerdictKind::Timeout: return "timeout";
    case VerdictKind::InvalidProgram: return "invalid_program";
    case VerdictKind::Outlier: return "outlier";
    case VerdictKind::Unchecked: return "unchecked";
    case VerdictKind::Nondeterministic:
      return "nondeterministic";
    case VerdictKind::Unsupported:
      return "unsupported";
  }
  return "?";
}

std::optional<VerdictKind> verdict_kind_from_name(const std::string& name) {
  for (VerdictKind k :
       {VerdictKind::Ok, VerdictKind::Mismatch, VerdictKind::CompileCrash, VerdictKind::CompileReject,
        VerdictKind::RuntimeCrash, VerdictKind::Timeout, VerdictKind::InvalidProgram, VerdictKind::Outlier,
        VerdictKind::Unchecked, VerdictKind::Nondeterministic, VerdictKind::Unsupported}) {
    if (name == verdict_kind_name(k)) return k;
  }
  return std::nullopt;
}

bool is_failure(VerdictKind k) {
  return k != VerdictKind::Ok && k != VerdictKind::InvalidProgram && k != VerdictKind::Unchecked &&
         k != VerdictKind::Unsupported;
}

bool is_output_finding(VerdictKind k) { return k == VerdictKind::Mismatch || k == VerdictKind::Outlier; }

bool names_output(VerdictKind k) { return is_output_finding(k) || k == VerdictKind::Unchecked; }

std::string format_duration(double seconds) {
  const auto t = static_cast<int64_t>(seconds);
  if (t >= 3600) return fmt::format("{}h{:02}m", t / 3600, t / 60 % 60);
  return fmt::format("{}m{:02}s", t / 60, t % 60);
}

Signature VariantVerdict::signature() const {
  // Masked whole: an op's own digits too ("output of atanN"), as signatures always were.
  const std::string what = names_output(kind) && !output_op.empty() ? "output of " + output_op : message;
  return {verdict_kind_name(kind), variant.signature_place(), stage.name(), normalize_message(what)};
}

nlohmann::json VariantVerdict::to_json() const {
  nlohmann::json j = {{"binding", binding}, {"kind", verdict_kind_name(kind)}, {"stage", stage.name()},
                      {"message", message}, {"compile_ms", compile_ms},        {"run_ms", run_ms}};
  variant.write_json(j);
  if (is_output_finding(kind) || kind == VerdictKind::Ok || kind == VerdictKind::Unchecked) {
    j["worst_ratio"] = worst_ratio;
    j["worst_excess"] = worst_excess;
  }
  if (elements > 0) {
    j["elements"] = elements;
    j["elements_checked"] = elements_checked;
  }
  if (names_output(kind)) {
    j["output"] = output;
    j["output_op"] = output_op;
  }
  if (is_output_finding(kind)) {
    j["index"] = index;
    j["got"] = got;
    j["want"] = want;
    j["bound"] = bound;
  }
  if (is_failure(kind)) j["signature"] = signature().str();
  if (cpu_ms > 0) j["cpu_ms"] = cpu_ms;
  if (!tries.empty()) {
    j["tries"] = nlohmann::json::array();
    for (const auto& t : tries) j["tries"].push_back(t.to_json());
  }
  return j;
}

nlohmann::json TimeoutTry::to_json() const {
  nlohmann::json j = {{"cpu_budget_s", cpu_budget}, {"cpu_s", cpu_seconds}, {"wall_s", wall_seconds},
                      {"stage", stage.describe()},  {"outcome", outcome},   {"finished_cpu_s", finished_cpu_seconds}};
  if (blocked) j["blocked"] = true;
  return j;
}

std::string format_verdict(const Verdict& v, const std::string& title, const ReproducerWriter& compiler) {
  std::string out = fmt::format("{}: program {:016x}", title, v.hash);
  if (!v.target.empty()) out += fmt::format(" for target {}", v.target);
  if (!v.faults.empty()) out += fmt::format(" (injected: {})", fmt::join(v.faults, ", "));
  out += "\n";
  std::vector<std::string> listed;
  for (const auto& var : v.variants) {
    const Variant& tested = var.variant.tested;
    if (!tested.records_steps() || std::find(listed.begin(), listed.end(), tested.name()) != listed.end()) {
      continue;
    }
    listed.push_back(tested.name());
    out += fmt::format("  {} = {}\n", tested.name(), compiler.replay_flags(tested));
  }
  size_t width = 9;  // the longest variant name ("disabled~extended", "O3~O3-specialized")
  for (const auto& var : v.variants) width = std::max(width, var.variant.name().size());
  for (const auto& var : v.variants) {
    out += fmt::format("  {:<{}} {:<24} {:<15} {}\n", var.variant.name(), width, reference::binding_str(var.binding),
                       verdict_kind_name(var.kind),
                       var.kind == VerdictKind::Ok ? fmt::format("worst ratio {:.3g}", var.worst_ratio) : var.message);
  }
  out += fmt::format("verdict: {}\n", verdict_kind_name(v.overall()));
  return out;
}

StageTimes& StageTimes::operator+=(const StageTimes& o) {
  generate += o.generate;
  reference += o.reference;
  compile += o.compile;
  run += o.run;
  compare += o.compare;
  for (const auto& [variant, ms] : o.compile_by_variant) compile_by_variant[variant] += ms;
  return *this;
}

StageTimes StageTimes::from_json(const nlohmann::json& j) {
  StageTimes t;
  t.generate = json_number(j, "generate_ms");
  t.reference = json_number(j, "reference_ms");
  t.compile = json_number(j, "compile_ms");
  t.run = json_number(j, "run_ms");
  t.compare = json_number(j, "compare_ms");
  if (j.contains("compile_ms_by_variant")) {
    t.compile_by_variant = j["compile_ms_by_variant"].get<std::map<std::string, double>>();
  }
  return t;
}

nlohmann::json StageTimes::to_json() const {
  nlohmann::json j = {{"generate_ms", generate},
                      {"reference_ms", reference},
                      {"compile_ms", compile},
                      {"run_ms", run},
                      {"compare_ms", compare}};
  if (!compile_by_variant.empty()) j["compile_ms_by_variant"] = compile_by_variant;
  return j;
}

VerdictKind Verdict::overall() const {
  VerdictKind worst = VerdictKind::Ok;
  for (const auto& v : variants) {
    if (is_failure(v.kind)) return v.kind;
    const bool unjudged = v.kind == VerdictKind::Unchecked || v.kind == VerdictKind::Unsupported;
    if (v.kind == VerdictKind::InvalidProgram || (unjudged && worst == VerdictKind::Ok)) {
      worst = v.kind;
    }
  }
  return worst;
}

const VariantVerdict* Verdict::first_failure() const {
  for (const auto& v : variants) {
    if (is_failure(v.kind)) return &v;
  }
  return nullptr;
}

std::vector<Signature> Verdict::failure_signatures() const {
  std::vector<Signature> out;
  for (const auto& var : variants) {
    if (!is_failure(var.kind)) continue;
    Signature s = var.signature();
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(std::move(s));
  }
  return out;
}

int Verdict::refuted_timeouts() const {
  return static_cast<int>(std::count_if(variants.begin(), variants.end(), [](const VariantVerdict& v) {
    return !v.tries.empty() && v.kind != VerdictKind::Timeout;
  }));
}

nlohmann::json Verdict::to_json() const {
  nlohmann::json j = {{"program", program}, {"hash", fmt::format("{:016x}", hash)}, {"verdict", verdict_kind_name(overall())},
                      {"faults", faults}, {"times", times.to_json()}};
  if (!target.empty()) j["target"] = target;
  if (!exercised.empty()) j["exercised"] = exercised;
  j["variants"] = nlohmann::json::array();
  for (const auto& v : variants) j["variants"].push_back(v.to_json());
  if (cancelled) j["cancelled"] = true;
  return j;
}

namespace {

UserError malformed(const std::string& where, const std::string& what, const std::string& why) {
  return UserError(ErrorKind::Syntax, fmt::format("{}: {} {}", where, what, why));
}

}  // namespace

TimeoutTry TimeoutTry::from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw malformed(where, "a recorded try", "is not a JSON object");
  TimeoutTry t;
  try {
    t.cpu_budget = json_number(j, "cpu_budget_s");
    t.cpu_seconds = json_number(j, "cpu_s");
    t.wall_seconds = json_number(j, "wall_s");
    t.blocked = j.value("blocked", false);
    t.stage = Stage::from_description(j.value("stage", std::string()), where);
    t.finished_cpu_seconds = json_number(j, "finished_cpu_s");
    t.outcome = j.value("outcome", std::string());
  } catch (const nlohmann::json::exception& e) {
    throw malformed(where, "a recorded try", fmt::format("has a field of the wrong kind: {}", e.what()));
  }
  return t;
}

VariantVerdict VariantVerdict::from_json(const nlohmann::json& j, const std::string& where,
                                         const VariantLadder& compiler) {
  VariantVerdict v;
  v.variant = VariantId::from_json(j, where, compiler);  // also: j is an object with a "pipeline"
  const auto bad = [&](const std::string& why) { return malformed(where, "a recorded variant", why); };
  if (!j.contains("kind") || !j["kind"].is_string()) throw bad("has no \"kind\" string");
  const auto k = verdict_kind_from_name(j["kind"].get<std::string>());
  if (!k) throw bad(fmt::format("has an unknown kind '{}'", j["kind"].get<std::string>()));
  v.kind = *k;
  try {
    v.stage = Stage::from_name(j.value("stage", std::string("compile")));
    v.message = j.value("message", std::string());
    if (j.contains("binding")) v.binding = j["binding"].get<sym::Env>();
    v.elements = j.value("elements", int64_t{0});
    v.elements_checked = j.value("elements_checked", int64_t{0});
    v.output = j.value("output", std::string());
    v.output_op = j.value("output_op", std::string());
    if (j.contains("index")) v.index = j["index"].get<std::vector<int64_t>>();
    v.got = json_number(j, "got");
    v.want = json_number(j, "want");
    v.bound = json_number(j, "bound");
    v.worst_ratio = json_number(j, "worst_ratio");
    v.worst_excess = json_number(j, "worst_excess");
    v.compile_ms = json_number(j, "compile_ms");
    v.run_ms = json_number(j, "run_ms");
    v.cpu_ms = json_number(j, "cpu_ms");
    if (j.contains("tries")) {
      for (const auto& t : j["tries"]) v.tries.push_back(TimeoutTry::from_json(t, where));
    }
  } catch (const nlohmann::json::exception& e) {
    throw bad(fmt::format("has a field of the wrong kind: {}", e.what()));
  }
  return v;
}

Verdict Verdict::from_json(const nlohmann::json& j, const std::string& where, const VariantLadder& compiler) {
  if (!j.is_object() || !j.contains("variants") || !j["variants"].is_array()) {
    throw malformed(where, "a recorded verdict", "is not a verdict (no \"variants\" list)");
  }
  Verdict v;
  try {
    v.program = j.value("program", std::string());
    v.hash = std::stoull(j.value("hash", std::string("0")), nullptr, 16);
    if (j.contains("faults")) v.faults = j["faults"].get<std::vector<std::string>>();
    v.target = j.value("target", std::string());
    if (j.contains("times")) v.times = StageTimes::from_json(j["times"]);
    if (j.contains("exercised")) v.exercised = j["exercised"].get<std::set<std::string>>();
    v.cancelled = j.value("cancelled", false);
  } catch (const std::exception& e) {
    throw malformed(where, "a recorded verdict", fmt::format("has a field of the wrong kind: {}", e.what()));
  }
  for (const auto& var : j["variants"]) v.variants.push_back(VariantVerdict::from_json(var, where, compiler));
  return v;
}

}  // namespace difftest::oracle
