// The half-precision forms (tolerance/half_forms.h) the ensemble evaluates beside its members:
// each form's row of deviations is what that form computes, with the expected values computed
// here in C++ float arithmetic (f32 rounds to nearest, as IEEE says) and rounded by
// float_format, never by the reference; each allowance covers them; a report names a form
// when the result is that form's value.
#include "tolerance/half_forms.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "compiler/tensor/float_format.h"
#include "reference/inputs.h"
#include "tests/support/ir_util.h"
#include "tolerance/bounds.h"
#include "tolerance/ensemble.h"

namespace difftest::tolerance {
namespace {

struct Calibrated {
  Program program;
  std::map<std::string, Tensor> inputs;
  Options options;
  BoundedProgram sound;
  Calibration calibration;
};

Calibrated calibrated(const std::string& text, bool half_in_f32) {
  Calibrated c{testing::verified_program(text, "half_forms.ir"), {}, {}, {}, {}};
  c.inputs = reference::generate_inputs(c.program, {}, 3);
  c.options.mode = BoundMode::Probabilistic;
  c.options.half_may_compute_in_f32 = half_in_f32;
  c.sound = bound_program(c.program, {}, c.inputs, c.options);
  c.calibration = calibrate(c.program, {}, c.inputs, c.sound, c.options, EnsembleOptions{});
  return c;
}

const char* kF16Chain = R"(program @chain() {
  %x: f16[64] = param
  %y: f16[64] = param
  %p: f16[64] = mul(%x, %y)
  %s: f16[64] = add(%p, %x)
  %t: f16[64] = mul(%s, %s)
  return %t
}
)";

// x*y + x, squared, in f32, rounded to f16 once at the output.
std::vector<double> chain_in_f32(const Calibrated& c) {
  const Tensor& x = c.inputs.at("x");
  const Tensor& y = c.inputs.at("y");
  std::vector<double> out;
  for (int64_t i = 0; i < x.numel(); ++i) {
    const float xf = static_cast<float>(x.get(i)), yf = static_cast<float>(y.get(i));
    const volatile float p = xf * yf;  // volatile: rounded to f32 here, never contracted into an FMA
    const float s = p + xf;
    const float t = s * s;
    out.push_back(round_to_float_dtype(static_cast<double>(t), DType::f16));
  }
  return out;
}

TEST(HalfForms, F16ComputedInF32IsARowOfTheEnsembleWhereTheBackendMayComputeHalfInF32) {
  const Calibrated c = calibrated(kF16Chain, true);
  const int members = EnsembleOptions{}.members;
  const OutputSpread& spread = c.calibration.outputs[0];
  ASSERT_EQ(spread.deviation.size(), static_cast<size_t>(members + 1));
  const std::vector<double> want = chain_in_f32(c);
  const std::vector<double>& r = c.sound.outputs[0]->ref;
  const std::vector<double>& form = spread.deviation[static_cast<size_t>(members)];
  int differs_from_f16 = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(form[i], want[i] - r[i]) << "element " << i;
    EXPECT_LE(std::fabs(form[i]), c.calibration.bounds.outputs[0]->err[i]) << "element " << i;
    if (form[i] != spread.deviation[0][i]) ++differs_from_f16;
  }
  // The form is not native f16 under another name: rounding once differs at some elements.
  EXPECT_GT(differs_from_f16, 0);
}

TEST(HalfForms, F16ComputedInF32IsNoRowWhereTheBackendComputesF16InF16) {
  const Calibrated c = calibrated(kF16Chain, false);
  EXPECT_EQ(c.calibration.outputs[0].deviation.size(), static_cast<size_t>(EnsembleOptions{}.members));
  EXPECT_TRUE(half_forms(c.program, c.options).empty());
  EXPECT_TRUE(f16_computed_in_f32(c.program).has_value());
}

TEST(HalfForms, ANarrowAccumulatorWidenedToF32IsARowOfTheEnsemble) {
  const Calibrated c = calibrated(R"(program @sums() {
  %x: bf16[4, 300] = param
  %s: bf16[4] = sum(%x, axes=[1], acc=bf16)
  return %s
}
)",
                                  false);
  const int members = EnsembleOptions{}.members;
  const OutputSpread& spread = c.calibration.outputs[0];
  ASSERT_EQ(spread.deviation.size(), static_cast<size_t>(members + 1));
  const Tensor& x = c.inputs.at("x");
  for (int64_t row = 0; row < 4; ++row) {
    float acc = 0;
    for (int64_t k = 0; k < 300; ++k) acc += static_cast<float>(x.get(row * 300 + k));
    const double want = round_to_float_dtype(static_cast<double>(acc), DType::bf16);
    const size_t i = static_cast<size_t>(row);
    EXPECT_EQ(spread.deviation[static_cast<size_t>(members)][i], want - c.sound.outputs[0]->ref[i]) << "row " << row;
    EXPECT_LE(std::fabs(want - c.sound.outputs[0]->ref[i]), c.calibration.bounds.outputs[0]->err[i]) << "row " << row;
  }
}

