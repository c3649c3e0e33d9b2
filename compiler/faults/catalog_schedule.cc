// Faults in loop passes and schedule rules. Each description says what breaks, where, and the
// real bug class it models; docs/faults.md lists them all.
#include "compiler/faults/catalog.h"

namespace difftest::faults {

std::vector<FaultInfo> schedule_faults() {
  return {
    {"schedule-reduction-tail",
     "ScheduleReduction's serial remainder loop stops one element short, so a contiguous sum/mean/max/min over K "
     "drops its last element when the vector lanes do not divide K: a vector-remainder off-by-one",
     "ScheduleReduction"},
    {"matmul-vector-tail-dropped",
     "ScheduleMatmul leaves out the column tail after the last full 2-vector tile, so output columns past "
     "N // nr * nr of the tiled rows are never written when N is not a multiple of the tile width: a GEMM "
     "microkernel written for N a multiple of the vector width, with its scalar tail lost",
     "ScheduleMatmul"},
    {"reduction-init-per-tile",
     "ScheduleMatmul keeps one row of accumulators per register tile, zeroed once before the tile's rows, so row "
     "r of every tile starts from row r - 1's finished sums: the accumulator initialisation hoisted out of the "
     "row loop of a hand-tiled GEMM",
     "ScheduleMatmul"},
    {"plan-memory-reuses-live-buffer",
     "PlanMemory ends a value's live interval before its last use, so a call's output may share a storage slot "
     "with an input that dies at that call and the kernel overwrites what it still reads (a matmul or a "
     "reduction; an elementwise kernel reading the element it writes survives): an off-by-one in a memory "
     "planner's liveness",
     "PlanMemory"},
    {"licm-hoists-dependent-load",
     "LICM leaves the loop's own stores out of its alias check and hoists a load of a buffer the loop writes "
     "(the partial-sum combine of a scheduled reduction reads back part[0] on every iteration), so every "
     "iteration sees the value from before the loop: loop-invariant code motion across a loop-carried "
     "dependence",
     "LICM"},
    {"floor-div-as-trunc-div",
     "LoopSimplify rewrites floor division and floor modulo of signed-integer or float values with truncating "
     "semantics (-7 // 2 = -3, -7 % 2 = -1), wrong where the operands' signs differ and the division is "
     "inexact: a simplifier treating floordiv as truncdiv for operands it cannot prove non-negative",
     "LoopSimplify"},
    {"split-no-guard-symbolic",
     "ScheduleElementwise splits a symbolic extent into vectors without the tail loop, assuming the lanes (16 "
     "for f32) divide it, so the last extent % 16 elements are never written: a loop split that trusts a "
     "divisibility hint for a symbolic extent",
     "ScheduleElementwise"},
    {"fused-epilogue-twice",
     "FuseLoops emits an elementwise epilogue that reads the kept result of a matmul or reduction in its fused "
     "kernel twice, the second copy reading what the first wrote (y = f(f(acc))): an epilogue fused into a "
     "reduction's final store and also left in place; invisible for idempotent epilogues such as relu",
     "FuseLoops"},
  };
}

}  // namespace difftest::faults
