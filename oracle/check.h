// Checking one program: every requested pipeline under every binding, each compile-and-run
// in an isolated child, compared with the bounded reference computed in the parent.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "oracle/isolate.h"
#include "oracle/verdict.h"
#include "tolerance/error_model.h"

namespace difftest::oracle {

struct CheckOptions {
  std::vector<std::string> pipelines = {"O0"};
  std::vector<sym::Env> bindings;  // empty: reference::standard_bindings
  uint64_t input_seed = 0;
  tolerance::Options tolerance = [] {
    tolerance::Options o;
    o.mode = tolerance::BoundMode::Probabilistic;
    return o;
  }();
  IsolationLimits limits;  // per pipeline: one compile and the runs of every binding
  bool isolate = true;     // false: in process (for debugging; a crash takes the harness down)
};

Verdict check_program(const Program& p, const CheckOptions& options);

}  // namespace difftest::oracle
