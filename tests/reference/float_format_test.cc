// Conversions to f16 and bf16: one correct rounding (ties to even), never two.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cmath>
#include <cstring>
#include <limits>

#include "compiler/ir/diagnostics.h"
#include "compiler/tensor/float_format.h"
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