TEST(HalfForms, AResultEqualToAFormIsReportedAgainstThatForm) {
  const Calibrated c = calibrated(kF16Chain, true);
  const int members = EnsembleOptions{}.members;
  const OutputSpread& spread = c.calibration.outputs[0];
  const std::vector<double> want = chain_in_f32(c);
  // An element where the form's value is no member's.
  int64_t element = -1;
  for (size_t i = 0; i < want.size() && element < 0; ++i) {
    bool unique = true;
    for (int m = 0; m < members; ++m) {
      const double form = spread.deviation[static_cast<size_t>(members)][i];
      unique = unique && spread.deviation[static_cast<size_t>(m)][i] != form;
    }
    if (unique) element = static_cast<int64_t>(i);
  }
  ASSERT_GE(element, 0) << "no element where the f32 form differs from every member";
  const NearestForm n = nearest_form(c.program, {}, c.inputs, c.options, EnsembleOptions{}, 0, element,
                                     want[static_cast<size_t>(element)]);
  EXPECT_EQ(n.member, members);
  EXPECT_TRUE(n.half_form);
  EXPECT_EQ(n.distance, 0);
  EXPECT_NE(n.form.find("f16 computed in f32"), std::string::npos) << n.form;
}

TEST(HalfForms, AProgramWithoutHalfValuesHasNoForm) {
  const Program p = testing::verified_program(R"(program @f32only() {
  %x: f32[8] = param
  %s: f32[] = sum(%x, acc=f32)
  return %s
}
)",
                                              "f32only.ir");
  Options opt;
  opt.half_may_compute_in_f32 = true;
  EXPECT_TRUE(half_forms(p, opt).empty());
}

}  // namespace
}  // namespace difftest::tolerance

namespace difftest::tolerance {
namespace {

// erf as OpenVINO's CPU plugin computes it, Abramowitz and Stegun 7.1.26 in f32 arithmetic,
// computed here in C++ float: near 0, where 1 - p e cancels, it is many ulps from a correctly
// rounded erf. The members in rewritten forms compute it that way
// (reference/kernels/elementwise.cc), so every element's allowance covers it.
TEST(ErfForm, TheAbramowitzStegunFormInF32IsWithinEveryAllowance) {
  Calibrated c{testing::verified_program(R"(program @e() {
  %x: f32[64] = param
  %y: f32[64] = erf(%x)
  return %y
}
)",
                                         "erf.ir"),
               {}, {}, {}, {}};
  std::vector<double> xs;
  for (int i = 0; i < 64; ++i) xs.push_back(static_cast<float>((i - 32) * 0.0001 + (i % 2 ? 0.3 : 0)));
  c.inputs["x"] = Tensor::from_doubles(DType::f32, {64}, xs);
  c.options.mode = BoundMode::Probabilistic;
  c.sound = bound_program(c.program, {}, c.inputs, c.options);
  c.calibration = calibrate(c.program, {}, c.inputs, c.sound, c.options, EnsembleOptions{});
  const Bounded& allowed = *c.calibration.bounds.outputs[0];
  int beyond_correctly_rounded_spread = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const float x = static_cast<float>(xs[i]);
    const float t = 1.0f / (1.0f + 0.3275911f * std::fabs(x));
    float poly = 1.061405429f;
    for (const float a : {-1.453152027f, 1.421413741f, -0.284496736f, 0.254829592f}) poly = poly * t + a;
    poly = poly * t;
    const float got = std::copysign(1.0f - poly * std::exp(-x * x), x);
    const double ref = std::erf(static_cast<double>(x));
    EXPECT_LE(std::fabs(got - ref), allowed.err[i]) << "x = " << x;
    // A correctly rounded erf, rounded either way by a member, is within 1 ulp.
    const float near = static_cast<float>(ref);
    const double ulp = std::nextafter(std::fabs(near), INFINITY) - std::fabs(near);
    if (std::fabs(got - ref) > 4 * ulp) ++beyond_correctly_rounded_spread;
  }
  EXPECT_GT(beyond_correctly_rounded_spread, 8) << "the form should be far from a correctly rounded erf near 0";
}

}  // namespace
}  // namespace difftest::tolerance
