// Golden values for reductions and matrix products, derived by hand.
#include <gtest/gtest.h>

#include "tests/support/golden.h"

namespace difftest {
namespace {

using reference::Mode;

using testing::kA;

TEST(GoldenReduction, AxesKeepdimsAndAll) {
  EXPECT_GOLDEN({kA + "  %r: f32[] = sum(%a)", {}, {21}});
  EXPECT_GOLDEN({kA + "  %r: f32[2, 1] = sum(%a, axes=[-1], keepdims=true)", {2, 1}, {6, 15}});
  EXPECT_GOLDEN({kA + "  %r: f32[3] = mean(%a, axes=[0])", {3}, {2.5, 3.5, 4.5}});
  EXPECT_GOLDEN({kA + "  %r: f32[1, 1] = mean(%a, axes=[0, 1], keepdims=true)", {1, 1}, {3.5}});
  EXPECT_GOLDEN({kA + "  %r: f32[2] = max(%a, axes=[1])", {2}, {3, 6}});
  EXPECT_GOLDEN({kA + "  %r: f32[3] = min(%a, axes=[-2])", {3}, {1, 2, 3}});
  EXPECT_GOLDEN({kA + "  %r: f32[2] = prod(%a, axes=[1])", {2}, {6, 120}});
  EXPECT_GOLDEN({"  %a: i32[2, 3] = const [[1, 2, 3], [4, 5, 6]]\n  %r: i32[3] = prod(%a, axes=[0])", {3}, {4, 10, 18}});
  // Integer sums wrap: 100 + 100 = 200 -> -56 in i8.
  EXPECT_GOLDEN({"  %a: i8[2] = const [100, 100]\n  %r: i8[] = sum(%a)", {}, {-56}});
}

TEST(GoldenReduction, ArgmaxTiesGoToTheFirstIndex) {
  const std::string a = "  %a: f32[2, 3] = const [[1, 3, 3], [5, 0, 5]]\n";
  EXPECT_GOLDEN({a + "  %r: i64[2] = argmax(%a, axis=1)", {2}, {1, 0}});
  EXPECT_GOLDEN({a + "  %r: i64[2] = argmin(%a, axis=-1)", {2}, {0, 1}});
  EXPECT_GOLDEN({a + "  %r: i64[1, 3] = argmax(%a, axis=0, keepdims=true)", {1, 3}, {1, 0, 1}});
}

TEST(GoldenReduction, NarrowAccumulatorStallsAsDeclared) {
  // Summing 4096 ones in f16 stops at 2048 (2048 + 1 rounds back to 2048); with acc=f32 it is
  // 4096, which f16 represents exactly.
  const std::string ones = "  %a: f16[4096] = ones(shape=[4096], dtype=f16)\n";
  EXPECT_GOLDEN({ones + "  %r: f16[] = sum(%a)", {}, {2048}, 0, Mode::Native});
  EXPECT_GOLDEN({ones + "  %r: f16[] = sum(%a, acc=f32)", {}, {4096}, 0, Mode::Native});
  EXPECT_GOLDEN({ones + "  %r: f16[] = sum(%a)", {}, {4096}, 0, Mode::F64});
}

TEST(GoldenLinalg, MatmulTransposesAndBatches) {
  const std::string ab = "  %a: f32[2, 2] = const [[1, 2], [3, 4]]\n  %b: f32[2, 2] = const [[5, 6], [7, 8]]\n";
  EXPECT_GOLDEN({ab + "  %r: f32[2, 2] = matmul(%a, %b)", {2, 2}, {19, 22, 43, 50}});
  EXPECT_GOLDEN({ab + "  %r: f32[2, 2] = matmul(%a, %b, transpose_b=true)", {2, 2}, {17, 23, 39, 53}});
  EXPECT_GOLDEN({ab + "  %r: f32[2, 2] = matmul(%a, %b, transpose_a=true)", {2, 2}, {26, 30, 38, 44}});
  EXPECT_GOLDEN({ab + "  %r: f32[2, 2] = matmul(%a, %b, transpose_a=true, transpose_b=true)", {2, 2}, {23, 31, 34, 46}});
  EXPECT_GOLDEN({"  %a: f32[2, 1, 2] = const [[[1, 0]], [[0, 1]]]\n  %b: f32[2, 2] = const [[1, 2], [3, 4]]\n"
         "  %r: f32[2, 1, 2] = matmul(%a, %b)",
         {2, 1, 2}, {1, 2, 3, 4}});
  for (Mode m : {Mode::F64, Mode::Native}) {
    EXPECT_GOLDEN({"  %a: f16[1, 3] = const [[1, 2, 3]]\n  %b: f16[3, 1] = const [[4], [5], [6]]\n"
           "  %r: f16[1, 1] = matmul(%a, %b, acc=f32)",
           {1, 1}, {32}, 0, m});
  }
}

TEST(GoldenLinalg, LinearWithBias) {
  EXPECT_GOLDEN({"  %x: f32[1, 2] = const [[1, 2]]\n  %w: f32[2, 2] = const [[1, 1], [2, 0]]\n  %b: f32[2] = const [10, 20]\n"
         "  %r: f32[1, 2] = linear(%x, %w, %b)",
         {1, 2}, {13, 22}});
  EXPECT_GOLDEN({"  %x: f64[2, 1, 3] = const [[[1, 0, 0]], [[0, 0, 1]]]\n  %w: f64[2, 3] = const [[1, 2, 3], [4, 5, 6]]\n"
         "  %r: f64[2, 1, 2] = linear(%x, %w)",
         {2, 1, 2}, {1, 4, 3, 6}});
}

}  // namespace
}  // namespace difftest
