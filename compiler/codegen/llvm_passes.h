// The LLVM IR passes the JIT runs at levels 1..3: what the emitted loop IR needs to become good
// machine code, not clang's whole -O pipeline. The schedule passes already decided tiling,
// vectorization and unrolling; LLVM's part is to turn the emitter's plain IR (a block per loop,
// index arithmetic per access, closures for parallel bodies) into registers, hoist what the
// loops do not change, honour the schedule's hints and vectorize what they mark.
#pragma once

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace difftest::codegen {

// Level 0 runs no IR pass. Levels 2 and 3 run the same IR passes (they differ in the code
// generator's level and, in the O3 pipeline, FMA contraction); level 1 leaves out GVN and the
// SLP vectorizer, as clang's -O1 does.
void run_llvm_passes(llvm::Module& m, llvm::TargetMachine* tm, int level);

}  // namespace difftest::codegen
