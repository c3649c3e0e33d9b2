// SimplifyExpr: algebraic identities on op bindings, as a table of named rules (one entry per
// identity, so adding one is one entry in simplify_expr.cc). A rule either replaces a binding
// by an existing value or rewrites it into a simpler call with the same result value. Rules
// see operands already rewritten, so chains simplify in one sweep; bindings that become dead
// stay for DeadCodeElimination.
//
// Only identities that hold bit for bit on every input are rules:
//   x*1, 1*x, x/1                      any "1" that is a splat constant (literal with equal
//                                      elements, ones, full) of x's dtype that does not
//                                      broadcast x to a larger type;
//   x+0, 0+x, x-0                      the same for "0", but for float dtypes only the zero
//                                      that is exact on -0.0: x + (-0.0) and x - (+0.0)
//                                      (-0.0 + +0.0 is +0.0, and 1/x tells them apart);
//   neg(neg(x))                        → x;
//   permute_dims of permute_dims       → one permute_dims with the composed axes, or x when
//                                      the composition (or a single permute) is the identity;
//   reshape of reshape                 → one reshape; reshape to x's own shape → x;
//   cast to x's dtype                  → x; cast(cast(x, W), dtype(x)) → x when every value of
//                                      x converts to W exactly (f16→f32→f16, i32→i64→i32).
// Deliberately absent: x*0 → 0 (NaN, Inf, -0), x-x → 0 (NaN, Inf), float reassociation, and
// cast chains that round (f32→f16→f32).
#pragma once

#include <string>
#include <vector>

#include "compiler/context/compile_context.h"
#include "compiler/ir/ir.h"

namespace difftest::passes {

Program simplify_expr(const Program& p, const CompileContext& compile);  // p itself when no rule applies

struct SimplifyRuleInfo {
  std::string name;  // kebab-case, e.g. "mul-one-right"
  std::string why;   // the identity and why it is exact
};
std::vector<SimplifyRuleInfo> simplify_expr_rules();

}  // namespace difftest::passes
