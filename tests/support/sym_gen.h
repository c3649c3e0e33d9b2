// Random symbolic expressions for property tests.
#pragma once

#include <string>
#include <vector>

#include "compiler/sym/sym.h"
#include "compiler/support/rng.h"

namespace difftest::testing {

// Variables a, b, c with ranges that include negatives, so floor semantics are exercised.
inline sym::Ranges test_ranges() {
  return {{"a", sym::Range{-5, 10}}, {"b", sym::Range{1, 20}}, {"c", sym::Range{-40, -1}}};
}

inline sym::Expr random_expr(ChoiceSource& c, int depth) {
  static const std::vector<std::string> kVars = {"a", "b", "c"};
  if (depth == 0 || c.chance(1, 3)) {
    if (c.chance(1, 2)) return sym::Expr::var(c.pick(kVars));
    return sym::Expr(c.range(-9, 9));
  }
  static const std::vector<sym::Op> kOps = {sym::Op::Add, sym::Op::Sub, sym::Op::Mul, sym::Op::FloorDiv,
                                            sym::Op::FloorMod, sym::Op::Min, sym::Op::Max};
  const sym::Op op = c.pick(kOps);
  sym::Expr a = random_expr(c, depth - 1);
  // Divisors are mostly small constants, as in real index arithmetic.
  sym::Expr b = (op == sym::Op::FloorDiv || op == sym::Op::FloorMod) && c.chance(3, 4)
                    ? sym::Expr(c.pick(std::vector<int64_t>{2, 3, 4, 8, -2, -3}))
                    : random_expr(c, depth - 1);
  return sym::Expr::make(op, a, b);
}

inline sym::Env random_env(ChoiceSource& c, const sym::Ranges& ranges) {
  sym::Env env;
  for (const auto& [name, r] : ranges) env[name] = c.range(r.lo, r.hi);
  return env;
}

}  // namespace difftest::testing
