// ScheduleReduction: sum/mean/max/min nests over one contiguous innermost axis (the fold's
// operand is a load, possibly widened, whose index steps by k). The fold is split over vector
// lanes of partial accumulators (k = ko * L + l, l vectorized) with a serial tail for the rest
// of K and a final combine of the lanes with the fold's operator; the outermost output loop is
// parallel. Sums reassociate (the tolerance bounds any order); max and min are exact in any
// order. Products, argmax/argmin, strided or multi-axis reductions are left as they are.
#pragma once

#include "compiler/context/compile_context.h"
#include "compiler/loop/ir.h"

namespace difftest::passes {

loop::Module schedule_reduction(const loop::Module& m, const CompileContext& compile);  // m's functions unchanged when none matches

}  // namespace difftest::passes
