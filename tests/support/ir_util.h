// Helpers for tests written in the IR text form.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/verifier.h"
#include "compiler/ops/op.h"

namespace difftest::testing {

// A whole program text, parsed and verified.
inline Program verified_program(const std::string& text, const std::string& file) {
  Program p = parse_program(text, file);
  verify(p);
  return p;
}

// Wraps `body` (bindings, one per line, without `return`) into a program with the given dim
// header and returns the program; the last binding's results are returned.
inline Program program_of(const std::string& dims, const std::string& body) {
  std::string text = "program @t(" + dims + ") {\n" + body + "\n";
  // Return the results of the last binding.
  const auto last = body.rfind('\n');
  const std::string line = body.substr(last == std::string::npos ? 0 : last + 1);
  std::string results;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '%' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == ',')) {
      size_t j = i + 1;
      while (j < line.size() && (std::isalnum(static_cast<unsigned char>(line[j])) || line[j] == '_')) ++j;
      const std::string name = line.substr(i, j - i);
      if (line.find(':', j) == j) results += (results.empty() ? "" : ", ") + name;
    }
    if (line.compare(i, 3, " = ") == 0) break;
  }
  text += "  return " + results + "\n}\n";
  return parse_program(text, "test.ir");
}

// The types the op of the last binding infers, as text.
inline std::vector<std::string> inferred(const std::string& dims, const std::string& body) {
  const Program p = program_of(dims, body);
  const Binding& b = p.bindings().back();
  std::vector<TensorType> in;
  for (const auto& a : b.args()) in.push_back(a.type());
  std::vector<std::string> out;
  for (const auto& t : infer_types(b.op(), in, b.attrs(), p.ranges())) out.push_back(t.str());
  return out;
}

// The error the op of the last binding raises during inference (fails the test if none).
inline UserError inference_error(const std::string& dims, const std::string& body) {
  try {
    inferred(dims, body);
  } catch (const UserError& e) {
    return e;
  }
  ADD_FAILURE() << "inference accepted:\n" << body;
  return UserError(ErrorKind::Syntax, "no error");
}

}  // namespace difftest::testing
