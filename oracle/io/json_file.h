// Reading a JSON file the user gave (a baseline, a saved verdict, a campaign's settings): a
// malformed one is a UserError naming file:line:col, never an exception from the JSON library.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace difftest::oracle {

// UserError(Io) when unreadable, UserError(Syntax) at the line and column where parsing stopped.
nlohmann::json read_json_file(const std::string& path);

}  // namespace difftest::oracle
