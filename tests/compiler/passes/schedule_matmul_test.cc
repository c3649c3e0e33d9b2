// ScheduleMatmul (its tile cases: tests/passes/ScheduleMatmul/): tails at sizes that are not tile multiples (constant and
// symbolic), dtypes, transposes and batch dims compiled at O3 against the reference, and the
// property that it preserves the reference on generated programs.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <rapidcheck/gtest.h>

#include "fuzz/generator.h"
#include "tests/compiler/passes/schedule_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

using testing::rule_fires_and_agrees;

TEST(ScheduleMatmul, DoesNotRescheduleItsOwnOutput) {
  const loop::Module once = testing::lowered(R"(
program @p(m: 1..40, n: 1..40) {
  %a: f32[m, 9] = param
  %b: f32[9, n] = param
  %y: f32[m, n] = matmul(%a, %b)
  return %y
}
)",
                                             {"LegalizeOps", "ScheduleMatmul"});
  EXPECT_EQ(testing::occurrences(once, "vectorized"), 12) << "4 rows x (init, update, store)";
  const loop::Module twice = testing::run_loop_pass("ScheduleMatmul", once);
  EXPECT_TRUE(twice.funcs[0].body.same_as(once.funcs[0].body)) << loop::print(twice);
}

TEST(ScheduleMatmul, ConstantShapesThatAreNotTileMultiples) {
  for (const auto& [m, n, k] : std::vector<std::tuple<int, int, int>>{
           {1, 7, 13}, {7, 13, 17}, {13, 17, 33}, {17, 33, 1}, {33, 1, 7}, {33, 33, 33}}) {
    const std::string text = fmt::format(R"(
program @p() {{
  %a: f32[{0}, {2}] = param
  %b: f32[{2}, {1}] = param
  %y: f32[{0}, {1}] = matmul(%a, %b)
  return %y
}}
)",
                                         m, n, k);
    EXPECT_TRUE(rule_fires_and_agrees("ScheduleMatmul", text)) << m << "x" << n << "x" << k;
  }
}

TEST(ScheduleMatmul, SymbolicShapesGetGuardedTails) {
  EXPECT_TRUE(rule_fires_and_agrees("ScheduleMatmul", R"(
program @p(m: 1..33, n: 1..33, k: 1..33) {
  %a: f32[m, k] = param
  %b: f32[k, n] = param
  %y: f32[m, n] = matmul(%a, %b)
  %c: f32[m, 17] = param
  %d: f32[17, 13] = param
  %z: f32[m, 13] = matmul(%c, %d)
  return %y, %z
}
)",
                                    2));
}

TEST(ScheduleMatmul, TransposesBatchesAndBroadcastBatches) {
  EXPECT_TRUE(rule_fires_and_agrees("ScheduleMatmul", R"(
program @p(b: 1..3, m: 1..17, n: 1..33) {
  %a: f32[b, 13, m] = param
  %w: f32[n, 13] = param
  %y: f32[b, m, n] = matmul(%a, %w, transpose_a=true, transpose_b=true)
  %c: f32[2, b, m, 7] = param
  %d: f32[b, 7, n] = param
  %z: f32[2, b, m, n] = matmul(%c, %d)
  %x: f32[b, m, 7] = param
  %l: f32[n, 7] = param
  %bias: f32[n] = param
  %v: f32[b, m, n] = linear(%x, %l, %bias)
  return %y, %z, %v
}
)",
                                    3));
}

TEST(ScheduleMatmul, NarrowFloatsKeepTheirAccumulatorAndRounding) {
  EXPECT_TRUE(rule_fires_and_agrees("ScheduleMatmul", R"(
program @p(m: 1..17, n: 1..33) {
  %a: f16[m, 33] = param
  %b: f16[33, n] = param
  %y: f16[m, n] = matmul(%a, %b, acc=f32)
  %z: f16[m, n] = matmul(%a, %b)
  %c: bf16[m, 13] = param
  %d: bf16[13, n] = param
  %u: bf16[m, n] = matmul(%c, %d, acc=f32)
  %v: bf16[m, n] = matmul(%c, %d)
  return %y, %z, %u, %v
}
)",
                                    4));
  // The tile's accumulators carry the declared dtype, not the operands'.
  const loop::Module m = testing::run_loop_pass("ScheduleMatmul", testing::lowered(R"(
program @p(m: 1..17) {
  %a: f16[m, 33] = param
  %b: f16[33, 8] = param
  %y: f16[m, 8] = matmul(%a, %b, acc=f32)
  return %y
}
)"));
  EXPECT_EQ(testing::occurrences(m, "acc2t: f32[32] local"), 1) << loop::print(m);
}

RC_GTEST_PROP(ScheduleMatmul, PreservesTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 3;
  options.max_elements = int64_t{1} << 12;
  options.template_percent = 0;
  options.weights = {{"matmul", 200}, {"linear", 200}};
  const Program p = generate_program(choices, options);
  const auto agrees = testing::compiled_agrees(p, {"LegalizeOps", "ScheduleMatmul"}, 3);
  if (!agrees) RC_FAIL(agrees.message());
}

}  // namespace
}  // namespace difftest
