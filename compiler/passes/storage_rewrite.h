// StorageRewrite: inside each PrimFunc,
//  1. moves every Allocate to the tightest enclosing scope: within a sequence, around only the
//     statements from the first to the last that mention the buffer; into the one branch of an
//     `if` that uses it; below an enclosing allocation of another buffer. It never moves an
//     allocation into a loop (the contents may carry from one iteration to the next), and drops
//     an allocation nothing mentions;
//  2. merges allocations of the same dtype and scope that are siblings in a sequence (so their
//     lifetimes do not overlap): the later one reuses the earlier one's memory, sized to the
//     larger numel (flat indexing keeps every index valid).
// Buffer names of merged allocations: the earlier one's.
#pragma once

#include "compiler/loop/ir.h"

namespace difftest::passes {

loop::Module storage_rewrite(const loop::Module& m);  // functions keep their bodies (same_as) when unchanged

}  // namespace difftest::passes
