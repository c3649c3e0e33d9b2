// Operands that are the same value (tolerance/value_identity.h) carry one error, not two: x - x
// is exactly 0, x < x certainly false, float x / x 1 within the two roundings of division by the
// reciprocal (x != 0), and so through copies made by
// exact ops (neg, reshape, cast); a `where` on such a comparison takes a certain branch. Bounded
// as independent, every one of these was uncertain and its output unchecked: a bool output
// flipped whole passed. Expected values are written out by hand from the semantics.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tests/support/ir_util.h"
#include "tolerance/bounds.h"
#include "tolerance/value_identity.h"

namespace difftest::tolerance {
namespace {

// %x carries an error (exp rounds); %nx and %nx2 are two separate negations of it.
constexpr const char* kSelf = R"(program @self() {
  %a: f16[8] = param
  %x: f16[8] = exp(%a)
  %lt: bool[8] = less(%x, %x)
  %le: bool[8] = less_equal(%x, %x)
  %ne: bool[8] = not_equal(%x, %x)
  %d: f16[8] = sub(%x, %x)
  %q: f16[8] = div(%x, %x)
  %nx: f16[8] = neg(%x)
  %nx2: f16[8] = neg(%x)
  %gt: bool[8] = greater(%nx, %nx2)
  %w: f16[8] = where(%gt, %a, %x)
  %y: f16[8] = exp(%a)
  %lty: bool[8] = less(%x, %y)
  %xor: bool[8] = logical_xor(%lty, %lty)
  return %lt, %le, %ne, %d, %q, %gt, %w, %lty, %xor
}
)";

class CorrelatedOperandsInEachMode : public ::testing::TestWithParam<BoundMode> {};

TEST_P(CorrelatedOperandsInEachMode, TheSameValueOnBothSidesIsExactAndCertain) {
  const Program p = testing::verified_program(kSelf, "self.ir");
  std::map<std::string, Tensor> inputs;
  inputs["a"] = Tensor::from_doubles(DType::f16, {8}, {-2, -1, -0.5, 0, 0.25, 0.5, 1, 2});
  Options opt;
  opt.mode = GetParam();
  const BoundedProgram b = bound_program(p, {}, inputs, opt);
  ASSERT_FALSE(b.invalid) << b.invalid_reason;
  const std::vector<std::string> names = {"x < x",  "x <= x",    "x != x", "x - x",    "x / x",
                                          "-x > -x", "where(-x > -x)", "x < y", "b xor b"};
  const std::vector<double> want = {0, 1, 0, 0, 1, 0, -1 /* x itself: checked below */, -1, 0};
  for (size_t o = 0; o < names.size(); ++o) {
    const Bounded& out = *b.outputs[o];
    for (size_t i = 0; i < out.ref.size(); ++i) {
      if (names[o] == "x < y") {
        // exp(a) twice: two computations, each rounded its own way, so the comparison of the
        // two is in doubt wherever their bounds touch, which they do everywhere here.
        EXPECT_EQ(out.uncertain[i], 1) << names[o] << " at " << i;
        continue;
      }
      EXPECT_EQ(out.uncertain[i], 0) << names[o] << " at " << i;
      if (names[o] == "where(-x > -x)") {
        // The condition is certainly false: the element is x's, with x's bound.
        EXPECT_EQ(out.err[i], b.values.at(p.bindings()[1].result().get()).err[i]) << names[o];
        continue;
      }
      EXPECT_EQ(out.ref[i], want[o]) << names[o] << " at " << i;
      // x * (1 / x) rounds twice: 2 f16 units of 1 (u = 2^-11), each with half the subnormal spacing.
      EXPECT_EQ(out.err[i], names[o] == "x / x" ? 0x1p-10 + 0x1p-24 : 0) << names[o] << " at " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, CorrelatedOperandsInEachMode,
                         ::testing::Values(BoundMode::Deterministic, BoundMode::Probabilistic));

// x / x is 1 only where x is certainly not 0, and there within two f32 roundings.
TEST(CorrelatedOperands, ADivisionOfAValueByItselfIsUncertainWhereItMayBeZero) {
  const Program p = testing::verified_program(R"(program @q() {
  %a: f32[3] = param
  %c: f32[3] = param
  %e: f32[3] = exp(%a)
  %x: f32[3] = sub(%e, %c)
  %q: f32[3] = div(%x, %x)
  return %q
}
)",
                                              "q.ir");
  std::map<std::string, Tensor> inputs;
  inputs["a"] = Tensor::from_doubles(DType::f32, {3}, {0, 0.5, 2});
  // exp(0) - (1 - 2^-24) = 2^-24, within exp's error budget (8 f32 u of 1) of 0.
  inputs["c"] = Tensor::from_doubles(DType::f32, {3}, {1 - 0x1p-24, 0, 0});
  const BoundedProgram b = bound_program(p, {}, inputs, Options{});
  ASSERT_FALSE(b.invalid) << b.invalid_reason;
  const Bounded& q = *b.outputs[0];
  EXPECT_EQ(q.uncertain[0], 1);
  EXPECT_EQ(q.uncertain[1], 0);
  EXPECT_EQ(q.uncertain[2], 0);
  EXPECT_DOUBLE_EQ(q.err[1], 0x1p-23);
}

