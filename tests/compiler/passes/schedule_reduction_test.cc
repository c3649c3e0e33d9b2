// ScheduleReduction (its cases, folds it must leave alone among them, in
// tests/passes/ScheduleReduction/): reductions at sizes that are not lane multiples (constant and
// symbolic) compiled at O3 against the reference, and the property that it preserves the
// reference.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "fuzz/generator.h"
#include "tests/compiler/passes/schedule_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

using testing::rule_fires_and_agrees;

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
