// The ensemble's members: random rounding, and perturbed evaluations of whole programs.
#include "reference/perturbation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>

#include "compiler/tensor/float_format.h"
#include "reference/inputs.h"
#include "reference/reference.h"
#include "tests/support/ir_util.h"

namespace difftest::reference {
namespace {

TEST(Perturbation, NeighboursAreTheAdjacentValuesOfTheDtype) {
  // f16 has 10 fraction bits: above 1 the spacing is 2^-10, below it 2^-11.
  EXPECT_EQ(float_neighbour(1.0, 2.0, DType::f16), 1.0 + 0x1.0p-10);
  EXPECT_EQ(float_neighbour(1.0, 0.5, DType::f16), 1.0 - 0x1.0p-11);
  EXPECT_EQ(float_neighbour(-1.0, -2.0, DType::f16), -1.0 - 0x1.0p-10);
  EXPECT_EQ(float_neighbour(-1.0, 0.0, DType::f16), -1.0 + 0x1.0p-11);
  EXPECT_EQ(float_neighbour(0.0, 1.0, DType::f16), 0x1.0p-24);  // the smallest subnormal
  EXPECT_EQ(float_neighbour(0.0, -1.0, DType::f16), -0x1.0p-24);
  EXPECT_EQ(float_neighbour(0x1.0p-24, 0.0, DType::f16), 0.0);
  EXPECT_EQ(float_neighbour(1.0, 2.0, DType::bf16), 1.0 + 0x1.0p-7);
  EXPECT_EQ(float_neighbour(1.0, 2.0, DType::f32), 1.0 + 0x1.0p-23);
  EXPECT_EQ(float_neighbour(65504.0, 0.0, DType::f16), 65472.0);
}

TEST(Perturbation, RandomRoundingTakesEitherNeighbourHalfTheTime) {
  const double x = 1.0 + 0x1.0p-12;  // a quarter of the way from 1 to the next f16 value
  int up = 0;
  constexpr int kMembers = 100000;
  for (int seed = 0; seed < kMembers; ++seed) {
    const double r = Perturbation(static_cast<uint64_t>(seed)).round(x, DType::f16);
    ASSERT_TRUE(r == 1.0 || r == 1.0 + 0x1.0p-10) << r;
    up += r != 1.0;
  }
  // Binomial(100000, 1/2): its standard deviation is 158 draws.
  EXPECT_NEAR(up, kMembers / 2, 1000);
  // One member over as many values between distinct neighbours: 1 + i f32 ulps, and a quarter.
  Perturbation p(42);
  up = 0;
  for (int i = 0; i < kMembers; ++i) {
    const double lower = 1.0 + i * 0x1.0p-23;
    up += p.round(lower + 0x1.0p-25, DType::f32) != lower;
  }
  EXPECT_NEAR(up, kMembers / 2, 1000);
  EXPECT_EQ(p.round(1.5, DType::f16), 1.5);  // representable values stay
  EXPECT_EQ(p.round(0.1, DType::f64), 0.1);
  EXPECT_TRUE(std::isinf(p.round(INFINITY, DType::f16)));
}

// A deterministic implementation rounds equal values alike, and an output can hold thousands of
// them (a norm over two elements is +-1 x gamma + beta everywhere): a member rounds every value
// between the same two neighbours the same way, whichever side of the midpoint it lies on.
TEST(Perturbation, AMemberRoundsEveryValueBetweenTheSameNeighboursAlike) {
  int members_up = 0;
  for (uint64_t seed = 0; seed < 64; ++seed) {
    Perturbation p(seed);
    const double first = p.round(1.0 + 0x1.0p-14, DType::f16);  // just above 1
    for (const double x : {1.0 + 0x1.0p-12, 1.0 + 0x1.0p-11 + 0x1.0p-13, 1.0 + 0x1.0p-10 - 0x1.0p-16}) {
      EXPECT_EQ(p.round(x, DType::f16), first) << "seed " << seed << ", x " << x;
    }
    EXPECT_EQ(p.round(-(1.0 + 0x1.0p-12), DType::bf16), p.round(-(1.0 + 0x1.0p-9), DType::bf16)) << seed;
    members_up += first != 1.0;
  }
  EXPECT_GT(members_up, 16);  // Binomial(64, 1/2) below 17: a chance of 1e-4
  EXPECT_LT(members_up, 48);
}

// A libm-grade function errs alike on equal arguments within a member (a deterministic libm
// does), differently across members, and within its budget of 8 u of f32 (4 ulps).
TEST(Perturbation, AMemberGivesEqualFunctionValuesTheSameError) {
  const double tanh6 = std::tanh(6.0);
  std::set<double> across_members;
  for (uint64_t seed = 0; seed < 32; ++seed) {
    Perturbation p(seed);
    const double first = p.function_error(tanh6, DType::f32);
    p.function_error(0.25, DType::f32);  // another value between them changes nothing
    EXPECT_EQ(p.function_error(tanh6, DType::f32), first) << "seed " << seed;
    EXPECT_LE(std::fabs(first - tanh6), 8 * 0x1.0p-24 * tanh6);
    across_members.insert(first);
  }
  EXPECT_GT(across_members.size(), 24u);
}

// Against round_to_float_dtype and float_neighbour, which Perturbation::round does not call for
// these dtypes: every draw is one of the two values bracketing x, and over 64 seeds both occur.
TEST(Perturbation, RandomRoundingGivesOnlyTheTwoValuesBracketingX) {
  std::mt19937_64 rng(7);
  for (const DType t : {DType::f32, DType::f16, DType::bf16}) {
    const double max = t == DType::f32 ? 0x1.fffffep127 : t == DType::f16 ? 65504.0 : 0x1.fep127;
    const double tiny = t == DType::f32 ? 0x1.0p-149 : t == DType::f16 ? 0x1.0p-24 : 0x1.0p-133;
    std::vector<double> xs = {
        max * (1 - 0x1.0p-30), -max * (1 - 0x1.0p-30), max * 1.0001,     tiny / 2,         -tiny / 2, tiny * 1.5,
        -tiny * 3.25,          1 + 0x1.0p-30,          -(1 + 0x1.0p-30), 0x1.0p-126 * 0.75};
    for (int i = 0; i < 3000; ++i) {
      const double magnitude =
          std::ldexp(1.0 + std::uniform_real_distribution<double>(0, 1)(rng),
                     std::uniform_int_distribution<int>(std::ilogb(tiny) - 2, std::ilogb(max))(rng));
      xs.push_back(i % 2 ? magnitude : -magnitude);
    }
    for (const double x : xs) {
      const double nearest = round_to_float_dtype(x, t);
      const double other = float_neighbour(nearest, x, t);
      const bool two = nearest != x && std::isfinite(nearest) && std::isfinite(other);
      bool saw_nearest = false, saw_other = false;
      for (uint64_t seed = 0; seed < 64; ++seed) {
        Perturbation p(seed);
        const double r = p.round(x, t);
        ASSERT_TRUE(r == nearest || (two && r == other))
            << dtype_name(t) << " " << x << ": " << r << " (nearest " << nearest << ", other " << other << ")";
        saw_nearest = saw_nearest || r == nearest;
        saw_other = saw_other || (two && r == other);
      }
      EXPECT_TRUE(saw_nearest) << dtype_name(t) << " " << x;
      EXPECT_EQ(saw_other, two) << dtype_name(t) << " " << x;
    }
  }
}

TEST(Perturbation, AJitterMovesAQuarterOfTheValuesToEachNeighbour) {
  Perturbation p(5);
  int up = 0, down = 0;
  constexpr int kDraws = 100000;
  for (int i = 0; i < kDraws; ++i) {
    const double r = p.jitter(1.0, DType::f32);
    ASSERT_TRUE(r == 1.0 || r == 1.0 + 0x1.0p-23 || r == 1.0 - 0x1.0p-24) << r;
    up += r > 1.0;
    down += r < 1.0;
  }
  // Binomial(100000, 1/4): its standard deviation is 137 draws.
  EXPECT_NEAR(up, kDraws / 4, 1000);
  EXPECT_NEAR(down, kDraws / 4, 1000);
  EXPECT_EQ(p.jitter(0.1, DType::f64), 0.1);
}

TEST(Perturbation, TheSameSeedDrawsTheSameMember) {
  Perturbation a(7), b(7), c(8);
  bool differs = false;
  for (int i = 0; i < 64; ++i) {
    const double x = 1 + i * 0x1.0p-13;
    const double ra = a.round(x, DType::f16);
    EXPECT_EQ(ra, b.round(x, DType::f16));
    differs = differs || ra != c.round(x, DType::f16);
  }
  EXPECT_TRUE(differs);
  EXPECT_EQ(Perturbation(3).permutation(10), Perturbation(3).permutation(10));
  std::vector<int64_t> perm = Perturbation(3).permutation(10);
  std::sort(perm.begin(), perm.end());
  for (int64_t i = 0; i < 10; ++i) EXPECT_EQ(perm[static_cast<size_t>(i)], i);
}

TEST(Perturbation, SummationOrdersAreTheIndexOrderItsReverseOrAPermutation) {
  const std::vector<int64_t> forward{0, 1, 2, 3, 4}, backward{4, 3, 2, 1, 0};
  EXPECT_EQ(Perturbation(3, SumOrder::Sequential).summation_order(5), forward);
  EXPECT_EQ(Perturbation(3, SumOrder::Blocked).summation_order(5), forward);
  EXPECT_EQ(Perturbation(3, SumOrder::Reversed).summation_order(5), backward);
  std::vector<int64_t> random = Perturbation(3, SumOrder::Random).summation_order(64);
  EXPECT_EQ(random, Perturbation(3).permutation(64));
  std::sort(random.begin(), random.end());
  for (int64_t i = 0; i < 64; ++i) EXPECT_EQ(random[static_cast<size_t>(i)], i);
}

// A fused member rounds each step of its sum once, as an FMA does: summing -1 * (1 + 2^-19) and
// then (1 + 2^-20)^2 = 1 + 2^-19 + 2^-40 in index order leaves 2^-40 when the product is fused
// into the sum, and 0 when the product is first rounded to f32 (to 1 + 2^-19).
TEST(Perturbation, AFusedMemberContractsEachProductIntoItsSum) {
  const Program p = testing::verified_program(R"(program @dot() {
  %a: f32[1, 2] = param
  %b: f32[2, 1] = param
  %c: f32[1, 1] = matmul(%a, %b, acc=f32)
  return %c
}
)",
                                              "fused.ir");
  const double small = 0x1.0p-20;
  std::map<std::string, Tensor> inputs;
  inputs.emplace("a", Tensor::from_doubles(DType::f32, {1, 2}, {-1.0, 1 + small}));
  inputs.emplace("b", Tensor::from_doubles(DType::f32, {2, 1}, {1 + 2 * small, 1 + small}));
  const double fused = evaluate_perturbed(p, {}, inputs, 5, {SumOrder::Sequential, true}).outputs[0].get(0);
  const double plain = evaluate_perturbed(p, {}, inputs, 5, {SumOrder::Sequential, false}).outputs[0].get(0);
  // The member's last rounding may go to either neighbour: one f32 ulp of 2^-40 is 2^-63.
  EXPECT_NEAR(fused, 0x1.0p-40, 0x1.0p-63);
  EXPECT_LT(std::fabs(plain), 0x1.0p-100);  // zero, or the subnormal next to it
}

