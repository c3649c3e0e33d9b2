#include "compiler/ops/slice.h"

#include "compiler/ops/infer_util.h"

namespace difftest::ops {

namespace {

// The index after Python's normalization: negative constants count from the end, then the
// value is clamped to [0, d] (step > 0) or [-1, d - 1] (step < 0).
sym::Expr clamp_index(const InferContext& ctx, const sym::Expr& d, const sym::Expr& i, int64_t step,
                      const char* what) {
  const sym::Expr hi = step > 0 ? d : d - 1;
  const sym::Expr lo = step > 0 ? sym::Expr(0) : sym::Expr(-1);
  if (i.is_const() && i.value() < 0) return sym::max(d + i, lo);
  if (!i.is_const() && !provably_ge(ctx, i, 0)) {
    fail(ctx, ErrorKind::Attribute, "{} {} is not provably >= 0 (only constants may count from the end)", what,
         sym::to_string(i));
  }
  return sym::min(i, hi);
}

}  // namespace

sym::Expr slice_length(const InferContext& ctx, const sym::Expr& dim, const sym::Expr& begin, const sym::Expr& end,
                       int64_t step) {
  if (step == 0 || step > kMaxDimVarValue || step < -kMaxDimVarValue) {
    fail(ctx, ErrorKind::Attribute, "stride {} must be nonzero and at most 2^31 - 1 in magnitude", step);
  }
  for (const auto* e : {&begin, &end}) {
    if (e->is_const() && (e->value() > int64_t{1} << 40 || e->value() < -(int64_t{1} << 40))) {
      fail(ctx, ErrorKind::Attribute, "slice bound {} is out of the supported range +-2^40", e->value());
    }
  }
  const sym::Expr b = clamp_index(ctx, dim, begin, step, "begin");
  const sym::Expr e = clamp_index(ctx, dim, end, step, "end");
  const sym::Expr span = step > 0 ? e - b : b - e;
  const int64_t s = step > 0 ? step : -step;
  return simp(ctx, sym::max(sym::floordiv(span + (s - 1), s), 0));
}

}  // namespace difftest::ops
