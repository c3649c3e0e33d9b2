// ScheduleReduction: IR-in/IR-out cases, folds the rule must leave alone, reductions at sizes
// that are not lane multiples (constant and symbolic) compiled at O3 against the reference, and
// the property that it preserves the reference.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "fuzz/generator.h"
#include "tests/compiler/passes/schedule_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

using testing::expect_loop_rewrite;
using testing::rule_fires_and_agrees;

TEST(ScheduleReduction, SplitsAContiguousSumOverLanes) {
  expect_loop_rewrite("ScheduleReduction", R"(func @sum_1(s: f32[2, 20], t: f32[2]) dims() {
  for (i0, 0, 2) serial {
    alloc acc1: f32[1] local {
      acc1[0] = 0.0:f32
      for (i2, 0, 20) serial {
        acc1[0] = (acc1[0] + s[((i0 * 20) + i2)])
      }
      t[i0] = acc1[0]
    }
  }
}
call @sum_1(s, t) dims()
)",
                      R"(func @sum_1(s: f32[2, 20], t: f32[2]) dims() {
  for (i0, 0, 2) parallel {
    alloc acc1l: f32[16] local {
      for (i2l, 0, 16) vectorized { acc1l[i2l] = 0.0:f32 }
      for (i2o, 0, 1) serial {
        for (i2l, 0, 16) vectorized { acc1l[i2l] = (acc1l[i2l] + s[((i0 * 20) + ((i2o * 16) + i2l))]) }
      }
      for (i2t, 16, 4) serial { acc1l[0] = (acc1l[0] + s[((i0 * 20) + i2t)]) }
      for (i2c, 1, 15) serial { acc1l[0] = (acc1l[0] + acc1l[i2c]) }
      t[i0] = acc1l[0]
    }
  }
}
call @sum_1(s, t) dims()
)",
                      "16 lanes, a 4-element tail, the lanes combined into lane 0, the row loop parallel");
}

TEST(ScheduleReduction, MaxStartsEveryLaneAtItsIdentity) {
  expect_loop_rewrite("ScheduleReduction", R"(func @max_0(s: f16[32], t: f16[1]) dims() {
  alloc acc1: f16[1] local {
    acc1[0] = -inf:f16
    for (i2, 0, 32) serial {
      acc1[0] = max(acc1[0], s[i2])
    }
    t[0] = acc1[0]
  }
}
call @max_0(s, t) dims()
)",
                      R"(func @max_0(s: f16[32], t: f16[1]) dims() {
  alloc acc1l: f16[32] local {
    for (i2l, 0, 32) vectorized { acc1l[i2l] = -inf:f16 }
    for (i2o, 0, 1) serial {
      for (i2l, 0, 32) vectorized { acc1l[i2l] = max(acc1l[i2l], s[((i2o * 32) + i2l)]) }
    }
    for (i2c, 1, 31) serial { acc1l[0] = max(acc1l[0], acc1l[i2c]) }
    t[0] = acc1l[0]
  }
}
call @max_0(s, t) dims()
)",
                      "a 2-byte accumulator gets 32 lanes; K = 32 leaves no tail; a scalar result has no loop to parallelize");
}

TEST(ScheduleReduction, LeavesOtherFoldsExactlyAsTheyAre) {
  const loop::Module m = testing::lowered(R"(
program @p(n: 1..40) {
  %x: f32[n, 24] = param
  %p: f32[n] = prod(%x, axes=[1])
  %a: i64[n] = argmax(%x, axis=1)
  %c: f32[24] = sum(%x, axes=[0])
  %s: f32[n] = sum(%x, axes=[1])
  %y: f32[n, 8] = param
  %t: f32[n] = sum(%y, axes=[1])
  return %p, %a, %c, %s, %t
}
)");
  const loop::Module after = testing::run_loop_pass("ScheduleReduction", m);
  ASSERT_EQ(after.funcs.size(), 5u);
  EXPECT_TRUE(after.funcs[0].body.same_as(m.funcs[0].body)) << "products are not reassociated";
  EXPECT_TRUE(after.funcs[1].body.same_as(m.funcs[1].body)) << "argmax folds an index, not the values";
  EXPECT_TRUE(after.funcs[2].body.same_as(m.funcs[2].body)) << "a sum down a column reads with stride 24";
  EXPECT_FALSE(after.funcs[3].body.same_as(m.funcs[3].body)) << "the contiguous sum is the one that changes";
  EXPECT_TRUE(after.funcs[4].body.same_as(m.funcs[4].body)) << "K = 8 is shorter than the 16 lanes";
}

TEST(ScheduleReduction, ConstantAndSymbolicLengthsAgreeWithTheReference) {
  for (const int k : {16, 17, 33, 70}) {
    const std::string text = "program @p(n: 1..7) {\n  %x: f32[n, " + std::to_string(k) +
                             "] = param\n  %s: f32[n] = sum(%x, axes=[-1])\n  %m: f32[n, 1] = mean(%x, axes=[1], "
                             "keepdims=true)\n  %a: f32[n] = max(%x, axes=[1])\n  %b: f32[n] = min(%x, axes=[1])\n"
                             "  return %s, %m, %a, %b\n}\n";
    EXPECT_TRUE(rule_fires_and_agrees("ScheduleReduction", text, 4)) << "K = " << k;
  }
  EXPECT_TRUE(rule_fires_and_agrees("ScheduleReduction", R"(
program @p(n: 1..5, k: 1..70) {
  %x: f16[n, 3, k] = param
  %s: f16[n, 3] = sum(%x, axes=[2], acc=f32)
  %t: f16[n, 3] = sum(%x, axes=[2])
  %m: f16[n, 3] = mean(%x, axes=[2], acc=f32)
  %a: f16[n, 3] = max(%x, axes=[2])
  %i: i32[n, k] = param
  %is: i32[n] = sum(%i, axes=[1])
  %im: i32[n] = min(%i, axes=[1])
  return %s, %t, %m, %a, %is, %im
}
)",
                                    6));
}

RC_GTEST_PROP(ScheduleReduction, PreservesTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 3;
  options.max_elements = int64_t{1} << 12;
  options.template_percent = 0;
  options.weights = {{"sum", 200}, {"mean", 200}, {"max", 200}, {"min", 200}};
  const Program p = generate_program(choices, options);
  const auto agrees = testing::compiled_agrees(p, {"LegalizeOps", "ScheduleReduction"}, 3);
  if (!agrees) RC_FAIL(agrees.message());
}

}  // namespace
}  // namespace difftest
