// A decision on a boundary (floor, a cast to an integer, floor_mod's quotient, an argmin among
// near-tied values) may go either way in a correct implementation, but only to outcomes the
// rule can list: such an element is compared with them (Bounded::choices) instead of skipped,
// so an output flipped to a value no decision gives fails where it used to pass unchecked.
// Inputs and expected outcomes are written out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <numbers>
#include <string>
#include <vector>

#include "tests/support/ir_util.h"
#include "tolerance/bounds.h"
#include "tolerance/compare.h"

namespace difftest::tolerance {
namespace {

constexpr const char* kDecisions = R"(program @decide() {
  %a: f32[4] = param
  %x: f32[4] = exp(%a)
  %fl: f32[4] = floor(%x)
  %t: i32[4] = cast(%x, dtype=i32)
  %s: f32[2, 4] = param
  %e: f32[2, 4] = exp(%s)
  %am: i64[2] = argmin(%e, axis=1)
  %n: bf16[1] = param
  %d: bf16[1] = param
  %m: bf16[1] = floor_mod(%n, %d)
  %hi: f32[] = max(%fl)
  %lo: f32[] = min(%fl)
  %total: f32[] = sum(%fl)
  %k: bool[4] = param
  %none: i32[] = const 0
  %sel: i32[4] = where(%k, %t, %none)
  %q: f32[1] = param
  %w: f32[1] = param
  %sq: f32[1] = sin(%q)
  %angle: f32[1] = atan2(%sq, %w)
  return %fl, %t, %am, %m, %hi, %lo, %total, %sel, %angle
}
)";

struct Bounds {
  Program program;
  BoundedProgram bounds;
};

Bounds bounded() {
  Bounds b{testing::verified_program(kDecisions, "decide.ir"), {}};
  std::map<std::string, Tensor> inputs;
  // exp(ln 3) and exp(0) lie within exp's error of 3 and 1; exp(ln 5.5) = 5.5 and e are far from
  // an integer.
  inputs["a"] = Tensor::from_doubles(DType::f32, {4}, {std::log(3.0), 0, std::log(5.5), 1});
  // Row 0: exp(0.25) and exp(0.25 + 1 ulp) tie within exp's error, 1.284 against 2.718 and
  // 7.389; row 1: exp(-1) is the least by far.
  inputs["s"] = Tensor::from_doubles(DType::f32, {2, 4},
                                     {1, 0.25, std::nextafter(0.25f, 1.0f), 2, 0.5, -1, 2, 3});
  // 1 / 0.333984375 = 2.994: within the quotient's bf16 roundings of 3, so the remainder is
  // 1 - 2 d = 0.33203125 or 1 - 3 d = -0.001953125.
  inputs["n"] = Tensor::from_doubles(DType::bf16, {1}, {1});
  inputs["d"] = Tensor::from_doubles(DType::bf16, {1}, {0.333984375});
  inputs["k"] = Tensor::from_ints(DType::boolean, {4}, {1, 0, 1, 1});
  // sin(0) is 0 within sin's absolute error: atan2 of it and -1 is on the branch cut, +-pi.
  inputs["q"] = Tensor::from_doubles(DType::f32, {1}, {0});
  inputs["w"] = Tensor::from_doubles(DType::f32, {1}, {-1});
  b.bounds = bound_program(b.program, {}, inputs, Options{});
  EXPECT_FALSE(b.bounds.invalid) << b.bounds.invalid_reason;
  return b;
}

std::map<size_t, std::vector<double>> choices_of(const Bounds& b, size_t output) {
  return b.bounds.outputs.at(output)->choices;
}

