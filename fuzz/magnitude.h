// Conservative magnitude bounds for generated values, so the generator keeps every value
// finite by construction: before emitting an op it knows how large the result can get and
// squashes an operand (tanh for floats, clip for integers) when the result could leave the
// range its dtype represents, and it guards the operands of log, sqrt, rsqrt, pow and div.
// The bounds are deliberately loose (a K-term sum is bounded by K times the largest term);
// they only have to be safe, not tight.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"

namespace difftest::fuzz {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

struct Magnitude {
  double abs = kInf;     // every element has |x| <= abs
  double min_abs = 0;    // every element has |x| >= min_abs (a safe divisor when > 0)
  bool nonneg = false;   // every element is >= 0 (with min_abs > 0: a safe operand of log)
};

// The largest magnitude the generator lets a value of `dt` reach: far inside the dtype's
// finite range, so that a correct implementation's rounding cannot overflow either.
double safe_limit(DType dt);

// Bounds on the results of `op` from bounds on its operands. `terms` bounds how many terms
// any result element sums or multiplies (K of matmul, the reduced extent of reductions and
// norms, the taps of a conv); for arange it bounds |end|.
// The rule is the op's entry in a table registered per family (compiler/ops/op_table.h).
Magnitude result_magnitude(const OpDef& op, const Attrs& attrs, const std::vector<Magnitude>& operands, double terms,
                           DType result_dtype);
bool has_magnitude_rule(const std::string& op);

}  // namespace difftest::fuzz
