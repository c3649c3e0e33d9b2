// FuseLoops (TVM's FuseTIR): each run of consecutive calls of one fusion group becomes one
// PrimFunc. Its params are the group's external inputs, then the values the group produces that
// something outside it needs (a later call or a program result). The other intermediates live
// inside the kernel: an elementwise/injective producer (a perfect nest of serial loops around
// one store at the row-major flat index of its loop variables) whose single consumer reads it
// at an index of the same form is inlined (each load becomes the stored expression at the
// consumer's coordinates, as compute_inline), so no buffer is needed; this is what makes a
// fused dequantize-matmul read packed weights. The rest become `alloc` inside the kernel
// (local when a small constant size, else global).
//
// Legalized code reads buffers only at flat indices of in-range coordinates, so a load index
// of the same form as the store index names the same coordinates.
//
// A group whose calls are not consecutive (a graph pass that ran after FuseOps put another op
// between its members) is fused run by run: each run's values that the interrupting calls or
// later runs read are outputs of its kernel, so splitting never changes results.
//
// Pre-conditions: the module lists the program's outputs, and every member passes the
// function's own dim names (as LegalizeOps emits). A module without groups is returned
// unchanged.
#pragma once

#include <string>

#include "compiler/context/compile_context.h"
#include "compiler/loop/ir.h"

namespace difftest::passes {

loop::Module fuse_loops(const loop::Module& m, const CompileContext& compile);
std::string fuse_loops_precondition(const loop::Module& m);  // "" or why it cannot run

}  // namespace difftest::passes
