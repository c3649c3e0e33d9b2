// Unit tests of the comparison (tolerance/compare.h) on hand-built bounded references, so every
// expected ratio, index and verdict below follows from the numbers written here.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/parser.h"
#include "tolerance/compare.h"

namespace difftest::tolerance {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Bounded bounded(DType dtype, std::vector<int64_t> shape, const std::vector<double>& ref, std::vector<double> err,
                std::vector<uint8_t> uncertain = {}) {
  Bounded b;
  b.dtype = dtype;
  b.exact = Tensor::from_doubles(is_float(dtype) ? DType::f64 : dtype, std::move(shape), ref);
  b.ref = ref;
  b.err = std::move(err);
  b.uncertain = uncertain.empty() ? std::vector<uint8_t>(ref.size(), 0) : std::move(uncertain);
  return b;
}

// Candidates are f64 so that the values written here reach the comparison unrounded.
Tensor f64(std::vector<int64_t> shape, const std::vector<double>& v) {
  return Tensor::from_doubles(DType::f64, std::move(shape), v);
}

TEST(CompareOutput, FloatPassesUpToSafetyTimesBoundAndReportsTheRatio) {
  const Bounded ref = bounded(DType::f32, {3}, {1, -2, 4}, {0.125, 0.25, 0.5});
  const Options opt;  // safety 2
  // Deviations 0.25 = 2 * 0.125 (exactly at the allowance), 0.25 = 1 * 0.25 and 0.
  const OutputComparison at_limit = compare_output(ref, f64({3}, {1.25, -1.75, 4}), opt);
  EXPECT_TRUE(at_limit.passed());
  EXPECT_FALSE(at_limit.exact);
  EXPECT_EQ(at_limit.compared, 3);
  EXPECT_EQ(at_limit.failing, 0);
  EXPECT_DOUBLE_EQ(at_limit.worst_ratio, 2.0);
  EXPECT_EQ(at_limit.worst_index, std::vector<int64_t>{0});

  // Just beyond the allowance (by far more than f32's smallest normal).
  const OutputComparison beyond = compare_output(ref, f64({3}, {1.2500001, -1.75, 4}), opt);
  EXPECT_FALSE(beyond.passed());
  EXPECT_EQ(beyond.failing, 1);
  EXPECT_GT(beyond.worst_ratio, 2.0);
}

TEST(CompareOutput, SafetyFactorComesFromTheOptions) {
  const Bounded ref = bounded(DType::f32, {1}, {1}, {0.125});
  Options strict;
  strict.safety = 1;
  EXPECT_TRUE(compare_output(ref, f64({1}, {1.125}), strict).passed());
  EXPECT_FALSE(compare_output(ref, f64({1}, {1.25}), strict).passed());
}

TEST(CompareOutput, ZeroBoundAllowsOnlyTheSmallestNormal) {
  // f16's smallest normal is 2^-14; a zero bound is "exact up to that slack".
  const double tiny = std::ldexp(1.0, -14);
  const Bounded ref = bounded(DType::f16, {2}, {3, 3}, {0, 0});
  const OutputComparison within = compare_output(ref, f64({2}, {3 + tiny / 2, 3}), Options{});
  EXPECT_TRUE(within.passed());
  EXPECT_EQ(within.worst_ratio, 0);
  const OutputComparison beyond = compare_output(ref, f64({2}, {3, 3 + 4 * tiny}), Options{});
  EXPECT_EQ(beyond.failing, 1);
  EXPECT_EQ(beyond.worst_ratio, kInf);
  EXPECT_EQ(beyond.worst_index, std::vector<int64_t>{1});
}

TEST(CompareOutput, NanCandidateFails) {
  const Bounded ref = bounded(DType::f32, {2}, {1, 2}, {1000, 1000});
  const OutputComparison c = compare_output(ref, f64({2}, {1, std::nan("")}), Options{});
  EXPECT_EQ(c.failing, 1);
  EXPECT_EQ(c.worst_ratio, kInf);
  EXPECT_EQ(c.worst_index, std::vector<int64_t>{1});
}

TEST(CompareOutput, IntegerOutputOffByOneFailsWhateverTheBound) {
  // A nonzero err on an integer output must not buy any slack: integers are compared exactly.
  const Bounded ref = bounded(DType::i32, {4}, {5, -7, 0, 100}, {10, 10, 10, 10});
  const Tensor got = Tensor::from_ints(DType::i32, {4}, {5, -6, 0, 100});
  const OutputComparison c = compare_output(ref, got, Options{});
  EXPECT_TRUE(c.exact);
  EXPECT_EQ(c.compared, 4);
  EXPECT_EQ(c.failing, 1);
  EXPECT_EQ(c.worst_ratio, kInf);
  EXPECT_EQ(c.worst_index, std::vector<int64_t>{1});
  EXPECT_EQ(c.got, -6);
  EXPECT_EQ(c.want, -7);

  const OutputComparison same = compare_output(ref, Tensor::from_ints(DType::i32, {4}, {5, -7, 0, 100}), Options{});
  EXPECT_TRUE(same.passed());
  EXPECT_EQ(same.worst_ratio, 0);
}

TEST(CompareOutput, IntegerOutputAcceptsACandidateOfAnotherDtypeWithTheSameValues) {
  const Bounded ref = bounded(DType::i64, {3}, {1, 2, 3}, {0, 0, 0});
  EXPECT_TRUE(compare_output(ref, f64({3}, {1, 2, 3}), Options{}).passed());
  EXPECT_EQ(compare_output(ref, f64({3}, {1, 2, 3.5}), Options{}).failing, 1);
}

TEST(CompareOutput, BoolOutputIsComparedExactly) {
  const Bounded ref = bounded(DType::boolean, {2, 2}, {1, 0, 0, 1}, {0, 0, 0, 0});
  const OutputComparison c = compare_output(ref, Tensor::from_ints(DType::boolean, {2, 2}, {1, 0, 1, 1}), Options{});
  EXPECT_TRUE(c.exact);
  EXPECT_EQ(c.failing, 1);
  EXPECT_EQ(c.worst_index, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(c.got, 1);
  EXPECT_EQ(c.want, 0);
}

TEST(CompareOutput, UncertainElementsAreSkippedAndCounted) {
  const Bounded ref = bounded(DType::f32, {4}, {1, 2, 3, 4}, {0.5, 0.5, 0.5, 0.5}, {0, 1, 1, 0});
  // Elements 1 and 2 are wildly off (and one is NaN), but uncertain.
  const OutputComparison c = compare_output(ref, f64({4}, {1, 1e6, std::nan(""), 4.25}), Options{});
  EXPECT_TRUE(c.passed());
  EXPECT_EQ(c.uncertain, 2);
  EXPECT_EQ(c.compared, 2);
  EXPECT_DOUBLE_EQ(c.worst_ratio, 0.5);
  EXPECT_EQ(c.worst_index, std::vector<int64_t>{3});

  // Uncertain integer elements are skipped too.
  const Bounded ints = bounded(DType::i32, {2}, {1, 2}, {0, 0}, {1, 0});
  const OutputComparison i = compare_output(ints, Tensor::from_ints(DType::i32, {2}, {9, 2}), Options{});
  EXPECT_TRUE(i.passed());
  EXPECT_EQ(i.uncertain, 1);
  EXPECT_EQ(i.compared, 1);
}

TEST(CompareOutput, WorstElementIsTheLargestRatioNotTheLargestDeviation) {
  // [2, 3]: element (0, 1) deviates most (1.0, bound 4: ratio 0.25); element (1, 2) deviates
  // 0.375 against a bound of 0.25: ratio 1.5, the worst.
  const Bounded ref = bounded(DType::f32, {2, 3}, {1, 10, 3, 4, 5, -6}, {0.25, 4, 0.25, 0.25, 0.25, 0.25});
  const OutputComparison c = compare_output(ref, f64({2, 3}, {1, 11, 3.125, 4, 5, -6.375}), Options{});
  EXPECT_TRUE(c.passed());
  EXPECT_EQ(c.compared, 6);
  EXPECT_DOUBLE_EQ(c.worst_ratio, 1.5);
  EXPECT_EQ(c.worst_index, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(c.got, -6.375);
  EXPECT_EQ(c.want, -6);
  EXPECT_EQ(c.bound, 0.25);
}

TEST(CompareOutput, ShapeMismatchIsAUserError) {
  const Bounded ref = bounded(DType::f32, {2, 3}, {1, 2, 3, 4, 5, 6}, std::vector<double>(6, 0.1));
  try {
    compare_output(ref, f64({3, 2}, {1, 2, 3, 4, 5, 6}), Options{});
    FAIL() << "a [3, 2] candidate was compared with a [2, 3] reference";
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Shape);
    EXPECT_NE(e.message().find("[3, 2]"), std::string::npos) << e.message();
  }
  EXPECT_THROW(compare_output(ref, f64({6}, {1, 2, 3, 4, 5, 6}), Options{}), UserError);
}

TEST(CompareCandidates, AllowanceIsTheSumOfBothBounds) {
  // Each candidate may be 2 * 0.125 from the reference on either side: 0.5 apart in total.
  const Bounded ref = bounded(DType::f32, {2}, {1, 2}, {0.125, 0.125});
  const OutputComparison apart = compare_candidates(ref, f64({2}, {1.25, 2}), f64({2}, {0.75, 2}), Options{});
  EXPECT_TRUE(apart.passed());
  EXPECT_DOUBLE_EQ(apart.worst_ratio, 2.0);  // 0.5 / (0.125 + 0.125)
  EXPECT_EQ(apart.worst_index, std::vector<int64_t>{0});
  EXPECT_EQ(apart.got, 1.25);
  EXPECT_EQ(apart.want, 0.75);
  EXPECT_EQ(apart.bound, 0.25);

  const OutputComparison too_far = compare_candidates(ref, f64({2}, {1, 2.375}), f64({2}, {1, 1.625}), Options{});
  EXPECT_EQ(too_far.failing, 1);
  EXPECT_DOUBLE_EQ(too_far.worst_ratio, 3.0);  // 0.75 / 0.25
  EXPECT_EQ(too_far.worst_index, std::vector<int64_t>{1});
}

TEST(CompareCandidates, ComparesTheCandidatesWithEachOtherNotWithTheReference) {
  // Two candidates that agree pass even when both are far from the reference: that difference
  // is what compare_output is for.
  const Bounded ref = bounded(DType::f32, {2}, {1, 2}, {0.125, 0.125});
  EXPECT_TRUE(compare_candidates(ref, f64({2}, {5, 6}), f64({2}, {5, 6}), Options{}).passed());
}

TEST(CompareCandidates, ShapeMismatchOfEitherCandidateIsAUserError) {
  const Bounded ref = bounded(DType::f32, {2}, {1, 2}, {0.125, 0.125});
  EXPECT_THROW(compare_candidates(ref, f64({3}, {1, 2, 3}), f64({2}, {1, 2}), Options{}), UserError);
  EXPECT_THROW(compare_candidates(ref, f64({2}, {1, 2}), f64({1, 2}, {1, 2}), Options{}), UserError);
}

// A two-output program and hand-built bounds for it.
struct TwoOutputs {
  Program program = parse_program(
      "program @two() {\n"
      "  %y: f32[2] = param\n"
      "  %n: i32[3] = param\n"
      "  return %y, %n\n"
      "}\n",
      "two.ir");
  Bounded y = bounded(DType::f32, {2}, {1, 2}, {0.125, 0.125});
  Bounded n = bounded(DType::i32, {3}, {4, 5, 6}, {0, 0, 0});
  BoundedProgram bp;
  TwoOutputs() { bp.outputs = {&y, &n}; }
};

TEST(CompareOutputs, NamesAndIndexesEveryOutputInOrder) {
  const TwoOutputs t;
  const Comparison c = compare_outputs(
      t.program, t.bp, {f64({2}, {1, 2.125}), Tensor::from_ints(DType::i32, {3}, {4, 5, 7})}, Options{});
  ASSERT_EQ(c.outputs.size(), 2u);
  EXPECT_EQ(c.outputs[0].index, 0u);
  EXPECT_EQ(c.outputs[0].name, "%y");
  EXPECT_EQ(c.outputs[0].dtype, DType::f32);
  EXPECT_TRUE(c.outputs[0].passed());
  EXPECT_DOUBLE_EQ(c.outputs[0].worst_ratio, 1.0);
  EXPECT_EQ(c.outputs[1].index, 1u);
  EXPECT_EQ(c.outputs[1].name, "%n");
  EXPECT_EQ(c.outputs[1].dtype, DType::i32);
  EXPECT_FALSE(c.outputs[1].passed());
  EXPECT_FALSE(c.passed());
  EXPECT_EQ(c.worst_ratio(), kInf);

  const Comparison ok = compare_outputs(
      t.program, t.bp, {f64({2}, {1, 2.125}), Tensor::from_ints(DType::i32, {3}, {4, 5, 6})}, Options{});
  EXPECT_TRUE(ok.passed());
  EXPECT_DOUBLE_EQ(ok.worst_ratio(), 1.0);
}

TEST(CompareOutputs, WrongNumberOfCandidatesIsAUserError) {
  const TwoOutputs t;
  try {
    compare_outputs(t.program, t.bp, {f64({2}, {1, 2})}, Options{});
    FAIL() << "one candidate accepted for two outputs";
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Arity);
  }
}

TEST(CompareOutputs, ShapeMismatchNamesTheOutput) {
  const TwoOutputs t;
  try {
    compare_outputs(t.program, t.bp, {f64({2}, {1, 2}), Tensor::from_ints(DType::i32, {2}, {4, 5})}, Options{});
    FAIL() << "an i32[2] candidate accepted for i32[3]";
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Shape);
    EXPECT_NE(e.message().find("output 1 (%n)"), std::string::npos) << e.message();
  }
}

