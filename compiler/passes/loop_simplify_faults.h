// The body of LoopSimplify's test fault (docs/faults.md); its hook, and the fault's declaration,
// stay in loop_simplify.cc, so that bisection names LoopSimplify.
#pragma once

#include "compiler/loop/ir.h"

namespace difftest::passes {

// floor-div-as-trunc-div: the floor division or modulo `e` of values rewritten with C's
// truncating semantics (`e` itself for unsigned and bool operands).
loop::Expr truncating_division(const loop::Expr& e);

}  // namespace difftest::passes
