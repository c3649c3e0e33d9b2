#include "fuzz/magnitude.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "compiler/ops/op.h"

namespace difftest::fuzz {

namespace {

Magnitude bounded(double abs) { return Magnitude{abs, 0, false}; }

double max_abs(const std::vector<Magnitude>& ms) {
  double m = 0;
  for (const auto& x : ms) m = std::max(m, x.abs);
  return m;
}

double pow_bound(double base, double exponent) {
  if (base <= 1) return 1;
  const double l = exponent * std::log(base);
  return l > 700 ? kInf : std::exp(l);
}

}  // namespace

double safe_limit(DType dt) {
  switch (dt) {
    case DType::f16: return 2048;  // f16 tops out at 65504
    case DType::bf16:
    case DType::f32: return 1e30;
    case DType::f64: return 1e200;
    default: return kInf;  // integers wrap or saturate by definition; bool is 0/1
  }
}

Magnitude result_magnitude(const OpDef& op, const Attrs& a, const std::vector<Magnitude>& in, double terms,
                           DType result_dtype) {
  const std::string& n = op.name;
  const double x = in.empty() ? 0 : in[0].abs;
  if (is_bool(result_dtype)) return Magnitude{1, 0, true};
  if (n == "exp") return Magnitude{x > 700 ? kInf : std::exp(x), 0, true};
  if (n == "log") {
    if (!in[0].nonneg || in[0].min_abs <= 0) return bounded(kInf);
    return bounded(std::max(std::abs(std::log(in[0].min_abs)), std::log(std::max(x, 1.0))));
  }
  if (n == "sqrt") return Magnitude{std::sqrt(x), in[0].nonneg ? std::sqrt(in[0].min_abs) : 0, true};
  if (n == "rsqrt") {
    if (!in[0].nonneg || in[0].min_abs <= 0) return bounded(kInf);
    return Magnitude{1 / std::sqrt(in[0].min_abs), 0, true};
  }
  if (n == "tanh" || n == "erf" || n == "sin" || n == "cos") return bounded(1);
  if (n == "sigmoid") return Magnitude{1, 0, true};
  if (n == "atan2") return bounded(4);
  if (n == "silu" || n == "gelu" || n == "floor" || n == "round" || n == "leaky_relu" || n == "neg") return bounded(x + 1);
  if (n == "abs") return Magnitude{x, in[0].min_abs, true};
  if (n == "relu") return Magnitude{x, 0, true};
  if (n == "clip") {
    const double lo = a.get_float("min"), hi = a.get_float("max");
    Magnitude m = bounded(std::max(std::abs(lo), std::abs(hi)));
    m.nonneg = lo >= 0;
    m.min_abs = lo > 0 ? lo : 0;
    return m;
  }
  if (n == "add") {
    Magnitude m = bounded(in[0].abs + in[1].abs);
    if (in[0].nonneg && in[1].nonneg) m = Magnitude{m.abs, in[0].min_abs + in[1].min_abs, true};
    return m;
  }
  if (n == "sub") return bounded(in[0].abs + in[1].abs);
  if (n == "mul") {
    return Magnitude{in[0].abs * in[1].abs, in[0].min_abs * in[1].min_abs, in[0].nonneg && in[1].nonneg};
  }
  if (n == "div") return bounded(in[1].min_abs > 0 ? in[0].abs / in[1].min_abs : kInf);
  if (n == "floor_divide") {
    if (is_float(result_dtype)) return bounded(in[1].min_abs > 0 ? in[0].abs / in[1].min_abs + 1 : kInf);
    return bounded(in[0].abs + 1);
  }
  if (n == "floor_mod") return bounded(in[1].abs);
  if (n == "pow") {
    if (!in[0].nonneg || in[0].min_abs <= 0) return bounded(kInf);
    return Magnitude{pow_bound(std::max(in[0].abs, 1 / in[0].min_abs), in[1].abs), 0, true};
  }
  if (n == "maximum" || n == "minimum" || n == "where") return bounded(max_abs(in));
  if (n == "cast") {
    if (!is_float(result_dtype)) return bounded(std::min(x, static_cast<double>(int_max(result_dtype))));
    return in[0];
  }
  if (n == "sum") return bounded(terms * x);
  if (n == "mean" || n == "max" || n == "min") return in[0];
  if (n == "prod") return bounded(pow_bound(x, terms));
  if (n == "argmax" || n == "argmin") return Magnitude{terms, 0, true};
  if (n == "matmul") return bounded(terms * in[0].abs * in[1].abs);
  if (n == "linear") return bounded(terms * in[0].abs * in[1].abs + (in.size() > 2 ? in[2].abs : 0));
  if (n == "softmax") return Magnitude{1, 0, true};
  if (n == "log_softmax") return bounded(2 * x + std::log(terms) + 1);
  if (n == "rms_norm") return bounded(std::sqrt(terms) * (in[1].abs + a.get_float("weight_offset")));
  if (n == "layer_norm" || n == "group_norm" || n == "instance_norm") {
    return bounded(std::sqrt(terms) * in[1].abs + in[2].abs);
  }
  if (n == "attention") return bounded(in[2].abs);
  if (n == "rope") return bounded(2 * x);
  if (n == "arange") return bounded(terms + 2);
  if (n == "full") return bounded(std::abs(a.get_float("value")));
  if (n == "zeros" || n == "ones") return Magnitude{1, 0, true};
  if (n == "quantize") return bounded(is_float(result_dtype) ? std::max(x, 1.0) : kInf);
  if (n == "dequantize") return bounded(16 * in[1].abs);
  if (n == "conv1d" || n == "conv2d" || n == "conv_transpose1d") {
    return bounded(terms * in[0].abs * in[1].abs + (in.size() > 2 ? in[2].abs : 0));
  }
  // Data movement (reshape, concat, take, slice_scatter, upsample, ...): values are copied.
  return bounded(max_abs(in));
}

}  // namespace difftest::fuzz
