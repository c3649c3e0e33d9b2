// The bodies of ScheduleReduction's test faults (docs/faults.md); their hooks, and the faults'
// declarations, stay in schedule_reduction.cc, so that bisection names ScheduleReduction.
#pragma once

#include <string>

#include "compiler/loop/ir.h"

namespace difftest::passes {

// schedule-reduction-tail: the serial remainder loop over `tail_var` runs one element short.
loop::Stmt with_tail_one_short(const loop::Stmt& split, const std::string& tail_var);

// reduction-lane-partials-narrow: every value stored into the lanes' partial sums (`partials`)
// rounded to `narrow` first.
loop::Stmt with_partials_rounded(const loop::Stmt& split, const std::string& partials, DType narrow);

}  // namespace difftest::passes
