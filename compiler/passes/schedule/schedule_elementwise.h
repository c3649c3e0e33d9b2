// ScheduleElementwise: nests of serial loops around one store at the row-major flat index of the
// loop variables (elementwise, broadcast, cast, copy-like lowerings: every iteration writes its
// own element and reads no output). When every load that depends on the loops reads at that same
// flat index, the nest is flattened into one loop over all elements. The innermost loop is split
// into vector-width chunks (vectorized) plus a serial tail, and the outermost loop is parallel
// when the nest is large (symbolic extents: always; the thread pool chunks the range).
#pragma once

#include "compiler/context/compile_context.h"
#include "compiler/loop/ir.h"

namespace difftest::passes {

loop::Module schedule_elementwise(const loop::Module& m, const CompileContext& compile);  // m's functions unchanged when none matches

}  // namespace difftest::passes
