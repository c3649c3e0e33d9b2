// Faults in LegalizeOps (op lowering) and codegen. Each description says what breaks, where, and the
// real bug class it models; docs/faults.md lists them all.
#include "compiler/faults/catalog.h"

namespace difftest::faults {

std::vector<FaultInfo> lowering_faults() {
  return {
    {"bf16-round-truncates",
     "codegen rounds f32 register values to bf16 by dropping the low 16 bits (toward zero) instead of rounding to "
     "nearest even: every inexact bf16 result moves less than one ulp, always toward zero: the truncating "
     "f32-to-bf16 conversion of early bf16 kernels",
     "codegen"},
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
    {"sliding-window-sink-ignored",
     "The attention and sliding_window_mask lowerings drop the sink keys of a sliding window (j < sink stays "
     "hidden once it leaves the window), so rows past the window lose their attention sinks: StreamingLLM-style "
     "sinks ignored by a kernel that only implements the window",
     "LegalizeOps"},
    {"rope-theta-local-everywhere",
     "The rope lowering uses theta 10000 whatever the op's theta, so rotary embeddings of global layers (Gemma-3 "
     "uses theta 1e6 there, 1e4 on local layers) rotate with the local base: a per-layer RoPE parameter "
     "replaced by the model-wide default",
     "LegalizeOps"},
    {"strided-slice-negative-begin",
     "The strided_slice lowering of a forward slice starts a constant negative begin -b at index b instead of "
     "dim - b (clamped so that reads stay in bounds; visible where dim > 2b): a negative Python-style index "
     "taken by its absolute value",
     "LegalizeOps"},
  };
}

}  // namespace difftest::faults
