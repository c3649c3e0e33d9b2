// Parser of the loop IR text form (printer.h), for tests written as text.
#pragma once

#include <string>
#include <string_view>

#include "compiler/loop/ir.h"

namespace difftest::loop {

// One `func @name(...) dims(...) { ... }`. Errors are UserError with file:line:col.
PrimFunc parse_func(std::string_view text, const std::string& file_name = "");
// Functions followed by `call @f(a, b) dims(n)` lines.
Module parse_module(std::string_view text, const std::string& file_name = "");

}  // namespace difftest::loop
