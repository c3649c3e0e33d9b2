// The rope rule (tolerance/rules/attention.cc): inherited errors rotate with the pair they
// belong to. The perturbed rotations are computed here from the op's definition, with angles,
// cos and sin in f32 (what the op allows), independently of the rules and the reference.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "tests/support/bound_util.h"

namespace difftest::tolerance {
namespace {

constexpr int64_t kRopeSeq = 4, kRopeHeads = 2, kRopeDim = 16, kRopeOffset = 500;
constexpr double kRopeTheta = 10000, kRopeInputError = 1e-3;  // kRopeInputError: the input's relative error

testing::InheritedErrorBounds bounds_with_input_errors(BoundMode mode) {
  return testing::bounds_with_relative_errors(R"(program @rot() {
  %x0: f32[1, 4, 2, 16] = param
  %x: f32[1, 4, 2, 16] = neg(%x0)
  %y: f32[1, 4, 2, 16] = rope(%x, theta=10000, offset=500)
  return %y, %x
}
)",
                                              "rope.ir", 3, mode, kRopeInputError);
}

// The flat index of element (s, h, d) of the only batch.
size_t rope_index(int64_t s, int64_t h, int64_t d) { return static_cast<size_t>((s * kRopeHeads + h) * kRopeDim + d); }

TEST(RopeRule, RotationsOfPerturbedInputsWithF32AnglesStayWithinTheBound) {
  const testing::InheritedErrorBounds b = bounds_with_input_errors(BoundMode::Deterministic);
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> sign(0, 1);
  double worst = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> x(b.x.size());
    for (size_t i = 0; i < x.size(); ++i) x[i] = b.x[i] + (sign(rng) ? 1 : -1) * b.x_err[i];
    for (int64_t s = 0; s < kRopeSeq; ++s) {
      for (int64_t h = 0; h < kRopeHeads; ++h) {
        for (int64_t i = 0; i < kRopeDim / 2; ++i) {
          const float angle = static_cast<float>(kRopeOffset + s) *
                              std::pow(static_cast<float>(kRopeTheta), -2.0f * static_cast<float>(i) / kRopeDim);
          const double c = std::cos(angle), sn = std::sin(angle);
          const size_t i1 = rope_index(s, h, i), i2 = rope_index(s, h, i + kRopeDim / 2);
          const double y1 = x[i1] * c - x[i2] * sn, y2 = x[i1] * sn + x[i2] * c;
          worst = std::max({worst, std::fabs(y1 - b.y[i1]) / b.y_err[i1], std::fabs(y2 - b.y[i2]) / b.y_err[i2]});
        }
      }
    }
  }
  EXPECT_LE(worst, 1.0);
  EXPECT_GT(worst, 0.3) << "the sample should come near the bound";
}

// Where the angle is small (the last pairs, at low frequency), out1 = x1 cos - x2 sin takes
// almost nothing of x2's error: its bound stays well below e1 + e2.
TEST(RopeRule, ASmallAngleTakesLittleOfThePartnersError) {
  const testing::InheritedErrorBounds b = bounds_with_input_errors(BoundMode::Deterministic);
  int checked = 0;
  for (int64_t s = 0; s < kRopeSeq; ++s) {
    for (int64_t h = 0; h < kRopeHeads; ++h) {
      const int64_t i = kRopeDim / 2 - 1;
      const double angle =
          static_cast<double>(kRopeOffset + s) * std::pow(kRopeTheta, -2.0 * static_cast<double>(i) / kRopeDim);
      ASSERT_LT(std::fabs(std::sin(angle)), 0.3);
      const size_t i1 = rope_index(s, h, i), i2 = rope_index(s, h, i + kRopeDim / 2);
      EXPECT_LT(b.y_err[i1], b.x_err[i1] + 0.5 * b.x_err[i2]);
      ++checked;
    }
  }
  EXPECT_EQ(checked, kRopeSeq * kRopeHeads);
}

}  // namespace
}  // namespace difftest::tolerance
