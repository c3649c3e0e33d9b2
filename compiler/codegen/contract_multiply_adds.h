// FMA contraction as an LLVM IR step (ContractMultiplyAdds of passes.def, numbered after the pass
// list so that bisection can name it): a*b + c becomes one llvm.fma (one rounding instead of two)
// where a variant allows contraction, before the code generator sees the module.
//
// LLVM's own contraction (TargetOptions::AllowFPOpFusion = Fast) happens inside SelectionDAG's
// combiner, so a contracting variant could not use FastISel, which never contracts (SelectionDAG
// was a sixth of the default check's time, half of it for those variants; docs/fuzzing.md). Made
// here, in the IR, the contraction is the same for FastISel and SelectionDAG, at every level, and
// visible in `difftest compile --emit llvm-opt`.
#pragma once

#include "compiler/context/compile_context.h"

namespace llvm {
class Module;
}  // namespace llvm

namespace difftest::codegen {

// Rewrites, in every function of `m`, each f32/f64 (scalar or vector) fadd or fsub that has an
// fmul of the same block as an operand, used by it alone, into llvm.fma: the rule of LLVM 14's
// DAG combiner without aggressive fusion (fadd (fmul x, y), z -> fma x, y, z, the first operand
// first; fsub (fmul x, y), z -> fma x, y, -z; fsub z, (fmul x, y) -> fma -x, y, z). Returns the
// number of products contracted. `faults`: the compile's test faults (one lives here).
int contract_multiply_adds(llvm::Module& m, const FaultSet& faults = {});

}  // namespace difftest::codegen
