#include "oracle/check/verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

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
  }
  return "?";
}

std::optional<VerdictKind> verdict_kind_from_name(const std::string& name) {
  for (VerdictKind k : {VerdictKind::Ok, VerdictKind::Mismatch, VerdictKind::CompileCrash, VerdictKind::CompileReject,
                        VerdictKind::RuntimeCrash, VerdictKind::Timeout, VerdictKind::InvalidProgram,
                        VerdictKind::Outlier, VerdictKind::Unchecked}) {
    if (name == verdict_kind_name(k)) return k;
  }
  return std::nullopt;
}

std::string signature_kind(const std::string& signature) { return signature.substr(0, signature.find('|')); }

bool is_failure(VerdictKind k) {
  return k != VerdictKind::Ok && k != VerdictKind::InvalidProgram && k != VerdictKind::Unchecked;
}

bool is_output_finding(VerdictKind k) { return k == VerdictKind::Mismatch || k == VerdictKind::Outlier; }

std::string format_duration(double seconds) {
  const auto t = static_cast<int64_t>(seconds);
  if (t >= 3600) return fmt::format("{}h{:02}m", t / 3600, t / 60 % 60);
  return fmt::format("{}m{:02}s", t / 60, t % 60);
}

std::string normalize_message(const std::string& m) {
  std::string out;
  for (size_t i = 0; i < m.size();) {
    const char c = m[i];
    if (c == '%' || c == '@') {  // value and program names
      out += c;
      out += '_';
      ++i;
      while (i < m.size() && (std::isalnum(static_cast<unsigned char>(m[i])) || m[i] == '_')) ++i;
    } else if (c == '[') {  // shapes and indices
      size_t j = m.find(']', i);
      if (j == std::string::npos) j = m.size() - 1;
      out += "[_]";
      i = j + 1;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               ((c == '-' || c == '.') && i + 1 < m.size() && std::isdigit(static_cast<unsigned char>(m[i + 1])) &&
                (i == 0 || !std::isalnum(static_cast<unsigned char>(m[i - 1]))))) {
      out += 'N';
      ++i;
      while (i < m.size() && (std::isalnum(static_cast<unsigned char>(m[i])) || m[i] == '.' || m[i] == '+' ||
                              ((m[i] == '-') && (m[i - 1] == 'e' || m[i - 1] == 'E')))) {
        ++i;
      }
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

std::string VariantVerdict::signature() const {
  const std::string what = is_output_finding(kind) ? "output of " + output_op : message;
  // A random order's name (order1, order2) says nothing about the bug; its passes are recorded.
  const std::string where = passes.empty() ? pipeline : "custom";
  return fmt::format("{}|{}|{}|{}", verdict_kind_name(kind), where, stage, normalize_message(what));
}

nlohmann::json VariantVerdict::to_json() const {
  nlohmann::json j = {{"pipeline", pipeline}, {"binding", binding}, {"kind", verdict_kind_name(kind)},
                      {"stage", stage},       {"message", message}, {"compile_ms", compile_ms},
                      {"run_ms", run_ms}};
  if (!passes.empty()) {
    j["passes"] = passes;
    j["llvm_opt_level"] = llvm_opt_level;
    j["fma_contraction"] = fma_contraction;
  }
  if (specialized) j["specialized"] = true;
  if (!against.empty()) j["against"] = against;
  if (is_output_finding(kind) || kind == VerdictKind::Ok || kind == VerdictKind::Unchecked) {
    j["worst_ratio"] = worst_ratio;
    j["worst_excess"] = worst_excess;
  }
  if (is_output_finding(kind)) {
    j["output"] = output;
    j["output_op"] = output_op;
    j["index"] = index;
    j["got"] = got;
    j["want"] = want;
    j["bound"] = bound;
  }
  if (is_failure(kind)) j["signature"] = signature();
  if (cpu_ms > 0) j["cpu_ms"] = cpu_ms;
  if (!tries.empty()) {
    j["tries"] = nlohmann::json::array();
    for (const auto& t : tries) j["tries"].push_back(t.to_json());
  }
  return j;
}

nlohmann::json TimeoutTry::to_json() const {
  nlohmann::json j = {{"cpu_budget_s", cpu_budget}, {"cpu_s", cpu_seconds},
                      {"wall_s", wall_seconds},     {"stage", stage},
                      {"outcome", outcome},         {"finished_cpu_s", finished_cpu_seconds}};
  if (blocked) j["blocked"] = true;
  return j;
}

std::string format_verdict(const Verdict& v, const std::string& title) {
  std::string out = fmt::format("{}: program {:016x}", title, v.hash);
  if (!v.faults.empty()) out += fmt::format(" (injected: {})", fmt::join(v.faults, ", "));
  out += "\n";
  std::vector<std::string> listed;
  for (const auto& var : v.variants) {
    if (var.passes.empty() || std::find(listed.begin(), listed.end(), var.pipeline) != listed.end()) continue;
    listed.push_back(var.pipeline);
    out += fmt::format("  {} = --passes {} (LLVM -O{}{})\n", var.pipeline, fmt::join(var.passes, ","),
                       var.llvm_opt_level, var.fma_contraction ? ", FMA" : "");
  }
  for (const auto& var : v.variants) {
    out += fmt::format("  {:<9} {:<24} {:<15} {}\n", var.pipeline, reference::binding_str(var.binding),
                       verdict_kind_name(var.kind),
                       var.kind == VerdictKind::Ok ? fmt::format("worst ratio {:.3g}", var.worst_ratio) : var.message);
  }
  out += fmt::format("verdict: {}\n", verdict_kind_name(v.overall()));
  return out;
}

nlohmann::json StageTimes::to_json() const {
  return {{"generate_ms", generate}, {"reference_ms", reference}, {"compile_ms", compile}, {"run_ms", run},
          {"compare_ms", compare}};
}

VerdictKind Verdict::overall() const {
  VerdictKind worst = VerdictKind::Ok;
  for (const auto& v : variants) {
    if (is_failure(v.kind)) return v.kind;
    if (v.kind == VerdictKind::InvalidProgram || (v.kind == VerdictKind::Unchecked && worst == VerdictKind::Ok)) {
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

int Verdict::refuted_timeouts() const {
  return static_cast<int>(std::count_if(variants.begin(), variants.end(), [](const VariantVerdict& v) {
    return !v.tries.empty() && v.kind != VerdictKind::Timeout;
  }));
}

nlohmann::json Verdict::to_json() const {
  nlohmann::json j = {{"program", program}, {"hash", fmt::format("{:016x}", hash)}, {"verdict", verdict_kind_name(overall())},
                      {"faults", faults}, {"times", times.to_json()}};
  j["variants"] = nlohmann::json::array();
  for (const auto& v : variants) j["variants"].push_back(v.to_json());
  if (cancelled) j["cancelled"] = true;
  return j;
}

}  // namespace difftest::oracle
