// LoopSimplify: simplifies i64 index arithmetic through the symbolic simplifier
// (compiler/sym/sym_simplify.h) under the ranges of the enclosing loop variables and of the dims,
// folds integer comparisons it can prove and constant boolean logic and selects, replaces a
// loop of extent 1 by its body with the variable substituted by the loop's min, drops loops of
// extent <= 0 and ifs whose condition is provable, and flattens nested sequences.
//
// Assumptions it relies on: dims are sizes (0 <= dim <= kMaxDimVarValue) and index arithmetic
// does not overflow (the symbolic arithmetic's domain). Only `//` and `%` by a non-zero constant
// are converted, so loop IR's "x // 0 == 0" never meets the symbolic "division by zero is an
// error"; floor semantics are the same on both sides. Float arithmetic is never folded.
#pragma once

#include <optional>
#include <string>

#include "compiler/sym/sym.h"
#include "compiler/context/compile_context.h"
#include "compiler/loop/ir.h"

namespace difftest::passes {

loop::Module loop_simplify(const loop::Module& m, const CompileContext& compile);  // functions keep their bodies (same_as) when unchanged

// Shared with the other loop passes.
// An i64 expression of vars, immediates, + - * min max and // % by a non-zero constant, as a
// symbolic expression; nullopt for anything else (loads, casts, other dtypes).
std::optional<sym::Expr> to_sym(const loop::Expr& e);
loop::Expr from_sym(const sym::Expr& e);
// `s` with the variable `name` replaced by `value` (stops at a loop that rebinds `name`).
loop::Stmt substitute_var(const loop::Stmt& s, const std::string& name, const loop::Expr& value);

}  // namespace difftest::passes
