// CommonSubexprElimination: a call binding that repeats an earlier one — the same op, the same
// operand values, equal attributes and equal result types — is replaced by the earlier one's
// results (every result of a multi-result op). Constants with the same type and the same
// initializer merge the same way. The first occurrence wins, so names stay deterministic.
//
// Equality is exact: attributes and dtypes are part of the key (two matmuls that differ only
// in `acc` or a transpose flag compute different things), and floats compare by their bits
// (an attribute or literal of -0.0 is not +0.0, and NaN literals only merge with the same
// NaN). Symbolic attributes compare structurally, which may miss a merge but never invents one.
// Parameters never merge: they are the program's interface.
#pragma once

#include "compiler/context/compile_context.h"
#include "compiler/ir/ir.h"

namespace difftest::passes {

Program common_subexpr_elimination(const Program& p, const CompileContext& compile);  // p itself when nothing repeats

}  // namespace difftest::passes
