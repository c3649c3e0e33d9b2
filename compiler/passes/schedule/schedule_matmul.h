// ScheduleMatmul: register tiling of the matmul and linear nests LegalizeOps writes. The two
// innermost output loops (rows i, columns j) become MR x NR tiles of local accumulators in the
// declared accumulator dtype: rows unrolled in the IR (constant accumulator indices let LLVM keep
// the tile in registers), columns vectorized, the K loop around them, so each loaded A element
// feeds NR products and each B row segment MR. Each output element still sums
// its products in K order with the legalized expressions, so the result is the legalized one
// bit for bit. Rows and columns that do not fill a tile (constant or symbolic extents) run the
// legalized per-element code in tail loops. The outermost batch loop (else the row-tile loop)
// is parallel: tiles write disjoint outputs.
#pragma once

#include "compiler/context/compile_context.h"
#include "compiler/loop/ir.h"

namespace difftest::passes {

loop::Module schedule_matmul(const loop::Module& m, const CompileContext& compile);  // m's functions unchanged when none matches

}  // namespace difftest::passes
