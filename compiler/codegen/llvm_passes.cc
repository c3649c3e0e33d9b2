#include "compiler/codegen/llvm_passes.h"

#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/GVN.h>
#include <llvm/Transforms/Scalar/LICM.h>
#include <llvm/Transforms/Scalar/LoopPassManager.h>
#include <llvm/Transforms/Scalar/LoopRotation.h>
#include <llvm/Transforms/Scalar/LoopUnrollPass.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>
#include <llvm/Transforms/Vectorize/LoopVectorize.h>
#include <llvm/Transforms/Vectorize/SLPVectorizer.h>

namespace difftest::codegen {

void run_llvm_passes(llvm::Module& m, llvm::TargetMachine* tm, int level) {
  if (level == 0) return;
  // clang's -O pipelines spend most of their time on what these kernels never have: calls to
  // inline, globals to optimize, loops to unswitch, recognize as idioms or rewrite by their
  // induction variables (opt-14 on the O3 modules of seeds 0..19: 38 ms per module with clang's
  // O3 pipeline, 11 ms with these passes; docs/compiler.md has the whole compile's figures).
  llvm::FunctionPassManager fpm;
  // The parallel bodies' closures and the schedule's small local buffers are allocas.
  fpm.addPass(llvm::SROAPass());
  // The emitter recomputes each access's index arithmetic.
  fpm.addPass(llvm::EarlyCSEPass(/*UseMemorySSA=*/true));
  // One block per loop header, body and exit, one per branch of an if.
  fpm.addPass(llvm::SimplifyCFGPass());
  fpm.addPass(llvm::InstCombinePass());
  {
    // Rotated loops (a guard, then a bottom-tested body) are what LICM and the vectorizer expect;
    // LICM then hoists the loads and index terms an inner loop does not change.
    llvm::LoopPassManager loops;
    loops.addPass(llvm::LoopRotatePass());
    loops.addPass(llvm::LICMPass());
    fpm.addPass(llvm::createFunctionToLoopPassAdaptor(std::move(loops), /*UseMemorySSA=*/true));
  }
  // Only the `unrolled` loops' llvm.loop.unroll.full hints: unrolling is the schedule's decision
  // (the Unroll pass, ScheduleMatmul's register tile).
  fpm.addPass(llvm::createFunctionToLoopPassAdaptor(llvm::LoopFullUnrollPass(level, /*OnlyWhenForced=*/true)));
  // An unrolled register tile indexes its accumulators with constants: they become registers.
  fpm.addPass(llvm::SROAPass());
  // A register tile, once unrolled, loads the same operand in several of its copies.
  if (level >= 2) fpm.addPass(llvm::GVNPass());
  fpm.addPass(llvm::InstCombinePass());
  // Only the loops the schedule marks `vectorized` (llvm.loop.vectorize.enable): left to
  // vectorize every loop it liked, LLVM 14 made an interleaved store of widened booleans that its
  // own AVX-512 instruction selection cannot lower ("Cannot select: v32i8 = X86ISD::VBROADCAST"
  // of a v8i1; seed 4000492's O3-specialized compile). Without reassociation (codegen allows none
  // on floats) vectorizing a loop changes no result.
  fpm.addPass(llvm::LoopVectorizePass(
      llvm::LoopVectorizeOptions(/*InterleaveOnlyWhenForced=*/true, /*VectorizeOnlyWhenForced=*/true)));
  // The register tiles' straight-line copies become vector operations (clang runs the SLP
  // vectorizer from -O2 on; the schedule rules' tiles depend on it).
  if (level >= 2) fpm.addPass(llvm::SLPVectorizerPass());
  // What vectorization leaves: extracts and inserts of the same lanes, empty preheaders.
  fpm.addPass(llvm::InstCombinePass());
  fpm.addPass(llvm::SimplifyCFGPass());

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm;
  mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
  mpm.run(m, mam);
}

}  // namespace difftest::codegen
