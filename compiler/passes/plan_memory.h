// PlanMemory (a loop pass; the design table lists it with the graph passes, but liveness is
// only known once the kernels are): every intermediate value buffer — written by a call, not a
// program result — gets a storage slot; a slot is reused once its previous occupant is dead
// (no later call references it). A value's lifetime runs from the first call that writes it to
// the last call that references it, and a slot is free for call k only when its occupant's
// last reference is before k, so a call's output never shares memory with its own inputs.
// Free slots are taken lowest first. The executor allocates one buffer per slot, as large as
// its largest member under the binding.
//
// Pre-condition: the module lists the program's outputs (as LegalizeOps emits).
#pragma once

#include <string>

#include "compiler/context/compile_context.h"
#include "compiler/loop/ir.h"

namespace difftest::passes {

loop::Module plan_memory(const loop::Module& m, const CompileContext& compile);  // m itself when its plan is already this one
std::string plan_memory_precondition(const loop::Module& m);

}  // namespace difftest::passes
