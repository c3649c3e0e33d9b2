// A product's inherited errors are a worst case (tolerance/rules/reduction_linalg.cc): in
// probabilistic mode its sd must still count them, or a sum downstream loses them. The
// perturbed results are computed here in f64 from the ops' definitions.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "tests/support/bound_util.h"

namespace difftest::tolerance {
namespace {

constexpr int64_t kProductRows = 64, kFactors = 8;

TEST(ProductRule, ASumOfProductsOfPerturbedFactorsStaysWithinItsProbabilisticBound) {
  const testing::InheritedErrorBounds b =
      testing::bounds_with_relative_errors(R"(program @prods() {
  %x0: f32[64, 8] = param
  %x: f32[64, 8] = neg(%x0)
  %p: f32[64] = prod(%x, axes=[1])
  %y: f32[] = sum(%p, axes=[0])
  return %y, %x
}
)",
                                           "prods.ir", 9, BoundMode::Probabilistic, 1e-3);
  ASSERT_EQ(b.y_uncertain, 0u);
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> unit(-1, 1);
  double worst = 0;
  for (int trial = 0; trial < 500; ++trial) {
    double y = 0;
    for (int64_t r = 0; r < kProductRows; ++r) {
      double p = 1;
      for (int64_t k = 0; k < kFactors; ++k) {
        const auto i = static_cast<size_t>(r * kFactors + k);
        p *= b.x[i] + unit(rng) * b.x_err[i];
      }
      y += p;
    }
    worst = std::max(worst, std::fabs(y - b.y[0]) / b.y_err[0]);
  }
  EXPECT_LE(worst, 1.0);
  EXPECT_GT(worst, 0.05) << "the sample should reach a fair part of the bound";
}

}  // namespace
}  // namespace difftest::tolerance
