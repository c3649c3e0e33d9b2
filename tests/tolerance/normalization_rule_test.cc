// The normalization rules' inherited errors (tolerance/rules/normalization.cc). An rms_norm of
// a row whose elements carry independent errors of relative size eps moves each output by
// about eps: the scale 1/rms averages the errors of the whole row. The deterministic rule adds
// every error to the row's sum of squares with its sign taken against it (2 eps there, eps in
// the scale after the square root, 2 eps in all); the probabilistic rule adds them in
// quadrature (lambda / sqrt 3 * 2 eps sqrt(sum x^4) / sum x^2 there, about 0.4 eps in the scale
// for a row of 256 normal values). Input errors are set
// directly (rebound_program), and the perturbed results are computed here in f64 from the op's
// definition, independently of the rules and of the reference interpreter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "tests/support/bound_util.h"

namespace difftest::tolerance {
namespace {

constexpr int64_t kRows = 8, kWidth = 256;
constexpr double kEps = 1e-3;  // the input's relative error

const char* kRmsNorm = R"(program @norm() {
  %x0: f32[8, 256] = param
  %g: f32[256] = param
  %x: f32[8, 256] = neg(%x0)
  %y: f32[8, 256] = rms_norm(%x, %g, eps=1e-05)
  return %y, %x
}
)";

using NormBounds = testing::InheritedErrorBounds;

// The bounds of %y when every element of %x carries an error of kEps |x|.
NormBounds bounds_of(BoundMode mode) {
  NormBounds b = testing::bounds_with_relative_errors(kRmsNorm, "norm.ir", 7, mode, kEps);
  EXPECT_EQ(b.y_uncertain, 0u);
  return b;
}

double median_relative(const NormBounds& b) {
  std::vector<double> r;
  for (size_t i = 0; i < b.y.size(); ++i) {
    if (b.y[i] != 0) r.push_back(b.y_err[i] / std::fabs(b.y[i]));
  }
  std::nth_element(r.begin(), r.begin() + static_cast<std::ptrdiff_t>(r.size() / 2), r.end());
  return r[r.size() / 2];
}

// rms_norm of one row of x' in f64: x' g / sqrt(mean(x'^2) + 1e-5).
void rms_norm_row(const std::vector<double>& x, const std::vector<double>& g, int64_t row, std::vector<double>& y) {
  double sq = 0;
  for (int64_t j = 0; j < kWidth; ++j)
    sq += x[static_cast<size_t>(row * kWidth + j)] * x[static_cast<size_t>(row * kWidth + j)];
  const double scale = 1 / std::sqrt(sq / kWidth + 1e-5);
  for (int64_t j = 0; j < kWidth; ++j) {
    const auto at = static_cast<size_t>(row * kWidth + j);
    y[at] = x[at] * scale * g[static_cast<size_t>(j)];
  }
}

TEST(NormalizationRule, ProbabilisticRmsNormDoesNotCompoundAnInheritedRelativeError) {
  const double deterministic = median_relative(bounds_of(BoundMode::Deterministic));
  const double probabilistic = median_relative(bounds_of(BoundMode::Probabilistic));
  EXPECT_GT(deterministic, 1.9 * kEps);
  EXPECT_LT(probabilistic, 1.5 * kEps);
}

// Sampled soundness at the probabilistic mode's confidence: independent errors spread uniformly
// over the input's bounds (the mode's model of a bound: about sqrt 3 standard deviations of the
// error) move no output beyond its bound. Errors all at one end of their intervals with random
// signs are outside that model, as they are for sums (docs/tolerance.md).
TEST(NormalizationRule, ProbabilisticRmsNormBoundsHoldForIndependentInputErrors) {
  const NormBounds b = bounds_of(BoundMode::Probabilistic);
  const std::vector<double> g = b.inputs.at("g").to_doubles();
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(-1, 1);
  double worst = 0;
  std::vector<double> x(b.x.size()), y(b.y.size());
  for (int trial = 0; trial < 200; ++trial) {
    for (size_t i = 0; i < x.size(); ++i) x[i] = b.x[i] + unit(rng) * b.x_err[i];
    for (int64_t r = 0; r < kRows; ++r) rms_norm_row(x, g, r, y);
    for (size_t i = 0; i < y.size(); ++i) worst = std::max(worst, std::fabs(y[i] - b.y[i]) / b.y_err[i]);
  }
  EXPECT_LE(worst, 1.0);
  EXPECT_GT(worst, 0.5);  // the bound is not loose: the elements' own errors reach most of it
}

}  // namespace
}  // namespace difftest::tolerance
