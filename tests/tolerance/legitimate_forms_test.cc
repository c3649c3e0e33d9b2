// Each legitimate form of docs/tolerance.md ("Legitimate forms") is accepted by both tiers: a
// stand-in implementation written here in f32, independent of the reference and its ensemble,
// computes the op in that form over many random cases, and no element of its result is a
// mismatch or an outlier. The forms are those correct kernel libraries use; a form missing from
// the tiers made false findings (ONNX Runtime's folded InstanceNorm, its absolute-error Sigmoid).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "tests/support/ir_util.h"
#include "tolerance/compare.h"
#include "tolerance/ensemble.h"

namespace difftest::tolerance {
namespace {

using Rng = std::mt19937_64;

// `got` against both tiers, as the oracle judges an output (probabilistic bounds, 8 members).
OutputComparison judge(const Program& p, const std::map<std::string, Tensor>& inputs, const Tensor& got) {
  Options opt;
  opt.mode = BoundMode::Probabilistic;
  const BoundedProgram sound = bound_program(p, {}, inputs, opt);
  EXPECT_FALSE(sound.invalid) << sound.invalid_reason;
  const Calibration cal = calibrate(p, {}, inputs, sound, opt, EnsembleOptions{});
  OutputComparison o = compare_output(*sound.outputs[0], got, opt);
  compare_statistically(*sound.outputs[0], *cal.bounds.outputs[0], cal.outputs[0], got, opt, cal.options, o);
  return o;
}

std::vector<float> normal_floats(Rng& g, size_t n, float mean, float sd) {
  std::normal_distribution<float> d(mean, sd);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

Tensor f32(const std::vector<float>& v, std::vector<int64_t> shape) {
  return Tensor::from_doubles(DType::f32, std::move(shape), std::vector<double>(v.begin(), v.end()));
}

void expect_accepted(const OutputComparison& o, const std::string& what) {
  EXPECT_EQ(o.failing, 0) << what << ": worst ratio " << o.worst_ratio << " got " << o.got << " want " << o.want;
  EXPECT_EQ(o.outliers, 0) << what << ": worst excess " << o.worst_excess << " got " << o.excess_got << " want "
                           << o.excess_want;
}

// ONNX Runtime's LayerNormalization and InstanceNormalization, PyTorch's CPU batch norm: the
// variance in one pass and the affine step folded, y = x * s + (b - mean * s). Rows of 1..48
// values whose mean is up to 8 standard deviations from 0 (where the one-pass variance and the
// folded products lose the most), and rows of one value (where y is not exactly b).
TEST(LegitimateForms, AOneFoldedLayerNormIsAccepted) {
  Rng g(42);
  for (int trial = 0; trial < 120; ++trial) {
    const int64_t n = trial % 10 == 0 ? 1 : 1 + static_cast<int64_t>(g() % 48);
    const float eps = trial % 2 ? 1e-5f : 1e-6f;
    const float mean = std::uniform_real_distribution<float>(-8, 8)(g);
    const std::vector<float> x = normal_floats(g, static_cast<size_t>(2 * n), mean, 1);
    const std::vector<float> gamma = normal_floats(g, static_cast<size_t>(n), 1, 0.5f);
    const std::vector<float> beta = normal_floats(g, static_cast<size_t>(n), 0, 1);
    const Program p = testing::verified_program(
        fmt::format("program @ln() {{\n  %x: f32[2, {0}] = param\n  %g: f32[{0}] = param\n  %b: f32[{0}] = param\n"
                    "  %y: f32[2, {0}] = layer_norm(%x, %g, %b, eps={1}, acc=f32)\n  return %y\n}}\n",
                    n, static_cast<double>(eps)),
        "ln.ir");
    std::vector<float> y(x.size());
    for (int64_t row = 0; row < 2; ++row) {
      const float* r = x.data() + row * n;
      float sum = 0, sum_sq = 0;
      for (int64_t i = 0; i < n; ++i) {
        sum += r[i];
        sum_sq += r[i] * r[i];
      }
      const float mu = sum / static_cast<float>(n);
      const float var = std::max(0.0f, sum_sq / static_cast<float>(n) - mu * mu);
      const float inv = 1.0f / std::sqrt(var + eps);
      for (int64_t i = 0; i < n; ++i) {
        const float s = inv * gamma[static_cast<size_t>(i)];
        const float shift = beta[static_cast<size_t>(i)] - mu * s;
        y[static_cast<size_t>(row * n + i)] = r[i] * s + shift;
      }
    }
    const std::map<std::string, Tensor> inputs = {{"x", f32(x, {2, n})}, {"g", f32(gamma, {n})}, {"b", f32(beta, {n})}};
    expect_accepted(judge(p, inputs, f32(y, {2, n})), fmt::format("trial {} (n = {}, mean {})", trial, n, mean));
  }
}

// An elementwise op computed by `form` in f32 over 512 values of x (and y) drawn by `draw`.
void expect_elementwise_form(const std::string& op_text, int operands, const std::function<float(Rng&)>& draw,
                             const std::function<float(float, float)>& form, const std::string& what) {
  Rng g(7);
  std::vector<float> x(512), y(512), got(512);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = draw(g);
    y[i] = draw(g);
    got[i] = form(x[i], y[i]);
  }
  const std::string params = operands == 2 ? "  %x: f32[512] = param\n  %y: f32[512] = param\n" : "  %x: f32[512] = param\n";
  const Program p = testing::verified_program(
      fmt::format("program @f() {{\n{}  %r: f32[512] = {}\n  return %r\n}}\n", params, op_text), "form.ir");
  std::map<std::string, Tensor> inputs = {{"x", f32(x, {512})}};
  if (operands == 2) inputs["y"] = f32(y, {512});
  expect_accepted(judge(p, inputs, f32(got, {512})), what);
}

float sigmoid_by_tanh(float x) { return 0.5f + 0.5f * std::tanh(0.5f * x); }

// 0.5 + 0.5 tanh(x / 2): an absolute error of a few u, ONNX Runtime's f32 Sigmoid's.
TEST(LegitimateForms, SigmoidThroughTanhIsAccepted) {
  expect_elementwise_form(
      "sigmoid(%x)", 1, [](Rng& g) { return std::uniform_real_distribution<float>(-20, 20)(g); },
      [](float x, float) { return sigmoid_by_tanh(x); }, "sigmoid as 0.5 + 0.5 tanh(x / 2)");
}

// SiLU as ONNX exporters write it, Sigmoid then Mul, with that sigmoid.
TEST(LegitimateForms, SiluAsXTimesSigmoidIsAccepted) {
  expect_elementwise_form(
      "silu(%x)", 1, [](Rng& g) { return std::uniform_real_distribution<float>(-20, 20)(g); },
      [](float x, float) { return x * sigmoid_by_tanh(x); }, "silu as x * sigmoid(x)");
}

// Division as multiplication by the rounded reciprocal (vectorized kernels, fast-math).
TEST(LegitimateForms, DivisionByTheReciprocalIsAccepted) {
  expect_elementwise_form(
      "div(%x, %y)", 2,
      [](Rng& g) {
        const float m = std::uniform_real_distribution<float>(0.1f, 10)(g);
        return g() % 2 ? m : -m;
      },
      [](float x, float y) { return x * (1.0f / y); }, "x * (1 / y)");
}

// floor_mod as TVM lowers a float floormod, a - floor(a / b) * b, each step rounded in f32: its
// product rounds at |a|, not at the remainder, and a quotient just below an integer may round up
// to it (the remainder then just below 0: one of the decision's outcomes).
TEST(LegitimateForms, FloorModThroughTheQuotientIsAccepted) {
  Rng g(11);
  std::vector<float> x(512), y(512), got(512);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = std::uniform_real_distribution<float>(-1000, 1000)(g);
    const float m = std::uniform_real_distribution<float>(0.1f, 10)(g);
    y[i] = g() % 2 ? m : -m;
    const float k = std::floor(x[i] / y[i]);
    got[i] = x[i] - k * y[i];
  }
  const Program p = testing::verified_program(
      "program @f() {\n  %x: f32[512] = param\n  %y: f32[512] = param\n  %r: f32[512] = floor_mod(%x, %y)\n"
      "  return %r\n}\n",
      "form.ir");
  expect_accepted(judge(p, {{"x", f32(x, {512})}, {"y", f32(y, {512})}}, f32(got, {512})), "a - floor(a / b) * b");
}

// Rows of n scores with a mean up to 40 from 0 (where the normalizer max + log(sum) is large),
// softmax'd by `form` in f32 along the last axis.
void expect_row_form(const std::string& op, float mean_range,
                     const std::function<void(const float*, int64_t, float*)>& form, const std::string& what) {
  Rng g(5);
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t n = 1 + static_cast<int64_t>(g() % 64);
    const float mean = std::uniform_real_distribution<float>(-mean_range, mean_range)(g);
    const std::vector<float> x = normal_floats(g, static_cast<size_t>(4 * n), mean, 3);
    std::vector<float> y(x.size());
    for (int64_t row = 0; row < 4; ++row) form(x.data() + row * n, n, y.data() + row * n);
    const Program p = testing::verified_program(
        fmt::format("program @s() {{\n  %x: f32[4, {0}] = param\n  %y: f32[4, {0}] = {1}(%x, axis=1)\n"
                    "  return %y\n}}\n",
                    n, op),
        "rows.ir");
    expect_accepted(judge(p, {{"x", f32(x, {4, n})}}, f32(y, {4, n})),
                    fmt::format("{}: trial {} (n = {}, mean {})", what, trial, n, mean));
  }
}

// PyTorch's CPU log_softmax: x - (max + log(sum exp(x - max))), the normalizer rounded at its own
// magnitude.
TEST(LegitimateForms, LogSoftmaxAsXMinusTheNormalizerIsAccepted) {
  expect_row_form(
      "log_softmax", 40,
      [](const float* x, int64_t n, float* y) {
        const float m = *std::max_element(x, x + n);
        float sum = 0;
        for (int64_t i = 0; i < n; ++i) sum += std::exp(x[i] - m);
        const float normalizer = m + std::log(sum);
        for (int64_t i = 0; i < n; ++i) y[i] = x[i] - normalizer;
      },
      "x - (max + log(sum))");
}

// Softmax without the max subtracted, where exp stays in f32's range.
TEST(LegitimateForms, SoftmaxWithoutTheMaxIsAccepted) {
  expect_row_form(
      "softmax", 30,
      [](const float* x, int64_t n, float* y) {
        float sum = 0;
        for (int64_t i = 0; i < n; ++i) sum += std::exp(x[i]);
        for (int64_t i = 0; i < n; ++i) y[i] = std::exp(x[i]) / sum;
      },
      "exp(x) / sum exp(x)");
}

}  // namespace
}  // namespace difftest::tolerance
