#include "tests/compiler/fault_cases.h"

namespace difftest::testing {

std::vector<FaultCase> quantization_fault_cases() {
  return {
    // Real quantized weights have nonzero scales, so every element moves by one scale (even a
    // code-7 zero becomes -scale).
    {"q4f16-1-zero-point-8",
     R"(program @q4f16_1_weights(n: 1..8) {
  %p: u32[n, 4] = param
  %s: f16[n, 1] = param
  %y: f16[n, 32] = dequantize(%p, %s, format="q4f16_1", group=32)
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     // q4f32_1 shares the decoder but keeps zero point 7; q4_0's is 8 anyway.
     R"(program @other_formats(n: 1..8) {
  %p: u32[n, 4] = param
  %s: f32[n, 1] = param
  %f: f32[n, 32] = dequantize(%p, %s, format="q4f32_1", group=32)
  %g: u8[n, 16] = param
  %d: f16[n, 1] = param
  %h: f32[n, 32] = dequantize(%g, %d, format="q4_0", group=32)
  %y: f32[n, 32] = add(%f, %h)
  return %y
}
)",
     "O0", "96 of 96 elements"},
    // Each row is 0..31: m = 31, d = -31/8, q(k) = trunc(8.5 - 8k/31), so q(j) - q(j + 16) is 4
    // or 5 for every j < 16: all 32 elements of a row read a code 4 or 5 steps of d off.
    {"q4-0-nibble-order-swapped",
     R"(program @q4_0_ramp(n: 1..8) {
  %pos: f32[32] = arange(end=32, dtype=f32)
  %w: f32[n, 32] = broadcast_to(%pos, shape=[n, 32])
  %q: u8[n, 16], %s: f16[n, 1] = quantize(%w, format="q4_0", group=32)
  %y: f32[n, 32] = dequantize(%q, %s, format="q4_0", group=32)
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     R"(program @mlc_nibbles(n: 1..8) {
  %p: u32[n, 4] = param
  %s: f16[n, 1] = param
  %y: f16[n, 32] = dequantize(%p, %s, format="q4f16_1", group=32)
  return %y
}
)",
     "O0", "96 of 96 elements"},
    // Row r holds 40r .. 40r + 39 in two groups (32 + a partial 8). With a scale row stride
    // of 40 // 32 = 1, row 0 is right, and rows 1 and 2 read the scales of (row 0, group 1),
    // (row 1, group 0) and (row 1, group 0), (row 1, group 1): every one differs from their
    // own, and their codes are all >= 11 (never the zero point 7), so all 80 elements are off.
    // In f32 (q4f32_1) no code is uncertain: 7w / max + 7 is never within 1 / (2 max) of a
    // rounding tie (14w is even, an odd multiple of the odd max is not), far beyond the bounds.
    // (An f16 arange's rounding bounds would leave 48 codes uncertain.)
    {"dequantize-group-index-tail",
     R"(program @partial_group(n: 1..8) {
  %pos: f32[40*n] = arange(end=40*n, dtype=f32)
  %w: f32[n, 40] = reshape(%pos, shape=[n, 40])
  %q: u32[n, 8], %s: f32[n, 2] = quantize(%w, format="q4f32_1", group=32)
  %y: f32[n, 40] = dequantize(%q, %s, format="q4f32_1", group=32, k=40)
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     R"(program @whole_groups(n: 1..8) {
  %pos: f32[64*n] = arange(end=64*n, dtype=f32)
  %w: f32[n, 64] = reshape(%pos, shape=[n, 64])
  %q: u32[n, 8], %s: f32[n, 2] = quantize(%w, format="q4f32_1", group=32)
  %y: f32[n, 64] = dequantize(%q, %s, format="q4f32_1", group=32)
  return %y
}
)",
     "O0", "80 of 120 elements"},
    // A decode GEMV (one activation row of ones) over 8 groups of a ramp: row r, group g holds
    // 256r + 32g .. 256r + 32g + 31, so the scales grow with g and every code of groups g >= 1
    // is above the zero point. Each output takes the smaller scale of group g - 1 for all
    // those positive levels: all 3 outputs are too small. (Generated quantized weights show
    // the fault less: max |w| is 2 in most groups of 32, so neighbouring scales are equal.)
    // The ramp's length is symbolic, so FoldConstant leaves the dequantize to be fused.
    {"fused-dequantize-matmul-wrong-scale",
     R"(program @q4_gemv(n: 1..8) {
  %x: f32[1, 256] = ones(shape=[1, 256], dtype=f32)
  %pos: f32[256*n] = arange(end=256*n, dtype=f32)
  %v: f32[n, 256] = reshape(%pos, shape=[n, 256])
  %p: u32[n, 32], %s: f32[n, 8] = quantize(%v, format="q4f32_1", group=32)
  %w: f32[n, 256] = dequantize(%p, %s, format="q4f32_1", group=32)
  %y: f32[1, n] = matmul(%x, %w, transpose_b=true)
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     // One group per row: group 0 keeps its own scale.
     R"(program @q4_gemv_one_group(n: 1..8) {
  %x: f32[1, 32] = ones(shape=[1, 32], dtype=f32)
  %pos: f32[32*n] = arange(end=32*n, dtype=f32)
  %v: f32[n, 32] = reshape(%pos, shape=[n, 32])
  %p: u32[n, 4], %s: f32[n, 1] = quantize(%v, format="q4f32_1", group=32)
  %w: f32[n, 32] = dequantize(%p, %s, format="q4f32_1", group=32)
  %y: f32[1, n] = matmul(%x, %w, transpose_b=true)
  return %y
}
)",
     "O2", "3 of 3 elements"},
    // Summing 4096 ones: f32 reaches 4096 (exact in f16), f16 stalls at 2048 (2048 + 1 rounds
    // back to 2048), so all 12 outputs are half what they should be.
    {"matmul-f16-accumulation",
     R"(program @long_dot(n: 1..8) {
  %a: f16[n, 4096] = ones(shape=[n, 4096], dtype=f16)
  %b: f16[4096, 4] = ones(shape=[4096, 4], dtype=f16)
  %y: f16[n, 4] = matmul(%a, %b, acc=f32)
  return %y
}
)",
     oracle::VerdictKind::Mismatch, "compare",
     // linear keeps its f32 accumulator; a matmul without acc declares f16 accumulation.
     R"(program @declared_accumulators(n: 1..8) {
  %a: f16[n, 4096] = ones(shape=[n, 4096], dtype=f16)
  %w: f16[4, 4096] = ones(shape=[4, 4096], dtype=f16)
  %l: f16[n, 4] = linear(%a, %w, acc=f32)
  %x: f16[n, 64] = param
  %b: f16[64, 4] = param
  %m: f16[n, 4] = matmul(%x, %b)
  %y: f16[n, 4] = add(%l, %m)
  return %y
}
)",
     "O0", "12 of 12 elements"},
  };
}

}  // namespace difftest::testing
