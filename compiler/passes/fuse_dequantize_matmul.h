// FuseDequantizeMatmul (MLC's FuseDequantizeMatmulEwise, as a group annotation): a `dequantize`
// whose result is the weight operand (operand 1) of `matmul` or `linear` joins it in one fusion
// group; FuseLoops then inlines the dequantization into the weight loads, so the kernel reads
// the packed codes and never materializes the float weight (unless something else uses it).
// Both bindings must be ungrouped; one of them moves next to the other (group_pair in
// fuse_ops.h). Runs before FuseOps, which keeps the group and may add epilogues to it.
#pragma once

#include "compiler/ir/ir.h"

namespace difftest::passes {

Program fuse_dequantize_matmul(const Program& p);  // p itself when no pair fuses

}  // namespace difftest::passes
