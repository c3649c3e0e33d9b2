#include "compiler/loop/parser.h"

#include "compiler/ir/diagnostics.h"

namespace difftest::loop {

PrimFunc parse_func(std::string_view, const std::string& file_name) {
  throw UserError(ErrorKind::Syntax, "loop IR parser not written yet: " + file_name);
}

Module parse_module(std::string_view, const std::string& file_name) {
  throw UserError(ErrorKind::Syntax, "loop IR parser not written yet: " + file_name);
}

}  // namespace difftest::loop
