// FuseTransposeMatmul: a permute_dims that swaps exactly the last two axes of a matmul operand
// becomes the matmul's transpose flag (transpose_a for operand a, transpose_b for b, flipped),
// so the matmul reads the untransposed tensor and no transposed copy is materialized. Chains of
// such swaps are followed to their source, one flip per swap. The permute itself stays: other
// users may need it, and DeadCodeElimination drops it when nothing does.
//
// Not fused: permutes that move any other axis (batch axes included), rank-1 operands, and
// permutes of a matmul's result. `linear` has no transpose flag (w is always [N, K]), so its
// operands are left alone.
#pragma once

#include "compiler/ir/ir.h"

namespace difftest::passes {

Program fuse_transpose_matmul(const Program& p);  // p itself when nothing fuses

}  // namespace difftest::passes