TEST(Perturbation, AFusedMemberContractsANormsAffineStep) {
  // Every step before the affine one is exact: mean 0, variance 30/8 = 3.75, + eps = 4, so the
  // scale is 1/2 and the normed row is d / 2. Then 1.5 * (1 + 2^-23) - 1.5 is 1.5 * 2^-23
  // with one rounding; rounding the product first leaves one or two ulps of 1.5 (its neighbours
  // are 1.5 + 2^-23 and 1.5 + 2^-22).
  const Program p = testing::verified_program(R"(program @norm() {
  %x: f32[1, 8] = param
  %g: f32[8] = param
  %b: f32[8] = param
  %y: f32[1, 8] = layer_norm(%x, %g, %b, axis=1, eps=0.25, acc=f32)
  return %y
}
)",
                                              "affine.ir");
  std::map<std::string, Tensor> inputs;
  inputs.emplace("x", Tensor::from_doubles(DType::f32, {1, 8}, {3, -3, 2, -2, 1, -1, 1, -1}));
  inputs.emplace("g", Tensor::from_doubles(DType::f32, {8}, std::vector<double>(8, 1 + 0x1.0p-23)));
  inputs.emplace("b", Tensor::from_doubles(DType::f32, {8}, std::vector<double>(8, -1.5)));
  const double fused = evaluate_perturbed(p, {}, inputs, 5, {SumOrder::Sequential, true}).outputs[0].get(0);
  const double plain = evaluate_perturbed(p, {}, inputs, 5, {SumOrder::Sequential, false}).outputs[0].get(0);
  EXPECT_EQ(fused, 1.5 * 0x1.0p-23);
  EXPECT_TRUE(plain == 0x1.0p-23 || plain == 0x1.0p-22) << plain;
}

