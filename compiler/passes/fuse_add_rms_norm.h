// FuseAddRMSNorm (MLC's FuseAddRMSNorm, as a group annotation): an `add` whose result is the
// normalized operand of `rms_norm` joins it in one fusion group, so the residual sum and the
// norm become one kernel after FuseLoops. The sum stays a kernel output when anything else
// uses it (the residual stream). Both bindings must be ungrouped; one of them moves next to the
// other (see group_pair in fuse_ops.h), and the pair is left alone when neither move keeps the
// order valid. Runs before FuseOps, which keeps the group and may add epilogues to it.
#pragma once

#include "compiler/ir/ir.h"

namespace difftest::passes {

Program fuse_add_rms_norm(const Program& p);  // p itself when no pair fuses

}  // namespace difftest::passes
