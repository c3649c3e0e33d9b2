// Golden values for softmax and the normalization layers, derived by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/support/golden.h"

namespace difftest {
namespace {

using reference::Mode;

TEST(GoldenNormalization, SoftmaxEqualRowsAndLargeSpread) {
  EXPECT_GOLDEN({"  %a: f32[4] = const [3, 3, 3, 3]\n  %r: f32[4] = softmax(%a)", {4}, {0.25, 0.25, 0.25, 0.25}});
  // exp(-1000) underflows to 0 after the max subtraction; without it exp(1000) would be inf.
  for (Mode m : {Mode::F64, Mode::Native}) {
    EXPECT_GOLDEN({"  %a: f32[2] = const [0, 1000]\n  %r: f32[2] = softmax(%a)", {2}, {0, 1}, 0, m});
  }
  EXPECT_GOLDEN({"  %a: f64[2, 2] = const [[0, 0], [0, 1]]\n  %r: f64[2, 2] = softmax(%a, axis=0)", {2, 2},
         {0.5, 1 / (1 + M_E), 0.5, M_E / (1 + M_E)}, 1e-15});
  EXPECT_GOLDEN({"  %a: f64[2] = const [0, 0]\n  %r: f64[2] = log_softmax(%a)", {2}, {-M_LN2, -M_LN2}, 1e-15});
  EXPECT_GOLDEN({"  %a: f64[2] = const [0, 1000]\n  %r: f64[2] = log_softmax(%a)", {2}, {-1000, 0}, 1e-12});
}

TEST(GoldenNormalization, RmsNorm) {
  // rms = sqrt((9 + 16) / 2) = sqrt(12.5).
  const double r = std::sqrt(12.5);
  EXPECT_GOLDEN({"  %a: f64[2] = const [3, 4]\n  %w: f64[2] = const [1, 1]\n  %r: f64[2] = rms_norm(%a, %w, eps=0)", {2},
         {3 / r, 4 / r}, 1e-15});
  EXPECT_GOLDEN({"  %a: f64[2] = const [3, 4]\n  %w: f64[2] = const [0, 1]\n"
         "  %r: f64[2] = rms_norm(%a, %w, eps=0, weight_offset=1)",
         {2}, {3 / r, 8 / r}, 1e-15});
  // Tiny variance: 1e-4 / sqrt(1e-8 + 1e-6) = 0.1 / sqrt(1.01).
  EXPECT_GOLDEN({"  %a: f64[2] = const [0.0001, 0.0001]\n  %w: f64[2] = const [1, 1]\n  %r: f64[2] = rms_norm(%a, %w)", {2},
         {0.1 / std::sqrt(1.01), 0.1 / std::sqrt(1.01)}, 1e-15});
  // Along axis 0 of a [2, 2] matrix: columns (3, 4) and (0, 2).
  EXPECT_GOLDEN({"  %a: f64[2, 2] = const [[3, 0], [4, 2]]\n  %w: f64[2] = const [1, 1]\n"
         "  %r: f64[2, 2] = rms_norm(%a, %w, axis=0, eps=0)",
         {2, 2}, {3 / r, 0, 4 / r, std::sqrt(2.0)}, 1e-15});
}

TEST(GoldenNormalization, LayerGroupInstanceNorm) {
  // A constant row has zero variance: the output is beta (eps keeps it finite).
  EXPECT_GOLDEN({"  %a: f32[3] = const [5, 5, 5]\n  %g: f32[3] = const [1, 2, 3]\n  %b: f32[3] = const [0.5, 0.5, 0.5]\n"
         "  %r: f32[3] = layer_norm(%a, %g, %b)",
         {3}, {0.5, 0.5, 0.5}});
  EXPECT_GOLDEN({"  %a: f64[2] = const [1, 3]\n  %g: f64[2] = const [2, 3]\n  %b: f64[2] = const [10, 20]\n"
         "  %r: f64[2] = layer_norm(%a, %g, %b, eps=0)",
         {2}, {8, 23}});
  // Two groups of two channels: (1, 3) and (10, 30) both normalize to (-1, 1).
  EXPECT_GOLDEN({"  %a: f64[1, 4, 1] = const [[[1], [3], [10], [30]]]\n  %g: f64[4] = const [1, 1, 1, 2]\n"
         "  %b: f64[4] = const [0, 0, 0, 5]\n  %r: f64[1, 4, 1] = group_norm(%a, %g, %b, num_groups=2, eps=0)",
         {1, 4, 1}, {-1, 1, -1, 7}});
  const double s = 1 / std::sqrt(1 + 1e-5);
  EXPECT_GOLDEN({"  %a: f64[1, 2, 2] = const [[[0, 2], [5, 5]]]\n  %g: f64[2] = const [1, 1]\n  %b: f64[2] = const [0, 0]\n"
         "  %r: f64[1, 2, 2] = instance_norm(%a, %g, %b)",
         {1, 2, 2}, {-s, s, 0, 0}, 1e-15});
}

}  // namespace
}  // namespace difftest