// Division by the reciprocal, a legitimate form of div (docs/tolerance.md), gives x * (1 / x) =
// 1 - 2^-24 for this x (computed here in C++ float); OpenVINO's CPU plugin answered
// floor_divide(x, x) = 0 for it. Both are within the bounds: x / x within 2 f32 units of 1,
// floor_divide(x, x) uncertain with the choices 0 and 1, floor_mod(x, x) 0 or x.
TEST(CorrelatedOperands, AQuotientOfAValueByItselfAdmitsDivisionByTheReciprocal) {
  const float x = std::bit_cast<float>(uint32_t{0xbf28b731});  // -0.6590453
  volatile float reciprocal = 1.0f / x;
  volatile float product = x * reciprocal;
  ASSERT_EQ(product, 1.0f - 0x1p-24f) << "the reciprocal form of x / x is not 1 - ulp for this x";
  const Program p = testing::verified_program(R"(program @q() {
  %x: f32[1] = param
  %q: f32[1] = div(%x, %x)
  %f: f32[1] = floor_divide(%x, %x)
  %m: f32[1] = floor_mod(%x, %x)
  return %q, %f, %m
}
)",
                                              "q.ir");
  std::map<std::string, Tensor> inputs;
  inputs["x"] = Tensor::from_doubles(DType::f32, {1}, {x});
  const BoundedProgram b = bound_program(p, {}, inputs, Options{});
  ASSERT_FALSE(b.invalid) << b.invalid_reason;
  const Bounded &q = *b.outputs[0], &f = *b.outputs[1], &m = *b.outputs[2];
  EXPECT_EQ(q.uncertain[0], 0);
  EXPECT_LE(std::fabs(static_cast<double>(product) - q.ref[0]), q.err[0]);
  EXPECT_EQ(f.uncertain[0], 1);
  ASSERT_EQ(f.choices.count(0), 1u);
  EXPECT_EQ(f.choices.at(0), (std::vector<double>{0, 1}));
  EXPECT_EQ(m.uncertain[0], 1);
  ASSERT_EQ(m.choices.count(0), 1u);
  EXPECT_EQ(m.choices.at(0), (std::vector<double>{x, 0}));
}

// Which values are the same: by SSA identity, through exact ops with the same attributes, and
// not through ops that round (two exps may be computed two ways) or with other attributes.
TEST(ValueIdentity, SameThroughExactOpsOnlyWithTheSameAttributes) {
  const Program p = testing::verified_program(R"(program @ids() {
  %a: f32[2, 3] = param
  %e1: f32[2, 3] = exp(%a)
  %e2: f32[2, 3] = exp(%a)
  %t1: f32[3, 2] = permute_dims(%a, axes=[1, 0])
  %t2: f32[3, 2] = permute_dims(%a, axes=[1, 0])
  %r1: f32[3, 2] = reshape(%a, shape=[3, 2])
  %c1: f16[2, 3] = cast(%a, dtype=f16)
  %c2: f16[2, 3] = cast(%a, dtype=f16)
  %n1: f16[2, 3] = neg(%c1)
  %n2: f16[2, 3] = neg(%c2)
  return %e1, %e2, %t1, %t2, %r1, %n1, %n2
}
)",
                                              "ids.ir");
  const ValueIdentity id(p);
  const auto& o = p.outputs();
  EXPECT_TRUE(id.same(o[0], o[0]));
  EXPECT_FALSE(id.same(o[0], o[1])) << "exp rounds: two calls may differ";
  EXPECT_TRUE(id.same(o[2], o[3])) << "the same transpose of the same value";
  EXPECT_FALSE(id.same(o[2], o[4])) << "a reshape is not a transpose, though both are [3, 2]";
  EXPECT_TRUE(id.same(o[5], o[6])) << "neg of the same cast of the same value";
}

