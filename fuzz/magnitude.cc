#include "fuzz/magnitude.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "compiler/ops/op.h"
#include "compiler/ops/op_table.h"

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

namespace {

// What a magnitude rule sees: the call's attributes, its operands' bounds, `terms` (see
// result_magnitude) and the result's dtype; x is the first operand's bound (0 without one).
struct MagnitudeCase {
  const Attrs& a;
  const std::vector<Magnitude>& in;
  double terms;
  DType result;
  double x;
};
using MagnitudeRule = Magnitude (*)(const MagnitudeCase&);
using MagnitudeTable = OpTable<MagnitudeRule>;

Magnitude copied(const MagnitudeCase& c) { return bounded(max_abs(c.in)); }  // values moved, or bool
Magnitude unit(const MagnitudeCase&) { return bounded(1); }
Magnitude plus_one(const MagnitudeCase& c) { return bounded(c.x + 1); }
Magnitude first_operand(const MagnitudeCase& c) { return c.in[0]; }
Magnitude probability(const MagnitudeCase&) { return Magnitude{1, 0, true}; }
Magnitude dot_product(const MagnitudeCase& c) {
  return bounded(c.terms * c.in[0].abs * c.in[1].abs + (c.in.size() > 2 ? c.in[2].abs : 0));
}

void add_all(MagnitudeTable& t, std::initializer_list<const char*> ops, MagnitudeRule rule) {
  for (const char* op : ops) t.add(op, rule);
}

void register_elementwise_magnitudes(MagnitudeTable& t) {
  t.add("exp", [](const MagnitudeCase& c) { return Magnitude{c.x > 700 ? kInf : std::exp(c.x), 0, true}; });
  t.add("log", [](const MagnitudeCase& c) {
    if (!c.in[0].nonneg || c.in[0].min_abs <= 0) return bounded(kInf);
    return bounded(std::max(std::abs(std::log(c.in[0].min_abs)), std::log(std::max(c.x, 1.0))));
  });
  t.add("sqrt", [](const MagnitudeCase& c) {
    return Magnitude{std::sqrt(c.x), c.in[0].nonneg ? std::sqrt(c.in[0].min_abs) : 0, true};
  });
  t.add("rsqrt", [](const MagnitudeCase& c) {
    if (!c.in[0].nonneg || c.in[0].min_abs <= 0) return bounded(kInf);
    return Magnitude{1 / std::sqrt(c.in[0].min_abs), 0, true};
  });
  add_all(t, {"tanh", "erf", "sin", "cos"}, unit);
  t.add("sigmoid", probability);
  t.add("atan2", [](const MagnitudeCase&) { return bounded(4); });
  add_all(t, {"silu", "gelu", "floor", "round", "leaky_relu", "neg"}, plus_one);
  t.add("abs", [](const MagnitudeCase& c) { return Magnitude{c.x, c.in[0].min_abs, true}; });
  t.add("relu", [](const MagnitudeCase& c) { return Magnitude{c.x, 0, true}; });
  t.add("clip", [](const MagnitudeCase& c) {
    const double lo = c.a.get_float("min"), hi = c.a.get_float("max");
    Magnitude m = bounded(std::max(std::abs(lo), std::abs(hi)));
    m.nonneg = lo >= 0;
    m.min_abs = lo > 0 ? lo : 0;
    return m;
  });
  t.add("add", [](const MagnitudeCase& c) {
    Magnitude m = bounded(c.in[0].abs + c.in[1].abs);
    if (c.in[0].nonneg && c.in[1].nonneg) m = Magnitude{m.abs, c.in[0].min_abs + c.in[1].min_abs, true};
    return m;
  });
  t.add("sub", [](const MagnitudeCase& c) { return bounded(c.in[0].abs + c.in[1].abs); });
  t.add("mul", [](const MagnitudeCase& c) {
    return Magnitude{c.in[0].abs * c.in[1].abs, c.in[0].min_abs * c.in[1].min_abs, c.in[0].nonneg && c.in[1].nonneg};
  });
  t.add("div",
        [](const MagnitudeCase& c) { return bounded(c.in[1].min_abs > 0 ? c.in[0].abs / c.in[1].min_abs : kInf); });
  t.add("floor_divide", [](const MagnitudeCase& c) {
    if (is_float(c.result)) return bounded(c.in[1].min_abs > 0 ? c.in[0].abs / c.in[1].min_abs + 1 : kInf);
    return bounded(c.in[0].abs + 1);
  });
  t.add("floor_mod", [](const MagnitudeCase& c) { return bounded(c.in[1].abs); });
  t.add("pow", [](const MagnitudeCase& c) {
    if (!c.in[0].nonneg || c.in[0].min_abs <= 0) return bounded(kInf);
    return Magnitude{pow_bound(std::max(c.in[0].abs, 1 / c.in[0].min_abs), c.in[1].abs), 0, true};
  });
  add_all(t, {"maximum", "minimum", "where"}, copied);
  t.add("cast", [](const MagnitudeCase& c) {
    if (!is_float(c.result)) return bounded(std::min(c.x, static_cast<double>(int_max(c.result))));
    return c.in[0];
  });
  add_all(t,
          {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
           "logical_xor", "logical_not"},
          copied);
}

void register_reduction_magnitudes(MagnitudeTable& t) {
  t.add("sum", [](const MagnitudeCase& c) { return bounded(c.terms * c.x); });
  add_all(t, {"mean", "max", "min"}, first_operand);
  t.add("prod", [](const MagnitudeCase& c) { return bounded(pow_bound(c.x, c.terms)); });
  add_all(t, {"argmax", "argmin"}, [](const MagnitudeCase& c) { return Magnitude{c.terms, 0, true}; });
}

void register_linalg_magnitudes(MagnitudeTable& t) {
  t.add("matmul", [](const MagnitudeCase& c) { return bounded(c.terms * c.in[0].abs * c.in[1].abs); });
  t.add("linear", dot_product);
}

void register_normalization_magnitudes(MagnitudeTable& t) {
  t.add("softmax", probability);
  t.add("log_softmax", [](const MagnitudeCase& c) { return bounded(2 * c.x + std::log(c.terms) + 1); });
  t.add("rms_norm", [](const MagnitudeCase& c) {
    return bounded(std::sqrt(c.terms) * (c.in[1].abs + c.a.get_float("weight_offset")));
  });
  add_all(t, {"layer_norm", "group_norm", "instance_norm"},
          [](const MagnitudeCase& c) { return bounded(std::sqrt(c.terms) * c.in[1].abs + c.in[2].abs); });
}

void register_shape_magnitudes(MagnitudeTable& t) {
  add_all(t,
          {"reshape", "permute_dims", "broadcast_to", "concat", "split", "strided_slice", "squeeze", "expand_dims",
           "take", "slice_scatter", "repeat", "tril", "triu"},
          copied);
}

void register_creation_magnitudes(MagnitudeTable& t) {
  t.add("arange", [](const MagnitudeCase& c) { return bounded(c.terms + 2); });
  t.add("full", [](const MagnitudeCase& c) { return bounded(std::abs(c.a.get_float("value"))); });
  add_all(t, {"zeros", "ones"}, probability);
}

void register_attention_magnitudes(MagnitudeTable& t) {
  t.add("attention", [](const MagnitudeCase& c) { return bounded(c.in[2].abs); });
  t.add("rope", [](const MagnitudeCase& c) { return bounded(2 * c.x); });
  add_all(t, {"causal_mask", "sliding_window_mask"}, copied);
}

void register_quantization_magnitudes(MagnitudeTable& t) {
  t.add("quantize", [](const MagnitudeCase& c) { return bounded(is_float(c.result) ? std::max(c.x, 1.0) : kInf); });
  t.add("dequantize", [](const MagnitudeCase& c) { return bounded(16 * c.in[1].abs); });
}

void register_conv_magnitudes(MagnitudeTable& t) {
  add_all(t, {"conv1d", "conv2d", "conv_transpose1d"}, dot_product);
  t.add("upsample_nearest1d", copied);
}

const MagnitudeTable& magnitudes() {
  static const MagnitudeTable table = DIFFTEST_BUILD_OP_TABLE(MagnitudeTable, "generator magnitude", magnitudes);
  return table;
}

}  // namespace

bool has_magnitude_rule(const std::string& op) { return magnitudes().find(op) != nullptr; }

Magnitude result_magnitude(const OpDef& op, const Attrs& a, const std::vector<Magnitude>& in, double terms,
                           DType result_dtype) {
  if (is_bool(result_dtype)) return Magnitude{1, 0, true};
  const MagnitudeRule* rule = magnitudes().find(op.name);
  DT_CHECK(rule != nullptr, fmt::format("no magnitude rule for op '{}'", op.name));
  return (*rule)(MagnitudeCase{a, in, terms, result_dtype, in.empty() ? 0 : in[0].abs});
}

}  // namespace difftest::fuzz
