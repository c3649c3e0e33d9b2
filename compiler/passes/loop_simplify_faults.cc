#include "compiler/passes/loop_simplify_faults.h"

namespace difftest::passes {

using loop::BinOp;
using loop::Expr;

// floor-div-as-trunc-div: a floor division or modulo of values (not index arithmetic,
// which goes through the symbolic simplifier) rewritten with C's truncating semantics, as a
// simplifier that takes operands it cannot bound to be non-negative, where the two agree. The
// loop IR has no truncating division, so it is spelt as the floor result corrected where the
// remainder is non-zero and the operands' signs differ (-7 // 2 = -3, -7 % 2 = -1).
Expr truncating_division(const Expr& e) {
  const DType t = e.dtype();
  if (!is_float(t) && (!is_int(t) || is_unsigned_int(t))) return e;
  const Expr& a = e.node().operands[0];
  const Expr& b = e.node().operands[1];
  const Expr zero = is_float(t) ? Expr::float_imm(0, t) : Expr::int_imm(0, t);
  const Expr one = is_float(t) ? Expr::float_imm(1, t) : Expr::int_imm(1, t);
  const Expr r = loop::floormod(a, b);
  const Expr inexact = r != zero && ((a < zero && b > zero) || (a > zero && b < zero));
  if (e.node().bin == BinOp::FloorDiv) return loop::select(inexact, loop::floordiv(a, b) + one, loop::floordiv(a, b));
  return loop::select(inexact, r - b, r);
}

}  // namespace difftest::passes