TEST(Perturbation, MembersDifferFromNativeModeByRoundingSizedAmounts) {
  const Program p = testing::verified_program(R"(program @dot() {
  %a: f16[4, 256] = param
  %b: f16[256, 8] = param
  %c: f16[4, 8] = matmul(%a, %b, acc=f32)
  %d: f16[4, 8] = tanh(%c)
  %s: f16[4] = sum(%a, axes=[1])
  return %d, %s
}
)",
                                              "dot.ir");
  auto inputs = generate_inputs(p, {}, 3);
  // %a on a grid of 1/8 below 2 in magnitude, so that every partial sum of its rows is exact.
  for (int64_t i = 0; i < inputs.at("a").numel(); ++i) inputs.at("a").set(i, std::round(inputs.at("a").get(i) * 8) / 8);
  const Evaluation exact = evaluate(p, {}, inputs, Mode::F64);
  const Evaluation native = evaluate(p, {}, inputs, Mode::Native);
  const Evaluation member = evaluate_perturbed(p, {}, inputs, 11);
  const Evaluation again = evaluate_perturbed(p, {}, inputs, 11);
  for (size_t o = 0; o < 2; ++o) {
    EXPECT_TRUE(member.outputs[o].same_bytes(again.outputs[o]));
    EXPECT_EQ(member.outputs[o].dtype(), DType::f16);
  }
  for (int64_t i = 0; i < exact.outputs[1].numel(); ++i) {
    const double r = exact.outputs[1].get(i), m = member.outputs[1].get(i);
    // Every partial sum of 256 multiples of 1/8 below 2 is exact in f16, and random rounding
    // leaves exact values alone.
    EXPECT_EQ(m, r) << i;
  }
  int differing = 0;
  for (int64_t i = 0; i < exact.outputs[0].numel(); ++i) {
    const double r = exact.outputs[0].get(i), m = member.outputs[0].get(i);
    differing += m != native.outputs[0].get(i);
    EXPECT_LE(std::fabs(m - r), 0.01 * std::fabs(r) + 1e-3) << i;
  }
  EXPECT_GT(differing, 0);
}

}  // namespace
}  // namespace difftest::reference
