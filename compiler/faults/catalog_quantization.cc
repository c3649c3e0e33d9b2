// Faults in 4-bit weight quantization: dequantize lowering, fused dequantize-matmul and GEMV.
// Each description says what breaks, where, and the real bug class it models; docs/faults.md
// lists them all.
#include "compiler/faults/catalog.h"

namespace difftest::faults {

std::vector<FaultInfo> quantization_faults() {
  return {
    {"q4f16-1-zero-point-8",
     "The dequantize lowering subtracts 8 instead of 7 from q4f16_1 codes, so every weight is one scale too "
     "small: GGML's zero point applied to MLC's symmetric 0..14 codes (a zero-point mismatch between the "
     "quantizer and a dequantizer shared across formats)",
     "LegalizeOps"},
    {"q4-0-nibble-order-swapped",
     "The dequantize lowering decodes q4_0 element j (j < 16) from the high nibble of byte j and element j + 16 "
     "from the low one: a decoder written for the sequential nibble order (2j low, 2j + 1 high) reading GGML's "
     "split block layout",
     "LegalizeOps"},
    {"dequantize-group-index-tail",
     "The dequantize lowering indexes the scales with a row stride of K // group instead of ceil(K / group), so "
     "when the group does not divide K (a partial last group) every row after the first reads another row's "
     "scales: a group-index bug on the partial-tail path of a quantized weight",
     "LegalizeOps"},
    {"fused-dequantize-matmul-wrong-scale",
     "FuseLoops, inlining a dequantize into the matmul/linear it is fused with, reads the scale of group "
     "max(k // group - 1, 0), so every group after the first uses its predecessor's scale: a fused "
     "dequantize-matmul kernel whose scale index is off by one group",
     "FuseLoops"},
    {"matmul-f16-accumulation",
     "The matmul lowering of f16 operands with a declared f32 (or f64) accumulator rounds every partial sum to f16, "
     "which stalls on long K: a kernel or intrinsic choice that ignores the requested accumulator dtype",
     "LegalizeOps"},
  };
}

}  // namespace difftest::faults
