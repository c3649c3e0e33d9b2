// Symbolic length of a Python-style slice, shared by strided_slice and slice_scatter.
#pragma once

#include "compiler/ops/op.h"

namespace difftest::ops {

// Length of range(dim)[begin:end:step] (see strided_slice's semantics), simplified. A
// non-constant begin or end must be provably >= 0.
sym::Expr slice_length(const InferContext& ctx, const sym::Expr& dim, const sym::Expr& begin, const sym::Expr& end,
                       int64_t step);

}  // namespace difftest::ops
