// Which values of a program are element for element equal in every correct implementation: the
// same SSA value, or values computed by the same exact op (no rounding: a copy, a shape op,
// neg, abs, clip, a comparison, a cast, integer arithmetic, a creation op) with the same
// attributes from operands that are equal in turn. The bounds use it for correlated operands:
// `x - x` is exactly 0 and `x < x` certainly false whatever x's error, where bounding the two
// operands as independent leaves the comparison uncertain and its output unchecked.
#pragma once

#include <unordered_map>

#include "compiler/ir/ir.h"

namespace difftest::tolerance {

class ValueIdentity {
 public:
  explicit ValueIdentity(const Program& p);
  // Whether `a` and `b` hold the same elements in every correct implementation (false for a
  // value this program does not define).
  bool same(const Value& a, const Value& b) const;

 private:
  std::unordered_map<const ValueNode*, int64_t> class_of_;
};

// Whether the call's results are a function of its operands' values alone, computed without
// rounding (so two such calls on equal operands agree bit for bit in any implementation).
bool computes_exactly(const Binding& call);

}  // namespace difftest::tolerance
