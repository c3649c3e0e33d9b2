// The simplifier and the prover: hand-written cases plus properties checked against the
// evaluator on random bindings.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "compiler/support/diagnostics.h"
#include "compiler/sym/sym_parse.h"
#include "compiler/sym/sym_poly.h"
#include "compiler/sym/sym_simplify.h"
#include "tests/support/rc_choices.h"
#include "tests/support/sym_gen.h"

namespace difftest::sym {
namespace {

using difftest::testing::random_env;
using difftest::testing::random_expr;
using difftest::testing::RcChoices;
using difftest::testing::test_ranges;

std::string simp(const char* text, const Ranges& r = {}) { return to_string(simplify(parse(text), r)); }

const Ranges kDims = {{"n", Range{1, 256}}, {"m", Range{1, 64}}};

TEST(Simplify, RingCanonicalForm) {
  EXPECT_EQ(simp("n + m - n"), "m");
  EXPECT_EQ(simp("n + m"), simp("m + n"));
  EXPECT_EQ(simp("2*n - n"), "n");
  EXPECT_EQ(simp("n*64 - (n*2)*32"), "0");
  EXPECT_EQ(simp("1 + n*2 + m"), "m + 2*n + 1");
  EXPECT_EQ(simp("(n + 1)*(n - 1)"), "n*n - 1");
  EXPECT_EQ(simp("3 - n"), "-1*n + 3");
  EXPECT_EQ(simp("m - 2*n - 1"), "m - 2*n - 1");
}

TEST(Simplify, FloorDivisionAndModulo) {
  EXPECT_EQ(simp("(2*n + 4) // 2"), "n + 2");
  EXPECT_EQ(simp("(2*n + 1) // 2"), "n");
  EXPECT_EQ(simp("(n*8 + 3) % 8", kDims), "3");
  EXPECT_EQ(simp("n // 1"), "n");
  EXPECT_EQ(simp("(n % 8) % 4"), "n % 4");
  EXPECT_EQ(simp("(n // 8)*8 + n % 8"), "n");
  EXPECT_EQ(simp("n - (n // 4)*4"), "n % 4");
  EXPECT_EQ(simp("(n // 2) // 3"), "n // 6");
  EXPECT_EQ(simp("(n*4) // 8"), "n // 2");
  EXPECT_EQ(simp("n // 300", kDims), "0");
  EXPECT_EQ(simp("n % 300", kDims), "n");
  EXPECT_EQ(simp("(n - 10) % 8"), "(n + 6) % 8");
  // Without ranges nothing is known about the sign of n: no range-based rewrite.
  EXPECT_EQ(simp("n // 300"), "n // 300");
}

TEST(Simplify, MinMax) {
  EXPECT_EQ(simp("min(n, n + 1)"), "n");
  EXPECT_EQ(simp("max(n, 1)", kDims), "n");
  EXPECT_EQ(simp("max(n, 1)"), "max(1, n)");  // canonical operand order: constants first
  EXPECT_EQ(simp("min(n + 3, m + 3)"), "min(m, n) + 3");
  EXPECT_EQ(simp("min(n, 2*n)", kDims), "n");
  EXPECT_EQ(simp("min(n, m) + max(n, m)"), "m + n");
}

TEST(Simplify, ConvOutputLength) {
  // (L + 2p - d*(k-1) - 1) // s + 1 with p=1, d=1, k=3, s=1 is L.
  EXPECT_EQ(simp("(n + 2*1 - 1*(3 - 1) - 1) // 1 + 1"), "n");
  // With stride 2: (n - 1) // 2 + 1 stays symbolic.
  EXPECT_EQ(simp("(n + 2*1 - 1*(3 - 1) - 1) // 2 + 1"), "(n - 1) // 2 + 1");
}

// simplify keeps its results for the rest of the process (every variant simplifies the same
// indices): a kept result must answer only the same expression under the same ranges, and an
// expression simplify returns as it is (a variable) must come back as the caller's own node.
TEST(Simplify, KeptResultsAnswerOnlyTheSameExpressionUnderTheSameRanges) {
  const Ranges narrow = {{"n", Range{0, 3}}};
  const Ranges wide = {{"n", Range{0, 300}}};
  EXPECT_EQ(to_string(simplify(parse("n // 4 + n % 4"), narrow)), "n");
  EXPECT_EQ(to_string(simplify(parse("n // 4 + n % 4"), wide)), "n // 4 + n % 4");
  EXPECT_EQ(to_string(simplify(parse("n // 4 + n % 4"), narrow)), "n");
  const Expr first = parse("n");
  const Expr second = parse("n");
  ASSERT_FALSE(first.same_as(second));
  EXPECT_TRUE(simplify(first, wide).same_as(first));
  EXPECT_TRUE(simplify(second, wide).same_as(second));
}

TEST(Prove, EqualitiesBoundsAndDivisibility) {
  EXPECT_EQ(prove_eq(parse("n*64"), parse("n*2*32"), kDims), Truth::True);
  EXPECT_EQ(prove_eq(parse("n*64"), parse("n*33"), kDims), Truth::False);
  EXPECT_EQ(prove_eq(parse("n"), parse("m"), kDims), Truth::Unknown);
  EXPECT_EQ(prove_ge(parse("n // 5 - 1"), Expr(1), {{"n", Range{10, 100}}}), Truth::True);
  EXPECT_EQ(prove_ge(parse("n // 5 - 1"), Expr(1), {{"n", Range{1, 100}}}), Truth::Unknown);
  EXPECT_EQ(prove_ge(parse("n - 300"), Expr(1), kDims), Truth::False);
  EXPECT_EQ(prove_lt(parse("n % 8"), Expr(8), {}), Truth::True);
  EXPECT_EQ(prove_divisible(parse("2*m"), 2, kDims), Truth::True);
  EXPECT_EQ(prove_divisible(parse("4*n + 6"), 2, kDims), Truth::True);
  EXPECT_EQ(prove_divisible(parse("4*n + 6"), 4, kDims), Truth::False);
  EXPECT_EQ(prove_divisible(parse("n"), 2, kDims), Truth::Unknown);
}

TEST(Bounds, IntervalsAreTightOnSimpleForms) {
  const Interval a = bounds(parse("2*n - m"), kDims);
  EXPECT_EQ(a.lo, 2 - 64);
  EXPECT_EQ(a.hi, 512 - 1);
  const Interval d = bounds(parse("n // 4"), kDims);
  EXPECT_EQ(d.lo, 0);
  EXPECT_EQ(d.hi, 64);
  const Interval u = bounds(parse("x + 1"), kDims);
  EXPECT_FALSE(u.lo_finite());
  EXPECT_FALSE(u.hi_finite());
  // Overflowing bounds saturate instead of wrapping.
  const Interval big = bounds(parse("n*n*n*n*n*n*n*n"), {{"n", Range{1, 1 << 30}}});
  EXPECT_EQ(big.lo, 1);
  EXPECT_FALSE(big.hi_finite());
}

template <typename F>
void for_random_envs(ChoiceSource& c, const Ranges& r, int count, F&& f) {
  for (int i = 0; i < count; ++i) f(random_env(c, r));
}

RC_GTEST_PROP(SimplifyProperty, PreservesValueWhereDefined, ()) {
  RcChoices c;
  const Ranges r = test_ranges();
  const Expr e = random_expr(c, 4);
  const Expr s = simplify(e, r);
  PcgChoices envs(e.hash());
  for_random_envs(envs, r, 20, [&](const Env& env) {
    int64_t want;
    try {
      want = eval(e, env);
    } catch (const UserError&) {
      return;  // e itself is undefined here (division by zero, overflow)
    }
    RC_ASSERT(eval(s, env) == want);
  });
}

RC_GTEST_PROP(SimplifyProperty, IsIdempotent, ()) {
  RcChoices c;
  const Ranges r = test_ranges();
  const Expr s = simplify(random_expr(c, 4), r);
  RC_ASSERT(to_string(simplify(s, r)) == to_string(s));
}

RC_GTEST_PROP(SimplifyProperty, RingNormalizationPreservesValue, ()) {
  RcChoices c;
  const Expr e = random_expr(c, 4);
  const Expr n = ring_normalize(e);
  PcgChoices envs(e.hash() + 1);
  for_random_envs(envs, test_ranges(), 20, [&](const Env& env) {
    try {
      const int64_t want = eval(e, env);
      RC_ASSERT(eval(n, env) == want);
    } catch (const UserError&) {
    }
  });
}

RC_GTEST_PROP(ProverProperty, NeverClaimsAFalseFact, ()) {
  RcChoices c;
  const Ranges r = test_ranges();
  const Expr a = random_expr(c, 3);
  const Expr b = c.chance(1, 3) ? Expr(c.range(-10, 10)) : random_expr(c, 3);
  const Cmp cmp = c.pick(std::vector<Cmp>{Cmp::EQ, Cmp::NE, Cmp::LT, Cmp::LE, Cmp::GT, Cmp::GE});
  const Truth t = c.chance(1, 2) ? prove(cmp, a, b, r) : prove_basic(cmp, a, b, r);
  if (t == Truth::Unknown) return;
  PcgChoices envs(a.hash() ^ b.hash());
  for_random_envs(envs, r, 30, [&](const Env& env) {
    int64_t x, y;
    try {
      x = eval(a, env);
      y = eval(b, env);
    } catch (const UserError&) {
      return;
    }
    bool holds = false;
    switch (cmp) {
      case Cmp::EQ: holds = x == y; break;
      case Cmp::NE: holds = x != y; break;
      case Cmp::LT: holds = x < y; break;
      case Cmp::LE: holds = x <= y; break;
      case Cmp::GT: holds = x > y; break;
      case Cmp::GE: holds = x >= y; break;
    }
    RC_ASSERT(holds == (t == Truth::True));
  });
}

RC_GTEST_PROP(ProverProperty, BoundsContainEveryValue, ()) {
  RcChoices c;
  const Ranges r = test_ranges();
  const Expr e = random_expr(c, 4);
  const Interval i = bounds(e, r);
  PcgChoices envs(e.hash() + 7);
  for_random_envs(envs, r, 30, [&](const Env& env) {
    try {
      const int64_t v = eval(e, env);
      RC_ASSERT(v >= i.lo);
      RC_ASSERT(v <= i.hi);
    } catch (const UserError&) {
    }
  });
}

RC_GTEST_PROP(ProverProperty, DivisibilityClaimsHold, ()) {
  RcChoices c;
  const Ranges r = test_ranges();
  const Expr e = random_expr(c, 3);
  const int64_t d = c.pick(std::vector<int64_t>{2, 3, 4, 8});
  const Truth t = prove_divisible(e, d, r);
  if (t == Truth::Unknown) return;
  PcgChoices envs(e.hash() + 3);
  for_random_envs(envs, r, 30, [&](const Env& env) {
    try {
      const int64_t v = eval(e, env);
      RC_ASSERT((v % d == 0) == (t == Truth::True));
    } catch (const UserError&) {
    }
  });
}

}  // namespace
}  // namespace difftest::sym