TEST(DecisionChoices, EachDecisionOnABoundaryListsItsOutcomes) {
  const Bounds b = bounded();
  using Choices = std::map<size_t, std::vector<double>>;
  EXPECT_EQ(choices_of(b, 0), (Choices{{0, {2, 3}}, {1, {0, 1}}})) << "floor";
  EXPECT_EQ(choices_of(b, 1), (Choices{{0, {2, 3}}, {1, {0, 1}}})) << "cast to i32";
  EXPECT_EQ(choices_of(b, 2), (Choices{{0, {1, 2}}})) << "argmin: indices 0 and 3 cannot win";
  EXPECT_EQ(choices_of(b, 3), (Choices{{0, {0.33203125, -0.001953125}}})) << "floor_mod";
  // The floors are {2, 3}, {0, 1}, 5 and 2: their max can only be the certain 5, their min 0 or 1.
  EXPECT_EQ(b.bounds.outputs.at(4)->uncertain, std::vector<uint8_t>{0}) << "max of the floors";
  EXPECT_EQ(choices_of(b, 5), (Choices{{0, {0, 1}}})) << "min of the floors";
  EXPECT_EQ(choices_of(b, 7), (Choices{{0, {2, 3}}})) << "where selects the cast's decision at 0, not at 1";
  const double pi = static_cast<float>(std::numbers::pi);
  EXPECT_EQ(choices_of(b, 8), (Choices{{0, {pi, -pi}}})) << "atan2 on its branch cut";
}

OutputComparison judge(const Bounds& b, size_t output, DType dtype, std::vector<int64_t> shape,
                       const std::vector<double>& got) {
  return compare_output(*b.bounds.outputs.at(output), Tensor::from_doubles(dtype, std::move(shape), got), Options{});
}

TEST(DecisionChoices, EveryOutcomePassesAndNoOtherValueDoes) {
  const Bounds b = bounded();
  EXPECT_TRUE(judge(b, 0, DType::f32, {4}, {2, 1, 5, 2}).passed());
  EXPECT_TRUE(judge(b, 0, DType::f32, {4}, {3, 0, 5, 2}).passed());
  EXPECT_FALSE(judge(b, 0, DType::f32, {4}, {4, 1, 5, 2}).passed()) << "floor 4 of a value within 1e-6 of 3";
  EXPECT_FALSE(judge(b, 1, DType::i32, {4}, {3, -1, 5, 2}).passed()) << "cast -1 of a value near 1";
  EXPECT_TRUE(judge(b, 1, DType::i32, {4}, {2, 1, 5, 2}).passed());
  EXPECT_TRUE(judge(b, 2, DType::i64, {2}, {2, 1}).passed());
  EXPECT_FALSE(judge(b, 2, DType::i64, {2}, {3, 1}).passed()) << "argmin at 7.389";
  EXPECT_TRUE(judge(b, 3, DType::bf16, {1}, {-0.001953125}).passed());
  EXPECT_FALSE(judge(b, 3, DType::bf16, {1}, {0.1}).passed()) << "no quotient leaves 0.1";
  EXPECT_TRUE(judge(b, 4, DType::f32, {}, {5}).passed());
  EXPECT_FALSE(judge(b, 4, DType::f32, {}, {3}).passed()) << "a max of 3 over floors holding 5";
  EXPECT_TRUE(judge(b, 8, DType::f32, {1}, {-std::numbers::pi}).passed());
  EXPECT_TRUE(judge(b, 8, DType::f32, {1}, {std::numbers::pi}).passed());
  EXPECT_FALSE(judge(b, 8, DType::f32, {1}, {0}).passed()) << "atan2(~0, -1) is never 0";
  EXPECT_FALSE(judge(b, 8, DType::f32, {1}, {3}).passed()) << "nor 0.14 off pi";
  EXPECT_TRUE(judge(b, 5, DType::f32, {}, {1}).passed());
  EXPECT_TRUE(judge(b, 5, DType::f32, {}, {0}).passed());
  EXPECT_FALSE(judge(b, 5, DType::f32, {}, {2}).passed()) << "a min of 2 over floors holding 0 or 1";
  // Every element compared: none is skipped as uncertain.
  const OutputComparison c = judge(b, 0, DType::f32, {4}, {3, 1, 5, 2});
  EXPECT_EQ(c.compared, 4);
  EXPECT_EQ(c.uncertain, 0);
}