TEST(ComparisonJson, HasTheVerdictOptionsAndPerOutputFields) {
  const TwoOutputs t;
  Options opt;
  opt.mode = BoundMode::Probabilistic;
  opt.lambda = 5;
  const Comparison c = compare_outputs(
      t.program, t.bp, {f64({2}, {1.25, 2}), Tensor::from_ints(DType::i32, {3}, {4, 0, 6})}, opt);
  const nlohmann::json j = c.to_json();
  EXPECT_EQ(j.at("passed"), false);
  EXPECT_EQ(j.at("bound_mode"), "probabilistic");
  EXPECT_EQ(j.at("safety"), 2.0);
  EXPECT_EQ(j.at("lambda"), 5.0);
  ASSERT_EQ(j.at("outputs").size(), 2u);

  const auto& y = j.at("outputs")[0];
  EXPECT_EQ(y.at("index"), 0);
  EXPECT_EQ(y.at("name"), "%y");
  EXPECT_EQ(y.at("dtype"), "f32");
  EXPECT_EQ(y.at("exact"), false);
  EXPECT_EQ(y.at("compared"), 2);
  EXPECT_EQ(y.at("uncertain"), 0);
  EXPECT_EQ(y.at("failing"), 0);
  EXPECT_EQ(y.at("passed"), true);
  EXPECT_EQ(y.at("worst").at("ratio"), 2.0);
  EXPECT_EQ(y.at("worst").at("index"), nlohmann::json::array({0}));
  EXPECT_EQ(y.at("worst").at("got"), 1.25);
  EXPECT_EQ(y.at("worst").at("want"), 1.0);
  EXPECT_EQ(y.at("worst").at("bound"), 0.125);

  // An integer mismatch has an infinite ratio, which JSON cannot hold as a number.
  const auto& n = j.at("outputs")[1];
  EXPECT_EQ(n.at("exact"), true);
  EXPECT_EQ(n.at("failing"), 1);
  EXPECT_EQ(n.at("passed"), false);
  EXPECT_EQ(n.at("worst").at("ratio"), "inf");
  EXPECT_EQ(n.at("worst").at("index"), nlohmann::json::array({1}));
  EXPECT_EQ(n.at("worst").at("got"), 0);
  EXPECT_EQ(n.at("worst").at("want"), 5);
  // The whole document serializes and parses back.
  EXPECT_EQ(nlohmann::json::parse(j.dump()), j);
}

