// Generator options that draw small programs of one op only (a few of its calls, no
// templates), for tests that must reach every op's exporter or kernel.
#pragma once

#include <string>

#include "fuzz/generator.h"

namespace difftest::testing {

inline GeneratorOptions only_op(const std::string& op) {
  GeneratorOptions g;
  for (const auto& [name, w] : default_op_weights()) g.weights[name] = 0;
  g.weights[op] = 1;
  g.template_percent = 0;
  g.min_ops = 2;
  g.max_ops = 4;
  return g;
}

}  // namespace difftest::testing
