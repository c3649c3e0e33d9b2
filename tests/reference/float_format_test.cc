// Conversions to f16 and bf16: one correct rounding (ties to even), never two.
#include "compiler/tensor/float_format.h"

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>

#include "compiler/support/diagnostics.h"
#include "compiler/tensor/tensor.h"

namespace difftest {
namespace {

TEST(FloatFormat, F16HandCases) {
  EXPECT_EQ(round_to_float_dtype(2049, DType::f16), 2048);          // tie -> even
  EXPECT_EQ(round_to_float_dtype(2051, DType::f16), 2052);          // tie -> even
  EXPECT_EQ(round_to_float_dtype(65504, DType::f16), 65504);        // max
  EXPECT_EQ(round_to_float_dtype(65519.99, DType::f16), 65504);
  EXPECT_TRUE(std::isinf(round_to_float_dtype(65520, DType::f16)));  // tie with 2^16 -> inf
  EXPECT_EQ(round_to_float_dtype(std::ldexp(1.0, -25), DType::f16), 0);                 // half the smallest subnormal
  EXPECT_EQ(round_to_float_dtype(3 * std::ldexp(1.0, -26), DType::f16), std::ldexp(1.0, -24));
  EXPECT_EQ(round_to_float_dtype(-0.1, DType::f16), -0.0999755859375);
  // Double rounding would give 1: (1 + 2^-11 + 2^-30) -> f32 1 + 2^-11 -> f16 tie -> 1.
  EXPECT_EQ(round_to_float_dtype(1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30), DType::f16), 1 + std::ldexp(1.0, -10));
  EXPECT_EQ(f16_bits(1.0), 0x3c00);
  EXPECT_EQ(f16_bits(-2.0), 0xc000);
  EXPECT_EQ(f16_bits(65504), 0x7bff);
  EXPECT_EQ(f16_bits(std::ldexp(1.0, -24)), 0x0001);
  EXPECT_EQ(f16_bits(INFINITY), 0x7c00);
  EXPECT_TRUE(std::isnan(f16_value(f16_bits(NAN))));
  EXPECT_EQ(f16_value(0x3555), 0.333251953125);
}

TEST(FloatFormat, Bf16HandCases) {
  EXPECT_EQ(round_to_float_dtype(257, DType::bf16), 256);
  EXPECT_EQ(round_to_float_dtype(259, DType::bf16), 260);
  EXPECT_EQ(round_to_float_dtype(1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30), DType::bf16), 1 + std::ldexp(1.0, -7));
  EXPECT_EQ(bf16_bits(1.0), 0x3f80);
  EXPECT_EQ(bf16_value(0x4049), 3.140625);
  EXPECT_TRUE(std::isinf(round_to_float_dtype(3.5e38, DType::bf16)));
}

TEST(FloatFormat, AgreesWithEigenOnEveryF16AndSampledFloats) {
  // Every f16 bit pattern round-trips, and Eigen's float->half agrees with ours on floats.
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const double v = f16_value(static_cast<uint16_t>(b));
    if (std::isnan(v)) continue;
    EXPECT_EQ(f16_bits(v), b);
    const Eigen::half h(static_cast<float>(v));
    EXPECT_EQ(Eigen::numext::bit_cast<uint16_t>(h), b);
  }
  uint32_t state = 12345;
  for (int i = 0; i < 200000; ++i) {
    state = state * 1664525u + 1013904223u;
    float f;
    std::memcpy(&f, &state, sizeof f);
    if (std::isnan(f)) continue;
    EXPECT_EQ(f16_bits(f), Eigen::numext::bit_cast<uint16_t>(Eigen::half(f))) << f;
    EXPECT_EQ(bf16_bits(f), Eigen::numext::bit_cast<uint16_t>(Eigen::bfloat16(f))) << f;
  }
}

// A bf16 rounding that shares nothing with ours: the double is first rounded to f32 toward
// zero, with a sticky last bit where that was inexact (round to odd: 24 bits keep enough
// for the second rounding to be correct), then rounded to 8 bits, ties to even, on the
// f32 bit pattern.
uint16_t bf16_bits_by_round_to_odd(double v) {
  const int mode = std::fegetround();
  std::fesetround(FE_TOWARDZERO);
  volatile float truncated = static_cast<float>(v);
  std::fesetround(mode);
  uint32_t u;
  const float t = truncated;
  std::memcpy(&u, &t, sizeof u);
  if (static_cast<double>(t) != v) u |= 1;
  const uint32_t lsb = (u >> 16) & 1;
  return static_cast<uint16_t>((u + 0x7fff + lsb) >> 16);
}

