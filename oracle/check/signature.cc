#include "oracle/check/signature.h"

#include <cctype>

#include "oracle/check/verdict.h"

namespace difftest::oracle {

namespace {

// The next '|'-separated field of `text` from `at` (the rest when `last`); false when there is none.
bool take_field(const std::string& text, size_t& at, bool last, std::string& field) {
  if (at == std::string::npos || at > text.size()) return false;
  const size_t bar = last ? std::string::npos : text.find('|', at);
  if (!last && bar == std::string::npos) return false;
  field = text.substr(at, bar == std::string::npos ? std::string::npos : bar - at);
  at = bar == std::string::npos ? std::string::npos : bar + 1;
  return true;
}

}  // namespace

std::string Signature::str() const {
  if (kind == kHarnessError) return kind + "|" + what;
  if (kind == kLostDetection) return kind + "|" + place + "|" + what;
  return kind + "|" + place + "|" + stage + "|" + what;
}

std::optional<Signature> Signature::parse(const std::string& text) {
  Signature s;
  size_t at = 0;
  if (!take_field(text, at, false, s.kind) || s.kind.empty()) return std::nullopt;
  bool ok = true;
  if (s.kind == kLostDetection) {
    ok = take_field(text, at, false, s.place);
  } else if (s.kind != kHarnessError) {
    ok = take_field(text, at, false, s.place) && take_field(text, at, false, s.stage);
  }
  if (!ok || !take_field(text, at, true, s.what)) return std::nullopt;
  return s;
}

bool Signature::is_outlier() const { return kind == verdict_kind_name(VerdictKind::Outlier); }
bool Signature::is_timeout() const { return kind == verdict_kind_name(VerdictKind::Timeout); }

Signature harness_error_signature(const std::string& message) {
  return {kHarnessError, "", "", normalize_message(message)};
}

Signature lost_detection_signature(const std::string& file, const Signature& expected) {
  return {kLostDetection, file, "", expected.str()};
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

}  // namespace difftest::oracle
