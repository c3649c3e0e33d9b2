// Reading a JSON file the user gave (a baseline, a saved verdict, a campaign's settings): a
// malformed one is a UserError naming file:line:col, never an exception from the JSON library.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace difftest::oracle {

// UserError(Io) when unreadable, UserError(Syntax) at the line and column where parsing stopped.
nlohmann::json read_json_file(const std::string& path);

// The number `j[key]`: 0 when absent, NaN for null (the JSON library writes NaN and infinities
// as null, so a record read back writes the same null again). nlohmann::json::type_error when
// it is neither a number nor null.
double json_number(const nlohmann::json& j, const char* key);

}  // namespace difftest::oracle
