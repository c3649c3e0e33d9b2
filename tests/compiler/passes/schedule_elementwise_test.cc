// ScheduleElementwise (its cases: flattening, broadcast nests, small and unrecognised nests, in
// tests/passes/ScheduleElementwise/): sizes that are not vector multiples compiled at O3 against the reference, and the
// property that it preserves the reference on generated programs.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "fuzz/generator.h"
#include "tests/compiler/passes/schedule_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

using testing::rule_fires_and_agrees;

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
