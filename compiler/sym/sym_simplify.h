// The canonicalizing simplifier.
//
// simplify(e, ranges) rewrites bottom-up:
//   1. constant folding (checked; an overflowing fold is left unfolded);
//   2. ring normalization of + - * (sym_poly.h) — the canonical order of terms;
//   3. the rewrite rules of sym_rules.def, data with one rule per line, tried in file order
//      until none applies; a rule's side conditions are proven with prove_basic under `ranges`;
//   4. folding to a constant when the interval bounds pin the value.
// Guarantees (checked by property tests): eval(simplify(e), env) == eval(e, env) for every env
// within `ranges` where eval(e) succeeds; simplify is idempotent; every rule alone preserves
// the value. A fuel counter bounds the work on any input.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/sym/sym.h"
#include "compiler/sym/sym_prove.h"

namespace difftest::sym {

Expr simplify(const Expr& e, const Ranges& ranges = {});

struct RuleCondition {
  Expr lhs;
  Cmp cmp;
  Expr rhs;
};

struct RewriteRule {
  std::string lhs_text, rhs_text, condition_text, why;
  Expr lhs, rhs;
  std::vector<RuleCondition> conditions;
};

// Pattern variables: names starting with 'c' followed by a digit match integer constants
// (c0, c1, ...); any other name (x, y, z, w) matches any expression; a name used twice must
// match equal subexpressions. Sums and products match modulo order: each summand (factor) of
// the pattern takes one term of the target and the last bare wildcard summand takes the rest
// of the sum (0 when nothing is left).
const std::vector<RewriteRule>& rewrite_rules();

// Applies one rule at the root of `e` (children are not visited). For tests.
std::optional<Expr> apply_rule(const RewriteRule& rule, const Expr& e, const Ranges& ranges);

}  // namespace difftest::sym
