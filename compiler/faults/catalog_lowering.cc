// Faults in LegalizeOps (op lowering) and codegen. Each description says what breaks, where, and the
// real bug class it models; docs/faults.md lists them all.
#include "compiler/faults/catalog.h"

namespace difftest::faults {

std::vector<FaultInfo> lowering_faults() {
  return {
    {"legalize-null-deref",
     "LegalizeOps writes through a null pointer when lowering an elementwise binary arithmetic op (add, sub, mul, "
     "div, maximum, minimum, floor_divide, floor_mod, logical_and, logical_or): a pass crashing on a pattern it "
     "did not expect",
     "LegalizeOps"},
    {"codegen-stuck-loop",
     "codegen emits latches that add 0 instead of 1 to the outermost loops of elementwise math-function kernels "
     "(exp, log, sqrt, tanh, erf, sin, cos, floor, round), so they never terminate: a miscompiled loop latch",
     "codegen"},
    {"mul-drops-tail",
     "the mul lowering writes a*0 instead of a*b to the last element of the innermost output axis when that axis "
     "is longer than 1: a vector-tail bug",
     "LegalizeOps"},
  };
}

}  // namespace difftest::faults
