// Unroll: fully unrolls loops marked `unrolled` (constant extent up to kMaxUnrolledExtent) and
// serial innermost loops (no loop inside) of constant extent up to kMaxSmallExtent whose copies
// hold at most kMaxSmallStatements statements — inner loops go first, so without that budget a
// nest of small constant loops (a 4 x 8 x 8 x 3 copy) cascaded into one straight-line block of
// hundreds of stores, which took LLVM's instruction selection over 30 s of CPU —, by
// substituting the loop variable with min + k in one copy of the body per iteration. Index
// arithmetic that mentions the variable is re-simplified (without ranges, so always exactly);
// everything else is copied as is. Loops with a symbolic extent stay (codegen then gives an
// `unrolled` loop LLVM's full-unroll hint).
#pragma once

#include <cstdint>

#include "compiler/loop/ir.h"

namespace difftest::passes {

constexpr int64_t kMaxUnrolledExtent = 64;
constexpr int64_t kMaxSmallExtent = 8;
// 16, near LLVM's own full-unroll threshold at -O3 (300 instructions; a bf16 statement is about
// 25 once rounded): at 64, straight-line copies made the O3 modules of generated programs
// half as large again, and LLVM's time grows with the code it is given (docs/passes.md).
constexpr int64_t kMaxSmallStatements = 16;

loop::Module unroll(const loop::Module& m);  // functions keep their bodies (same_as) when unchanged

}  // namespace difftest::passes