// Ops computed from a decision see the interval of its outcomes: the floors {2, 3}, {0, 1}, 5
// and 2 sum to 9, 10 or 11, which the first tier compares (within its safety factor of 2); the calibrated bounds keep the sum
// uncertain, since no member's spread need cover an outcome the members did not take.
TEST(DecisionChoices, OpsAfterADecisionBoundEveryOutcomeInTheFirstTierOnly) {
  const Bounds b = bounded();
  const Bounded& total = *b.bounds.outputs.at(6);
  EXPECT_EQ(total.uncertain, std::vector<uint8_t>{0});
  EXPECT_TRUE(judge(b, 6, DType::f32, {}, {9}).passed());
  EXPECT_TRUE(judge(b, 6, DType::f32, {}, {11}).passed());
  EXPECT_FALSE(judge(b, 6, DType::f32, {}, {16}).passed()) << "16 is past any sum of the outcomes, with the safety factor";
  const BoundedProgram calibrated = rebound_program(b.program, {}, b.bounds, Options{}, {});
  EXPECT_EQ(calibrated.outputs.at(6)->uncertain, std::vector<uint8_t>{1});
}

TEST(DecisionChoices, TwoCandidatesMayDecideDifferentlyButEachWithinTheOutcomes) {
  const Bounds b = bounded();
  const Bounded& floor = *b.bounds.outputs.at(0);
  const auto f32 = [](const std::vector<double>& v) { return Tensor::from_doubles(DType::f32, {4}, v); };
  EXPECT_TRUE(compare_candidates(floor, f32({2, 1, 5, 2}), f32({3, 0, 5, 2}), Options{}).passed());
  EXPECT_FALSE(compare_candidates(floor, f32({2, 1, 5, 2}), f32({4, 1, 5, 2}), Options{}).passed());
  EXPECT_FALSE(compare_candidates(floor, f32({4, 1, 5, 2}), f32({2, 1, 5, 2}), Options{}).passed());
}

// The coverage map's oracle side: which rules ran, which left decisions with known outcomes,
// and which made elements uncertain themselves.
TEST(DecisionChoices, BoundCasesNameTheRulesThatDecidedAndThoseThatMadeElementsUncertain) {
  const Bounds b = bounded();
  const std::set<std::string> cases = bound_cases(b.program, b.bounds);
  for (const char* item : {"bound:exp", "bound:floor", "bound:where", "decision:floor", "decision:cast",
                           "decision:argmin", "decision:floor_mod", "decision:min", "decision:atan2"}) {
    EXPECT_TRUE(cases.count(item)) << item;
  }
  EXPECT_FALSE(cases.count("decision:exp"));
  EXPECT_FALSE(cases.count("decision:max")) << "the max of the floors is certain";
  for (const auto& item : cases) EXPECT_NE(item.rfind("uncertain:", 0), 0u) << item;

  // 65024 + 464 = 65488 is inside f16's range, but its rounding error reaches past 65504.
  const Program reach = testing::verified_program(R"(program @reach() {
  %a: f16[1] = param
  %b: f16[1] = param
  %s: f16[1] = add(%a, %b)
  %t: f16[1] = neg(%s)
  return %t
}
)",
                                                  "reach.ir");
  const BoundedProgram bounds = bound_program(reach,
                                              {},
                                              {{"a", Tensor::from_doubles(DType::f16, {1}, {65024})},
                                               {"b", Tensor::from_doubles(DType::f16, {1}, {464})}},
                                              Options{});
  ASSERT_FALSE(bounds.invalid) << bounds.invalid_reason;
  const std::set<std::string> reached = bound_cases(reach, bounds);
  EXPECT_TRUE(reached.count("uncertain:add"));
  EXPECT_FALSE(reached.count("uncertain:neg")) << "neg inherits the uncertainty, it does not make it";
  EXPECT_TRUE(reached.count("bound:neg"));
}

}  // namespace
}  // namespace difftest::tolerance
