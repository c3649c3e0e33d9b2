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

// Softmax of scores perturbed within their bounds, in f64 from the definition.
std::vector<double> softmax_of(const std::vector<double>& x) {
  const double m = *std::max_element(x.begin(), x.end());
  double s = 0;
  for (double v : x) s += std::exp(v - m);
  std::vector<double> y;
  for (double v : x) y.push_back(std::exp(v - m) / s);
  return y;
}

// Seed 3003806's false alarm: a softmax over an axis of one element, whose score had inherited
// a bound of several hundred (beyond exp's range), got a bound of -0.996 and every correct
// result (exactly 1) was a mismatch. A one-element row is exact whatever its input's bound.
TEST(NormalizationRule, SoftmaxOfOneElementIsExactWhateverTheInputBound) {
  for (double input_bound : {0.0, 1.0, 300.0, 800.0, 1e6}) {
    std::vector<double> y, ey;
    ASSERT_TRUE(softmax_bound({2.5}, {input_bound}, DType::f32, Options{}, y, ey));
    EXPECT_EQ(y[0], 1.0) << input_bound;
    EXPECT_GE(ey[0], 0.0) << input_bound;
    EXPECT_LT(ey[0], 1e-5) << input_bound;  // only the roundings of exp, sum and division
  }
}

// Scores with bounds from small to beyond exp's range: every bound is non-negative, none
// claims more than [0, 1] allows, and the corners (each score at an end of its interval) stay
// inside them.
TEST(NormalizationRule, SoftmaxBoundsHoldAtTheCornersForHugeInputBounds) {
  const std::vector<double> x = {0.5, -1.0, 3.0, 2.0};
  for (double scale : {0.01, 1.0, 50.0, 400.0, 1000.0}) {
    const std::vector<double> ex = {scale, 2 * scale, 0.5 * scale, scale};
    std::vector<double> y, ey;
    ASSERT_TRUE(softmax_bound(x, ex, DType::f32, Options{}, y, ey));
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_GE(ey[i], 0.0) << scale;
      EXPECT_LE(ey[i], 1.01) << scale;
    }
    for (unsigned corner = 0; corner < 16; ++corner) {
      std::vector<double> xp = x;
      for (size_t j = 0; j < x.size(); ++j) xp[j] += (corner >> j & 1) ? ex[j] : -ex[j];
      const std::vector<double> yp = softmax_of(xp);
      for (size_t i = 0; i < x.size(); ++i) EXPECT_LE(std::fabs(yp[i] - y[i]), ey[i]) << scale << " " << corner;
    }
  }
}

}  // namespace
}  // namespace difftest::tolerance