TEST(ComparisonJson, LambdaOnlyInProbabilisticMode) {
  const TwoOutputs t;
  const Comparison c = compare_outputs(
      t.program, t.bp, {f64({2}, {1, 2}), Tensor::from_ints(DType::i32, {3}, {4, 5, 6})}, Options{});
  const nlohmann::json j = c.to_json();
  EXPECT_EQ(j.at("passed"), true);
  EXPECT_EQ(j.at("bound_mode"), "deterministic");
  EXPECT_FALSE(j.contains("lambda"));
}

TEST(CompareBoundSummary, ReportsMinMedianMaxOverCertainElements) {
  // The uncertain element's huge bound must not show; relative bounds skip the zero reference.
  const Bounded b = bounded(DType::f32, {5}, {1, 2, 0, 4, 8}, {0.5, 0.25, 1, 1, 1e9}, {0, 0, 0, 0, 1});
  const std::string s = bound_summary(b);
  EXPECT_NE(s.find("bound min=0.25 median=0.5 max=1,"), std::string::npos) << s;
  EXPECT_NE(s.find("relative to |ref|: median=0.25 max=0.5"), std::string::npos) << s;
  EXPECT_NE(s.find("uncertain=1 of 5"), std::string::npos) << s;
}

}  // namespace
}  // namespace difftest::tolerance
