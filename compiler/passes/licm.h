// LICM (loop-invariant code motion): an expression in a loop body that does not depend on the
// loop, and is worth a temporary (it loads or calls an intrinsic; pure index arithmetic is left
// to LLVM), is computed once before the loop into a local scalar buffer:
//
//   alloc <buf>_licm<k>: f32[1] local { if (extent > 0) { t[0] = e }  for (...) { ... t[0] ... } }
//
// Invariant: no variable bound by the loop or inside it, and no load of a buffer the loop
// stores to (anywhere in its body) or allocates. Only expressions evaluated on every iteration
// are candidates: conditions of inner ifs but not their branches, bounds of inner loops but not
// their bodies, not the arms of a select. The guard keeps a loop that runs zero times from
// evaluating a load it never executed (it could be out of bounds); it is left out when the
// extent is a positive constant. Inner loops are processed first, so an invariant climbs as far
// as the guards allow.
#pragma once

#include <string>

#include "compiler/context/compile_context.h"
#include "compiler/loop/ir.h"

namespace difftest::passes {

loop::Module licm(const loop::Module& m, const CompileContext& compile);  // functions keep their bodies (same_as) when unchanged

// Buffers are distinct memory by name: "" unless a call binds one argument to a parameter the
// function stores to and to another parameter too (then a load of the other one is not
// invariant, whatever its name says).
std::string licm_precondition(const loop::Module& m);

}  // namespace difftest::passes
