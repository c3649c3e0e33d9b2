// Evaluating small IR programs in tests.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/ir/verifier.h"
#include "reference/inputs.h"
#include "reference/reference.h"
#include "tests/support/ir_util.h"

namespace difftest::testing {

struct Result {
  DType dtype;
  std::vector<int64_t> shape;
  std::vector<double> values;
};

inline Result to_result(const Tensor& t) { return Result{t.dtype(), t.shape(), t.to_doubles()}; }

// Evaluates the program (dims header + bindings; the last binding's results are returned) and
// gives result `output`. Params take `inputs` (by name) or generated values.
inline Result eval_ir(const std::string& dims, const std::string& body, reference::Mode mode = reference::Mode::F64,
                      const sym::Env& env = {}, std::map<std::string, Tensor> inputs = {}, size_t output = 0) {
  const Program p = program_of(dims, body);
  verify(p);
  const sym::Env full = reference::resolve_binding(p, env, nullptr);
  std::map<std::string, Tensor> generated = reference::generate_inputs(p, full, 1);
  for (auto& [name, t] : inputs) generated[name] = std::move(t);
  return to_result(reference::evaluate(p, full, generated, mode).outputs.at(output));
}

inline Tensor tensor(DType t, std::vector<int64_t> shape, const std::vector<double>& v) {
  return Tensor::from_doubles(t, std::move(shape), v);
}

}  // namespace difftest::testing
