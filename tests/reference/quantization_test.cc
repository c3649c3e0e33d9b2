// q4 formats: hand-packed words decode to the documented values, quantize packs as documented,
// and dequantize(quantize(w)) stays within the documented error.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <fmt/format.h>

#include <cmath>

#include "compiler/tensor/float_format.h"
#include "reference/quantize.h"
#include "tests/support/golden.h"

namespace difftest {
namespace {

using reference::Mode;

TEST(Q4f16_1, HandPackedWordDecodes) {
  // Element r of the word sits in bits [4r, 4r + 4): 0x76543210 holds codes 0..7 for elements
  // 0..7; zero point 7, scale 0.5: (q - 7) * 0.5.
  EXPECT_GOLDEN({"  %w: u32[1, 1] = const [[1985229328]]\n  %s: f16[1, 1] = const [[0.5]]\n"
         "  %r: f16[1, 8] = dequantize(%w, %s, format=\"q4f16_1\", group=8)",
         {1, 8}, {-3.5, -3, -2.5, -2, -1.5, -1, -0.5, 0}});
  // Code 14 (the largest MLC code) in elements 0 and 1: 0xEE; the other nibbles are code 0.
  EXPECT_GOLDEN({"  %w: u32[1, 1] = const [[238]]\n  %s: f32[1, 1] = const [[0.25]]\n"
         "  %r: f32[1, 8] = dequantize(%w, %s, format=\"q4f32_1\", group=8)",
         {1, 8}, {1.75, 1.75, -1.75, -1.75, -1.75, -1.75, -1.75, -1.75}});
  // Two groups of 8 with their own scales; k=12 keeps only the first 12 elements.
  EXPECT_GOLDEN({"  %w: u32[1, 2] = const [[2004318071, 2004318079]]\n  %s: f16[1, 2] = const [[1, 2]]\n"
         "  %r: f16[1, 12] = dequantize(%w, %s, format=\"q4f16_1\", group=8, k=12)",
         {1, 12}, {0, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0}});
}

TEST(Q4_0, HandPackedBlockDecodes) {
  // Byte j holds element j (low nibble) and element j + 16 (high nibble); zero point 8.
  // Byte 0 = 0x8F: element 0 code 15 -> 7 * 0.25; element 16 code 8 -> 0. Other bytes 0x08:
  // elements 1..15 code 8 -> 0; elements 17..31 code 0 -> -8 * 0.25.
  std::string bytes = "143";
  for (int i = 1; i < 16; ++i) bytes += ", 8";
  std::vector<double> want(32, 0);
  want[0] = 1.75;
  for (int i = 17; i < 32; ++i) want[static_cast<size_t>(i)] = -2;
  EXPECT_GOLDEN({"  %w: u8[1, 16] = const [[" + bytes + "]]\n  %s: f16[1, 1] = const [[0.25]]\n"
         "  %r: f32[1, 32] = dequantize(%w, %s, format=\"q4_0\", group=32)",
         {1, 32}, want});
}

TEST(Quantize, PacksAsDocumented) {
  // MLC: w = (-3.5, -3, ..., 0): max|w| = 3.5 -> scale 0.5 -> codes 0..7 -> word 0x76543210.
  const std::string w = "  %w: f16[1, 8] = const [[-3.5, -3, -2.5, -2, -1.5, -1, -0.5, 0]]\n";
  EXPECT_GOLDEN({w + "  %q: u32[1, 1], %s: f16[1, 1] = quantize(%w, format=\"q4f16_1\", group=8)", {1, 1}, {1985229328}});
  EXPECT_GOLDEN({w + "  %q: u32[1, 1], %s: f16[1, 1] = quantize(%w, format=\"q4f16_1\", group=8)", {1, 1}, {0.5}, 0, Mode::F64,
         "", {}, {}, 1});
  // GGML: w[0] = -4, the rest 0: d = -4 / -8 = 0.5, id = 2; element 0: trunc(-8 + 8.5) = 0; zeros:
  // trunc(8.5) = 8. Byte 0 = 0 | 8 << 4 = 0x80, the others 0x88.
  std::string block = "-4";
  for (int i = 1; i < 32; ++i) block += ", 0";
  std::vector<double> bytes(16, 136);
  bytes[0] = 128;
  EXPECT_GOLDEN({"  %w: f32[1, 32] = const [[" + block + "]]\n  %q: u8[1, 16], %s: f16[1, 1] = quantize(%w, format=\"q4_0\", group=32)",
         {1, 16}, bytes});
  // A positive extreme m gives a negative d: the largest element gets code 0, i.e. -8 * d = m.
  EXPECT_GOLDEN({"  %w: f32[1, 32] = const [[" + block.replace(0, 2, "4") +
             "]]\n  %q: u8[1, 16], %s: f16[1, 1] = quantize(%w, format=\"q4_0\", group=32)",
         {1, 1}, {-0.5}, 0, Mode::F64, "", {}, {}, 1});
  // All-zero group: scale 0, codes 7.
  EXPECT_GOLDEN({"  %w: f16[1, 8] = zeros(shape=[1, 8], dtype=f16)\n"
         "  %q: u32[1, 1], %s: f16[1, 1] = quantize(%w, format=\"q4f16_1\", group=8)",
         {1, 1}, {2004318071}});
}

TEST(Quantize, KNotAMultipleOfTheGroupIsPaddedToWholeGroups) {
  // K = 12, group 8: two groups; the second holds 4 real elements and 4 padding nibbles (0).
  const std::string w = "  %w: f32[1, 12] = const [[7, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, -3.5]]\n";
  EXPECT_GOLDEN({w + "  %q: u32[1, 2], %s: f32[1, 2] = quantize(%w, format=\"q4f32_1\", group=8)", {1, 2}, {1, 0.5}, 0,
         Mode::F64, "", {}, {}, 1});
  // Group 1: scale 1, codes 14 then 7s; group 2: scale 0.5, codes 9, 11, 13, 0 (then padding 0).
  EXPECT_GOLDEN({w + "  %q: u32[1, 2], %s: f32[1, 2] = quantize(%w, format=\"q4f32_1\", group=8)", {1, 2},
         {0x7777777E, 0x00000DB9}});
  EXPECT_GOLDEN({w + "  %q: u32[1, 2], %s: f32[1, 2] = quantize(%w, format=\"q4f32_1\", group=8)\n"
             "  %d: f32[1, 12] = dequantize(%q, %s, format=\"q4f32_1\", group=8, k=12)",
         {1, 12}, {7, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, -3.5}});
}

// Half a scale step, plus what the format's own roundings add: the quotient w/scale is rounded
// to the scale dtype (at most 2^-11 relative of 7 steps) and the stored scale is rounded
// (2^-11 relative, times at most 8 steps). GGML's clamp at code 15 costs up to one more step
// for the element of largest magnitude's opposite extreme.
RC_GTEST_PROP(Quantize, RoundTripIsWithinHalfAStep, ()) {
  const std::string format = *rc::gen::element<std::string>("q4f16_1", "q4f32_1", "q4_0");
  const int64_t group = format == "q4_0" ? 32 : *rc::gen::element<int64_t>(8, 32);
  const int64_t k = format == "q4_0" ? 32 * *rc::gen::inRange<int64_t>(1, 3) : *rc::gen::inRange<int64_t>(1, 70);
  const int64_t rows = *rc::gen::inRange<int64_t>(1, 4);
  std::vector<double> w(static_cast<size_t>(rows * k));
  for (auto& x : w) {
    const double v = *rc::gen::inRange<int>(-4000, 4000) / 1000.0;
    x = round_to_float_dtype(v, reference::format_scale_dtype(format));
  }
  const reference::Quantized q = reference::quantize_rows(w, rows, k, format, group);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < k; ++i) {
      const double scale = std::fabs(q.scales[static_cast<size_t>(r * q.groups + i / group)]);
      const double got = reference::dequantize_element(q.packed, q.scales, q.per_row, q.groups, r, i, format, group);
      const double err = std::fabs(got - w[static_cast<size_t>(r * k + i)]);
      const bool clamped = format == "q4_0" && got == 7 * q.scales[static_cast<size_t>(r * q.groups + i / group)] &&
                           err > 0.5 * scale * (1 + 0x1p-6);
      RC_ASSERT(err <= scale * ((clamped ? 1.0 : 0.5) + 0x1p-6) + 1e-12);
    }
  }
}

}  // namespace
}  // namespace difftest