// softmax over one element divides an exponential by itself: 1 exactly, whatever its operand's
// error, so an argmin over rows of such values is a certain tie (the first index), as in
// seeds 564 and 806 of the builtin campaign, which were unchecked.
TEST(CorrelatedOperands, ASoftmaxOverOneElementIsExactlyOne) {
  const Program p = testing::verified_program(R"(program @one() {
  %a: f16[3, 1] = param
  %x: f16[3, 1] = exp(%a)
  %s: f16[3, 1] = softmax(%x, axis=1)
  %m: i64[1] = argmin(%s, axis=0)
  return %s, %m
}
)",
                                              "one.ir");
  std::map<std::string, Tensor> inputs;
  inputs["a"] = Tensor::from_doubles(DType::f16, {3, 1}, {-1, 0.5, 2});
  const BoundedProgram b = bound_program(p, {}, inputs, Options{});
  ASSERT_FALSE(b.invalid) << b.invalid_reason;
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(b.outputs[0]->ref[i], 1);
    EXPECT_EQ(b.outputs[0]->err[i], 0);
    EXPECT_EQ(b.outputs[0]->uncertain[i], 0);
  }
  EXPECT_EQ(b.outputs[1]->ref[0], 0);
  EXPECT_EQ(b.outputs[1]->uncertain[0], 0) << "three exact ones tie: the first index";
}

// A bool or a small integer cast to bf16 is exact, so an argmin over such values ties
// exactly: the first index, certain (seed 559 of the builtin campaign, an argmin over a cast of
// logical_xor results, was unchecked while the casts carried a rounding bound).
TEST(CorrelatedOperands, AnExactValueCastToAFloatThatHoldsItIsExact) {
  const Program p = testing::verified_program(R"(program @cast() {
  %b: bool[3] = param
  %i: i32[3] = param
  %bf: bf16[3] = cast(%b, dtype=bf16)
  %if: bf16[3] = cast(%i, dtype=bf16)
  %m: i64[] = argmin(%bf, axis=0)
  return %bf, %if, %m
}
)",
                                              "cast.ir");
  std::map<std::string, Tensor> inputs;
  inputs["b"] = Tensor::from_ints(DType::boolean, {3}, {1, 1, 1});
  inputs["i"] = Tensor::from_ints(DType::i32, {3}, {3, 257, -100});
  const BoundedProgram b = bound_program(p, {}, inputs, Options{});
  ASSERT_FALSE(b.invalid) << b.invalid_reason;
  EXPECT_EQ(b.outputs[0]->err, (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(b.outputs[1]->err[0], 0) << "3 is a bf16";
  EXPECT_GT(b.outputs[1]->err[1], 0) << "257 is not: bf16 holds 256 and 258";
  EXPECT_EQ(b.outputs[1]->err[2], 0) << "-100 is a bf16";
  EXPECT_EQ(b.outputs[2]->uncertain[0], 0) << "three exact ones tie: the first index";
}

// Values wholly below clip's lower limit are that limit, exactly where the dtype holds it: an
// argmax over rows clipped to 1 ties exactly and is certain (seed 1839 of the builtin campaign
// was unchecked while every clipped value carried a rounding of 1).
TEST(CorrelatedOperands, ValuesClippedToALimitTheDtypeHoldsAreExact) {
  const Program p = testing::verified_program(R"(program @clipped() {
  %x: bf16[2, 3] = param
  %e: bf16[2, 3] = exp(%x)
  %c: bf16[2, 3] = clip(%e, min=1, max=4)
  %m: i64[2] = argmax(%c, axis=1)
  return %c, %m
}
)",
                                              "clipped.ir");
  std::map<std::string, Tensor> inputs;
  // Row 0: exp(-2), exp(-1.5), exp(-1), all below 1; row 1: exp(0.5) = 1.65 lies inside.
  inputs["x"] = Tensor::from_doubles(DType::bf16, {2, 3}, {-2, -1.5, -1, -2, 0.5, -1});
  const BoundedProgram b = bound_program(p, {}, inputs, Options{});
  ASSERT_FALSE(b.invalid) << b.invalid_reason;
  const Bounded& c = *b.outputs[0];
  EXPECT_EQ(c.err[0], 0);
  EXPECT_EQ(c.err[2], 0);
  EXPECT_GT(c.err[4], 0) << "exp(0.5) is inside the limits: exp's error stays";
  EXPECT_EQ(b.outputs[1]->uncertain, (std::vector<uint8_t>{0, 0})) << "row 0 ties exactly: the first index";
  EXPECT_EQ(b.outputs[1]->ref[0], 0);
}

}  // namespace
}  // namespace difftest::tolerance
