// Bounds of a program whose second output is an intermediate value given a relative error
// directly (rebound_program), so a rule's handling of inherited errors is tested on its own.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "reference/inputs.h"
#include "tests/support/ir_util.h"
#include "tolerance/bounds.h"

namespace difftest::testing {

struct InheritedErrorBounds {
  std::map<std::string, Tensor> inputs;
  std::vector<double> x, x_err;  // the intermediate value (output 1) and the errors it was given
  std::vector<double> y, y_err;  // output 0 and its bounds
  size_t y_uncertain = 0;
};

// Every element of output 1 carries an error of `relative` times its magnitude.
inline InheritedErrorBounds bounds_with_relative_errors(const std::string& text, const std::string& file,
                                                        uint64_t input_seed, tolerance::BoundMode mode,
                                                        double relative) {
  const Program p = verified_program(text, file);
  InheritedErrorBounds b;
  b.inputs = reference::generate_inputs(p, {}, input_seed);
  tolerance::Options opt;
  opt.mode = mode;
  const tolerance::BoundedProgram sound = tolerance::bound_program(p, {}, b.inputs, opt);
  const ValueNode* x = p.outputs()[1].get();
  b.x = sound.values.at(x).ref;
  for (double v : b.x) b.x_err.push_back(relative * std::fabs(v));
  const tolerance::BoundedProgram with_errors = tolerance::rebound_program(p, {}, sound, opt, {{x, b.x_err}});
  b.y = with_errors.outputs[0]->ref;
  b.y_err = with_errors.outputs[0]->err;
  b.y_uncertain = with_errors.outputs[0]->uncertain_count();
  return b;
}

}  // namespace difftest::testing
