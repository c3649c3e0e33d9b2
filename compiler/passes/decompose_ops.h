// DecomposeOps: rewrites composite ops into primitive ops of the registry, step for step the
// way their semantics (and the reference kernels) define them, so later passes (FuseOps,
// schedule rules) see only elementwise ops, reductions and matmuls.
//
//   softmax, log_softmax   max/sub/exp/sum/div (log_softmax: .../log/sub) along the axis
//   rms_norm, layer_norm   mean, rsqrt of (variance + eps), the weight (and bias) broadcast
//                          along the other axes
//   gelu                   both formulas (erf and tanh), in f32 (f64 for f64)
//   attention              score matmul (transpose_b), scale, soft-cap, causal/sliding-window
//                          mask with sinks and the user mask, softmax, value matmul; GQA through
//                          a reshape of the query heads
//
// Ops that carry intermediate arithmetic in `acc` are decomposed on operands cast up to `acc`
// and the result is cast back once, so the rounding happens where the fused op rounds. The
// decomposition's last binding defines the composite's own result value, so names and every
// later use stay as they were.
//
// A binding in a fusion group (FuseAddRMSNorm, FuseDequantizeMatmul) is a kernel-to-be and
// stays whole. Left composite: attention with scale=0 and a symbolic head dim (1/sqrt(D) is not a
// constant), group_norm and instance_norm; silu and rope are primitive ops here.
#pragma once

#include "compiler/context/compile_context.h"
#include "compiler/ir/ir.h"

namespace difftest::passes {

Program decompose_ops(const Program& p, const CompileContext& compile);  // p itself when there is nothing to decompose

}  // namespace difftest::passes
