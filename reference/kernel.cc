#include "reference/kernel.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "compiler/support/diagnostics.h"

namespace difftest::reference {

DType KernelContext::acc(DType operand) const {
  const AttrValue& v = attrs().get("acc");
  if (std::holds_alternative<DType>(v)) return std::get<DType>(v);
  return operand;
}

Tensor KernelContext::floats(size_t result, std::vector<int64_t> shape, const std::vector<double>& v) const {
  const DType t = declared(result);
  // quantize's f16/f32 arithmetic defines its format: its scales are never perturbed.
  if (perturbation == nullptr || mode != Mode::Native || binding.op().name == "quantize") {
    return Tensor::from_doubles(storage(t), std::move(shape), v);
  }
  // Ops whose results are libm-grade functions of their operands: no implementation rounds them
  // correctly, so each member gives them an error within their budget.
  static const std::set<std::string> kFunctions = {"exp", "log", "tanh", "sigmoid", "silu",  "gelu",
                                                   "erf", "sin", "cos",  "pow",     "atan2", "rsqrt"};
  const bool function = kFunctions.count(binding.op().name) > 0;
  // gelu's 0.5 x (1 + tanh(...)) cancels for negative x: its error scales with |x|, not |gelu x|.
  // sigmoid's legitimate form 0.5 + 0.5 tanh(x / 2) cancels too (an absolute error), and silu's
  // x times it (tolerance/error_model.h, kSigmoidCancels).
  const std::string& op = binding.op().name;
  const double scale = op == "gelu" ? 1.0 : op == "silu" ? 0.5 : 0.0;
  const bool sigmoid = op == "sigmoid";
  std::vector<double> rounded(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const double magnitude = sigmoid ? 0.5
                             : scale > 0    ? scale * std::fabs(arg(0).get(static_cast<int64_t>(i)))
                                            : 0.0;
    rounded[i] = perturbation->round(function ? perturbation->function_error(v[i], t, magnitude) : v[i], t);
  }
  return Tensor::from_doubles(storage(t), std::move(shape), rounded);
}

int64_t KernelContext::eval(const sym::Expr& e) const { return sym::eval(e, env); }

const KernelTable& kernels() {
  static const KernelTable table = DIFFTEST_BUILD_OP_TABLE(KernelTable, "reference kernel", kernels);
  return table;
}

double rounded_sum(const double* x, int64_t n, int64_t stride, const Rounder& r) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s = r(s + x[i * stride]);
  return s;
}

}  // namespace difftest::reference
