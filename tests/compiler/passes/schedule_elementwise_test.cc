// ScheduleElementwise: IR-in/IR-out cases (flattening, broadcast nests, small and unrecognised
// nests), sizes that are not vector multiples compiled at O3 against the reference, and the
// property that it preserves the reference on generated programs.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "fuzz/generator.h"
#include "tests/compiler/passes/schedule_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

using testing::rule_fires_and_agrees;

// z = x + y over [n, 20] for `target_line` ("" or "target(NAME)\n"), flattened into `lanes`-wide
// vectorized chunks in parallel and a serial remainder.
TEST(ScheduleElementwise, LeavesOtherNestsExactlyAsTheyAre) {
  const loop::Module m = loop::parse_module(R"(func @neg_0(v: f32[8], c: f32[8]) dims() {
  for (i0, 0, 8) serial {
    c[i0] = (v[i0] * -1.0:f32)
  }
}

func @reversed_0(v: f32[n, 64], c: f32[n, 64]) dims(n) {
  for (i0, 0, n) serial {
    for (i1, 0, 64) serial {
      c[((i1 * n) + i0)] = v[((i0 * 64) + i1)]
    }
  }
}

func @inplace_0(c: f32[n]) dims(n) {
  for (i0, 1, (n - 1)) serial {
    c[i0] = c[(i0 - 1)]
  }
  for (i0, 0, n) serial {
    c[i0] = (c[i0] + c[0])
  }
}

func @sum_0(x: f32[4, 8], y: f32[4]) dims() {
  for (i0, 0, 4) serial {
    alloc acc1: f32[1] local {
      acc1[0] = 0.0:f32
      for (k2, 0, 8) serial {
        acc1[0] = (acc1[0] + x[((i0 * 8) + k2)])
      }
      y[i0] = acc1[0]
    }
  }
}

call @neg_0(v, c) dims()
call @reversed_0(v, c) dims(n)
call @inplace_0(c) dims(n)
call @sum_0(x, y) dims()
)",
                                            "<case>");
  const loop::Module after = testing::run_loop_pass("ScheduleElementwise", m);
  ASSERT_EQ(after.funcs.size(), 4u);
  EXPECT_TRUE(after.funcs[0].body.same_as(m.funcs[0].body)) << "8 elements: nothing to flatten, vectorize or fork";
  EXPECT_TRUE(after.funcs[1].body.same_as(m.funcs[1].body)) << "the store is not at the row-major index of the loops";
  EXPECT_TRUE(after.funcs[2].body.same_as(m.funcs[2].body)) << "a loop from 1, and a store whose value reads the output";
  EXPECT_TRUE(after.funcs[3].body.same_as(m.funcs[3].body)) << "a reduction is not elementwise";
}

TEST(ScheduleElementwise, NeverIntroducesANameTheFunctionAlreadyUses) {
  // Flattening and splitting would name the chunk loop i0fo, which is a dim here: the nest must
  // stay as it is rather than shadow the dim.
  const loop::Module m = loop::parse_module(R"(func @add_0(x: f32[i0fo, 20], z: f32[i0fo, 20]) dims(i0fo) {
  for (i0, 0, i0fo) serial {
    for (i1, 0, 20) serial {
      z[((i0 * 20) + i1)] = (x[((i0 * 20) + i1)] * 2.0:f32)
    }
  }
}
call @add_0(x, z) dims(n)
)",
                                            "<case>");
  const loop::Module after = testing::run_loop_pass("ScheduleElementwise", m);
  EXPECT_TRUE(after.funcs[0].body.same_as(m.funcs[0].body)) << loop::print(after);
}

TEST(ScheduleElementwise, SizesThatAreNotVectorMultiplesAgreeWithTheReference) {
  EXPECT_TRUE(rule_fires_and_agrees("ScheduleElementwise", R"(
program @p(n: 1..33, m: 1..17) {
  %x: f32[n, m] = param
  %y: f32[n, m] = param
  %a: f32[n, m] = add(%x, %y)
  %b: f32[m] = param
  %c: f32[n, m] = mul(%x, %b)
  %h: f16[n, 7, m] = param
  %e: f16[n, 7, m] = silu(%h)
  %g: bool[n, m] = greater(%x, %y)
  %w: f32[n, m] = where(%g, %x, %y)
  %i: i32[n, m] = cast(%x, dtype=i32)
  %t: f32[m, n] = permute_dims(%x, axes=[1, 0])
  %k: f32[13, 17, 33] = param
  %kk: f32[13, 17, 33] = exp(%k)
  return %a, %c, %e, %w, %i, %t, %kk
}
)",
                                    7));
}

RC_GTEST_PROP(ScheduleElementwise, PreservesTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 4;
  options.max_elements = int64_t{1} << 12;
  options.template_percent = 0;
  const Program p = generate_program(choices, options);
  const auto agrees = testing::compiled_agrees(p, {"LegalizeOps", "ScheduleElementwise"}, 3);
  if (!agrees) RC_FAIL(agrees.message());
}

}  // namespace
}  // namespace difftest
