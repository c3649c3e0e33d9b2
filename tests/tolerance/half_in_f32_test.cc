// q4f16_1 defines its codes by f16 steps, w / s + 7 rounded to f16 before the code's rounding.
// ONNX Runtime runs the exported f16 Div and Add in f32 (its CPU provider has no f16 kernel for
// them) and rounds only at the graph's casts, a legitimate form (issue 42): 11.49609375 stays
// code 11 where the f16 steps give 11.5 and code 12 (the ORT finding seed 20028 reduced to). With
// Options::half_may_compute_in_f32 such a code's word is uncertain; without it every word is
// compared. Expected flags are written out by hand.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/support/ir_util.h"
#include "tolerance/bounds.h"

namespace difftest::tolerance {
namespace {

constexpr const char* kQuantize = R"(program @q() {
  %w: f32[1, 32] = param
  %packed: u32[1, 4], %scales: f16[1, 1] = quantize(%w, format="q4f16_1", group=32)
  return %packed, %scales
}
)";

std::vector<int> word_flags(bool half_in_f32) {
  const Program p = testing::verified_program(kQuantize, "q.ir");
  // max |w| = 7: the scale is 1, exactly. Element 9 (word 1): t = 4.49609375 + 7, halfway
  // between two f16 values, rounds to even 11.5 in f16. Every other t is at least 0.25 from a
  // code boundary: 7 + 2 = 9, 7 + 7 = 14, 7 - 1.25 = 5.75.
  std::vector<double> w(32, 2.0);
  w[0] = 7;
  w[9] = 4.49609375;
  w[20] = -1.25;
  std::map<std::string, Tensor> inputs;
  inputs["w"] = Tensor::from_doubles(DType::f32, {1, 32}, w);
  Options opt;
  opt.half_may_compute_in_f32 = half_in_f32;
  const BoundedProgram b = bound_program(p, {}, inputs, opt);
  EXPECT_FALSE(b.invalid) << b.invalid_reason;
  EXPECT_EQ(b.outputs.at(1)->uncertain, std::vector<uint8_t>{0}) << "the scale max|w| / 7 = 1 is exact";
  return {b.outputs.at(0)->uncertain.begin(), b.outputs.at(0)->uncertain.end()};
}

TEST(HalfComputedInF32, ACodeTheF16StepsDecideIsUncertain) { EXPECT_EQ(word_flags(true), (std::vector<int>{0, 1, 0, 0})); }

TEST(HalfComputedInF32, WhereF16RoundsAtEveryStepEveryWordIsCompared) {
  EXPECT_EQ(word_flags(false), (std::vector<int>{0, 0, 0, 0}));
}

// ORT campaign seed 700370: f64 weights, one group of 8. The format's steps give w / s + 7 =
// 2.50390625 for the fifth (code 3); with w unrounded and only the quotient rounded to f16,
// w / s = -4.5 and the sum 2.5 exactly: code 2, ONNX Runtime's. Which casts remain depends on
// the kernels a compiler has, so every placement counts.
std::vector<int> f64_word_flags(bool half_in_f32) {
  const Program p = testing::verified_program(R"(program @q() {
  %w: f64[1, 8] = param
  %packed: u32[1, 1], %scales: f16[1, 1] = quantize(%w, format="q4f16_1", group=8)
  return %packed
}
)",
                                              "q64.ir");
  std::map<std::string, Tensor> inputs;
  inputs["w"] = Tensor::from_doubles(DType::f64, {1, 8},
                                     {-0.24974779039621353, 1.9493439868092537, -0.3895193487405777,
                                      -1.9097795262932777, -1.2530391365289688, -0.023592360317707062,
                                      -0.3783441483974457, -0.30520541220903397});
  Options opt;
  opt.half_may_compute_in_f32 = half_in_f32;
  const BoundedProgram b = bound_program(p, {}, inputs, opt);
  EXPECT_FALSE(b.invalid) << b.invalid_reason;
  return {b.outputs.at(0)->uncertain.begin(), b.outputs.at(0)->uncertain.end()};
}

TEST(HalfComputedInF32, ACodeAnyPlacementOfTheCastsDecidesIsUncertain) {
  EXPECT_EQ(f64_word_flags(true), std::vector<int>{1});
  EXPECT_EQ(f64_word_flags(false), std::vector<int>{0});
}

}  // namespace
}  // namespace difftest::tolerance
