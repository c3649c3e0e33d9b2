// ScheduleGEMV: matmul/linear nests with one output row (every output loop but the innermost
// has extent 1: decode, batch 1) whose weight is read along K contiguously (transpose_b /
// linear). Each output's K sum is split over vector lanes of partial accumulators in the
// declared accumulator dtype (k = ko * L + l, l vectorized), a serial tail takes the rest of K,
// and the lanes are combined at the end; the output loop is parallel. The weight operand is
// matched by structure (loads whose index steps by k or k // c), so the rule still applies when
// fusion has inlined a dequantize into the weight loads.
#pragma once

#include "compiler/loop/ir.h"

namespace difftest::passes {

loop::Module schedule_gemv(const loop::Module& m);  // m's functions unchanged when none matches

}  // namespace difftest::passes
