#include "oracle/io/json_file.h"

#include <fmt/format.h>

#include <fstream>
#include <limits>

#include "compiler/support/diagnostics.h"

namespace difftest::oracle {

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(ErrorKind::Io, fmt::format("cannot read '{}'", path));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is the 1-based offset of the character where parsing stopped.
    const size_t at = std::min(e.byte > 0 ? e.byte - 1 : 0, text.size());
    int line = 1, col = 1;
    for (size_t i = 0; i < at; ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    std::string what = e.what();
    if (const size_t cut = what.find(": "); cut != std::string::npos) what = what.substr(cut + 2);
    throw UserError(ErrorKind::Syntax, fmt::format("not valid JSON: {}", what), SourceLoc{path, line, col});
  }
}

double json_number(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end()) return 0;
  if (it->is_null()) return std::numeric_limits<double>::quiet_NaN();
  return it->get<double>();
}

}  // namespace difftest::oracle
