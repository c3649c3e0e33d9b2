// Ops that create tensors from attributes alone; their shapes may be symbolic, which is what
// makes them interesting to FoldConstant (it must never fold them with a guessed dim).
#include <cmath>

#include "compiler/ops/infer_util.h"

namespace difftest::ops {

namespace {

void check_value_fits(const InferContext& ctx, double v, DType t) {
  if (is_float(t)) return;
  if (v != std::floor(v) || v < static_cast<double>(int_min(t)) || v > static_cast<double>(int_max(t))) {
    fail(ctx, ErrorKind::Attribute, "value {} is not representable in {}", v, dtype_name(t));
  }
}

void check_shape_attr(const InferContext& ctx, const std::vector<sym::Expr>& shape) {
  if (static_cast<int>(shape.size()) > kMaxRank) {
    fail(ctx, ErrorKind::Limit, "rank {} exceeds the maximum of {}", shape.size(), kMaxRank);
  }
}

void filled(OpRegistry& r, const std::string& name, std::optional<double> fixed, const std::string& summary) {
  OpDef d;
  d.name = name;
  d.family = "creation";
  d.summary = summary;
  d.semantics = fixed ? fmt::format("Every element is {} in `dtype`; the shape may be symbolic.", *fixed)
                      : std::string("Every element is `value` converted to `dtype` (round to nearest even; for "
                                    "integer dtypes it must be an exact integer in range); the shape may be "
                                    "symbolic.");
  d.inputs = {};
  d.min_inputs = d.max_inputs = 0;
  d.attrs = {attr_syms_required("shape", "result shape")};
  if (!fixed) d.attrs.push_back(attr_float("value", 0.0, "fill value"));
  d.attrs.push_back(attr_dtype("dtype", DType::f32, "result dtype"));
  d.pattern = OpPattern::Injective;
  d.infer = [fixed](const InferContext& ctx) {
    const auto& shape = ctx.attrs.get_syms("shape");
    check_shape_attr(ctx, shape);
    const DType t = ctx.attrs.get_dtype("dtype");
    check_value_fits(ctx, fixed ? *fixed : ctx.attrs.get_float("value"), t);
    return std::vector<TensorType>{TensorType{t, shape}};
  };
  r.add(std::move(d));
}

}  // namespace

void register_creation_ops(OpRegistry& r) {
  {
    OpDef d;
    d.name = "arange";
    d.family = "creation";
    d.summary = "evenly spaced values";
    d.semantics =
        "y[i] = start + i * step for i in [0, len), len = ceil((end - start) / step) (step > 0) or "
        "ceil((start - end) / -step) (step < 0); len must be provably >= 1. start and end may be symbolic "
        "(arange(0, n) has shape [n]). Integer dtypes hold the exact value; float dtypes round it once.";
    d.inputs = {};
    d.min_inputs = d.max_inputs = 0;
    d.attrs = {attr_sym("start", sym::Expr(0), "first value"), attr_sym_required("end", "bound (exclusive)"),
               attr_int("step", 1, "increment, nonzero"), attr_dtype("dtype", DType::i64, "result dtype")};
    d.pattern = OpPattern::Injective;
    d.infer = [](const InferContext& ctx) {
      const int64_t step = ctx.attrs.get_int("step");
      if (step == 0 || step > kMaxDimVarValue || step < -kMaxDimVarValue) {
        fail(ctx, ErrorKind::Attribute, "step must be nonzero and at most 2^31 - 1 in magnitude, got {}", step);
      }
      const DType t = ctx.attrs.get_dtype("dtype");
      if (is_bool(t) || is_unsigned_int(t)) fail(ctx, ErrorKind::Attribute, "dtype must be float or signed");
      const sym::Expr& start = ctx.attrs.get_sym("start");
      const sym::Expr& end = ctx.attrs.get_sym("end");
      const sym::Expr span = step > 0 ? end - start : start - end;
      const int64_t s = step > 0 ? step : -step;
      sym::Expr len = simp(ctx, sym::floordiv(span + (s - 1), s));
      return std::vector<TensorType>{TensorType{t, {len}}};
    };
    r.add(std::move(d));
  }
  filled(r, "full", std::nullopt, "a tensor filled with one value");
  filled(r, "zeros", 0.0, "a tensor of zeros");
  filled(r, "ones", 1.0, "a tensor of ones");
}

}  // namespace difftest::ops
