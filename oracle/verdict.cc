#include "oracle/verdict.h"

#include <fmt/format.h>

#include <cctype>

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
  }
  return "?";
}

bool is_failure(VerdictKind k) { return k != VerdictKind::Ok && k != VerdictKind::InvalidProgram; }

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
  const std::string what = kind == VerdictKind::Mismatch ? "output " + output : message;
  return fmt::format("{}|{}|{}|{}", verdict_kind_name(kind), pipeline, stage, normalize_message(what));
}

nlohmann::json VariantVerdict::to_json() const {
  nlohmann::json j = {{"pipeline", pipeline}, {"binding", binding}, {"kind", verdict_kind_name(kind)},
                      {"stage", stage},       {"message", message}, {"compile_ms", compile_ms},
                      {"run_ms", run_ms}};
  if (kind == VerdictKind::Mismatch || kind == VerdictKind::Ok) {
    j["worst_ratio"] = worst_ratio;
  }
  if (kind == VerdictKind::Mismatch) {
    j["output"] = output;
    j["index"] = index;
    j["got"] = got;
    j["want"] = want;
    j["bound"] = bound;
  }
  if (is_failure(kind)) j["signature"] = signature();
  return j;
}

VerdictKind Verdict::overall() const {
  VerdictKind worst = VerdictKind::Ok;
  for (const auto& v : variants) {
    if (is_failure(v.kind)) return v.kind;
    if (v.kind == VerdictKind::InvalidProgram) worst = v.kind;
  }
  return worst;
}

const VariantVerdict* Verdict::first_failure() const {
  for (const auto& v : variants) {
    if (is_failure(v.kind)) return &v;
  }
  return nullptr;
}

nlohmann::json Verdict::to_json() const {
  nlohmann::json j = {{"program", program}, {"hash", fmt::format("{:016x}", hash)}, {"verdict", verdict_kind_name(overall())},
                      {"faults", faults}};
  j["variants"] = nlohmann::json::array();
  for (const auto& v : variants) j["variants"].push_back(v.to_json());
  return j;
}

}  // namespace difftest::oracle
