// A reduction's result is uncertain when any element of its slice is and may decide it: an
// uncertain element's value is unknown, so it can become the slice's minimum, maximum or product (seed 2016788 of
// the 10,000-program run: a min over rounded bf16 values was compared where one rounding could
// go either way, and the clean compiler was reported as a mismatch). Expected flags are
// written out by hand from the inputs below.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "tests/support/ir_util.h"
#include "tolerance/bounds.h"
#include "tolerance/compare.h"

namespace difftest::tolerance {
namespace {

constexpr const char* kReductions = R"(program @slices() {
  %x0: f32[2, 4] = param
  %x: f32[2, 4] = neg(%x0)
  %r: f32[2, 4] = round(%x)
  %i: i32[2, 4] = cast(%r, dtype=i32)
  %mn: f32[2] = min(%r, axes=[1])
  %mx: f32[2] = max(%r, axes=[1])
  %s: f32[2] = sum(%r, axes=[1])
  %m: f32[2] = mean(%r, axes=[1])
  %p: f32[2] = prod(%r, axes=[1])
  %imn: i32[2] = min(%i, axes=[1])
  %iprod: i32[2] = prod(%i, axes=[1])
  %am: i64[2] = argmin(%r, axis=1)
  return %mn, %mx, %s, %m, %p, %imn, %iprod, %am, %x
}
)";

// Row 0 holds the one element whose rounding is in doubt (x = 2.5 with an error of 0.1 may
// round to 2 or 3); row 1 is certain. Every other value is 0.3 or more from a rounding edge.
TEST(ReductionRule, AnUncertainElementMakesItsSliceUncertainInEveryReduction) {
  const Program p = testing::verified_program(kReductions, "slices.ir");
  std::map<std::string, Tensor> inputs;
  inputs["x0"] = Tensor::from_doubles(DType::f32, {2, 4}, {-4.2, -2.5, -7.1, -5.8, -3.2, -1.9, -6.1, -4.7});
  Options opt;
  opt.mode = BoundMode::Probabilistic;
  const BoundedProgram sound = bound_program(p, {}, inputs, opt);
  ASSERT_FALSE(sound.invalid) << sound.invalid_reason;
  const ValueNode* x = p.outputs().back().get();
  std::vector<double> x_err(8, 0.0);
  x_err[1] = 0.1;
  const BoundedProgram rebound = rebound_program(p, {}, sound, opt, {{x, x_err}});
  const std::vector<std::string> names = {"min", "max", "sum", "mean", "prod", "i32 min", "i32 prod", "argmin"};
  for (size_t o = 0; o + 1 < rebound.outputs.size(); ++o) {
    const Bounded& out = *rebound.outputs[o];
    ASSERT_EQ(out.uncertain.size(), 2u) << names[o];
    // Row 0 rounds to 4, 2 or 3, 7 and 6: its max is 7 whichever way the doubtful element
    // goes (a max or min reads its elements' outcomes), and its min is 2 or 3.
    EXPECT_EQ(out.uncertain[0], names[o] == "max" ? 0 : 1) << names[o] << ": the row with the uncertain rounding";
    EXPECT_EQ(out.uncertain[1], 0) << names[o] << ": the certain row";
  }
}

// A sum of one repeated value rounds alike at every step: a sequential f32 sum of 20,640
// copies of fl(-log 2) (a correct implementation: the index-order loop every pipeline emits)
// drifts by 2e-4 of the mean, four times the probabilistic bound of independent roundings
// (seed 12523214 of a clean campaign, a mismatch at every level). Such slices take the
// deterministic summation bound; the loop's result is computed here in float.
TEST(ReductionRule, ASumOfOneRepeatedValueIsBoundedAsSystematic) {
  const Program p = testing::verified_program(R"(program @repeated() {
  %x: f32[10320, 2] = full(shape=[10320, 2], value=-1)
  %l: f32[10320, 2] = log_softmax(%x, axis=1, acc=f64)
  %m: f32[] = mean(%l)
  return %m
}
)",
                                              "repeated.ir");
  Options opt;
  opt.mode = BoundMode::Probabilistic;
  const BoundedProgram b = bound_program(p, {}, {}, opt);
  ASSERT_FALSE(b.invalid) << b.invalid_reason;
  // Each element is -log 2 rounded to f32 (a pair of equal scores), the same value 20,640 times.
  const auto term = static_cast<float>(-std::log(2.0));
  float sum = 0;
  for (int i = 0; i < 20640; ++i) sum += term;
  const float mean = sum / 20640.0f;
  const OutputComparison o = compare_output(*b.outputs[0], Tensor::from_doubles(DType::f32, {}, {mean}), opt);
  EXPECT_TRUE(o.passed()) << "got " << mean << " want " << b.outputs[0]->ref[0] << " bound " << b.outputs[0]->err[0];
  EXPECT_EQ(o.compared, 1);
}

// exp(-383 - t) is about 1e-167: the sds of its errors square to 0 in f64. The sum over them
// then takes its operands' errors as the worst case instead of dropping them (the quadrature
// sum would be 0): its bound holds all of them.
TEST(ReductionRule, ErrorsWhoseSquaresUnderflowStillReachASum) {
  const Program p = testing::verified_program(R"(program @tiny_sum() {
  %x: f64[4] = param
  %e: f64[4] = exp(%x)
  %s: f64[] = sum(%e)
  return %s, %e
}
)",
                                              "tiny_sum.ir");
  Options options;
  options.mode = BoundMode::Probabilistic;
  const BoundedProgram b =
      bound_program(p, {}, {{"x", Tensor::from_doubles(DType::f64, {4}, {-383, -383.5, -384, -384.5})}}, options);
  ASSERT_FALSE(b.invalid) << b.invalid_reason;
  const Bounded &sum = *b.outputs[0], &e = *b.outputs[1];
  double operands = 0;
  for (const double x : e.err) operands += x;
  ASSERT_GT(operands, 0);
  EXPECT_GE(sum.err[0], operands);
}

}  // namespace
}  // namespace difftest::tolerance