TEST(FloatFormat, RoundsDoublesOnceLikeTheCompilersConversions) {
  // Doubles with bits below f32's precision, across both formats' ranges (subnormals,
  // overflow and ties included): f16 against GCC's double -> _Float16 conversion (one
  // rounding, libgcc), bf16 against the round-to-odd construction above.
  uint64_t state = 0x243f6a8885a308d3ULL;
  const auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state;
  };
  for (int i = 0; i < 400000; ++i) {
    const uint64_t r = next();
    const int exponent = static_cast<int>(r % 300) - 150;  // 2^-150 .. 2^149
    const double significand = 1 + static_cast<double>(next() >> 12) * 0x1.0p-52;
    double v = std::ldexp(significand, exponent);
    if (i % 4 < 2) {  // a tie between two f16 (11 bits) or two bf16 (8 bits) neighbours
      const int bits = i % 4 == 0 ? 11 : 8;
      v = std::ldexp(std::floor(std::ldexp(significand, bits - 1)) + 0.5, exponent - (bits - 1));
    }
    if (r & (uint64_t{1} << 40)) v = -v;
    const _Float16 h = static_cast<_Float16>(v);
    uint16_t expected_f16;
    std::memcpy(&expected_f16, &h, sizeof expected_f16);
    ASSERT_EQ(f16_bits(v), expected_f16) << std::hexfloat << v;
    ASSERT_EQ(round_to_float_dtype(v, DType::f16), static_cast<double>(h)) << std::hexfloat << v;
    if (std::fabs(v) <= 0x1.fffffep127) {  // beyond, the construction's f32 step is undefined
      ASSERT_EQ(bf16_bits(v), bf16_bits_by_round_to_odd(v)) << std::hexfloat << v;
      ASSERT_EQ(round_to_float_dtype(v, DType::bf16), bf16_value(bf16_bits_by_round_to_odd(v))) << std::hexfloat << v;
    }
  }
}

TEST(FloatFormat, IntegerConversions) {
  EXPECT_EQ(float_to_int_dtype(1e30, DType::i64), INT64_MAX);
  EXPECT_EQ(float_to_int_dtype(-1e30, DType::i32), INT32_MIN);
  EXPECT_EQ(float_to_int_dtype(-0.9, DType::u8), 0);
  EXPECT_EQ(float_to_int_dtype(255.9, DType::u8), 255);
  EXPECT_EQ(float_to_int_dtype(NAN, DType::i8), 0);
  EXPECT_EQ(wrap_to_int_dtype(256 + 255, DType::u8), 255);
  EXPECT_EQ(wrap_to_int_dtype(int64_t{1} << 31, DType::i32), INT32_MIN);
  // 2^60 + 1 has one set bit past f32's precision: rounds to 2^60 in a single step.
  EXPECT_EQ(round_int_to_float_dtype((int64_t{1} << 60) + 1, DType::f32), std::ldexp(1.0, 60));
  // 2^63 - 1 in bf16 rounds up to 2^63.
  EXPECT_EQ(round_int_to_float_dtype(INT64_MAX, DType::bf16), std::ldexp(1.0, 63));
  EXPECT_EQ(round_int_to_float_dtype(-(int64_t{1} << 40) - 1, DType::f16), -INFINITY);
}

TEST(TensorContainer, StoresEveryDtypeAndHashes) {
  for (DType t : kAllDTypes) {
    Tensor x(t, {4});
    x.set(1, 3);
    EXPECT_EQ(x.get(1), is_bool(t) ? 1 : 3) << dtype_name(t);
    EXPECT_EQ(x.get(0), 0) << dtype_name(t);
    EXPECT_EQ(static_cast<int64_t>(x.nbytes()), 4 * dtype_bytes(t));
  }
  Tensor a = Tensor::from_ints(DType::i32, {2}, {1, 2}), b = a;
  EXPECT_EQ(a.hash(), b.hash());
  b.set_int(1, 3);
  EXPECT_NE(a.hash(), b.hash());
  EXPECT_THROW(Tensor(DType::f32, {1 << 21, 1 << 21}), UserError);
}

}  // namespace
}  // namespace difftest
