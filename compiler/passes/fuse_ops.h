// FuseOps (TVM's FuseOps, as annotations): groups call bindings into fusion groups by the ops'
// OpPattern, so that FuseLoops can later compile each group as one kernel. The graph keeps its
// ops (the reference ignores groups); only the `@fused(N)` annotations and, where a group must
// be made contiguous, the binding order change.
//
// Rules, in program order (a consumer joins the group of the first operand that admits it):
//   - elemwise / broadcast / injective ops join a group of such ops;
//   - a comm-reduce op joins a group of elemwise/broadcast/injective ops (its prologue) and then
//     admits only elemwise/broadcast epilogues; so does an out-elemwise-fusable op (matmul,
//     conv, norms), which always starts its own group;
//   - opaque ops stay alone;
//   - a group holds at most kMaxGroupSize ops, and joining must keep every group schedulable as
//     one kernel: no path may leave a group and come back into it (checked on the graph of
//     groups, so two groups never need each other either).
// A value used outside its group stays materialized: FuseLoops makes it a kernel output.
// Existing groups (FuseAddRMSNorm, FuseDequantizeMatmul) are kept and may take epilogues by the
// same rules. Groups of one op carry no annotation; ids are renumbered 0..k-1 in program order.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/ir.h"

namespace difftest::passes {

constexpr int kMaxGroupSize = 16;

Program fuse_ops(const Program& p);  // p itself when the grouping and order are unchanged

// Whether existing groups are contiguous in binding order (as the pattern passes leave them):
// "" or the first interruption. FuseOps regroups the members of an interrupted group.
std::string existing_groups_contiguous(const Program& p);

// Shared by the fusion passes: a program from `bindings` (a reordering of p's, with groups set)
// whose group ids are renumbered 0..k-1 by first appearance; p itself when that is p.
Program with_renumbered_groups(const Program& p, std::vector<Binding> bindings);

// Shared by the pattern passes: groups the call bindings at `first` < `second` (the second
// consumes the first) as a new group, moving one of them next to the other. Fails (false,
// bindings untouched) when neither move keeps the order valid: the second's other operands
// must be defined before the first, or nothing between them may use the first's results.
bool group_pair(std::vector<Binding>& bindings, size_t first, size_t second);

}  // namespace difftest::passes
