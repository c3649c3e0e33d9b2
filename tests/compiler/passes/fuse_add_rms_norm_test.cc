// FuseAddRMSNorm: IR-in/IR-out cases and the property that it preserves the reference.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "fuzz/generator.h"
#include "tests/support/pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

using testing::expect_rewrite;
using testing::expect_unchanged;

TEST(FuseAddRMSNorm, GroupsTheResidualAddWithTheNormAndKeepsTheSum) {
  expect_rewrite("FuseAddRMSNorm", R"(
program @p(n: 1..8) {
  %x: f32[n, 8] = param
  %r: f32[n, 8] = param
  %g: f32[8] = param
  %0: f32[n, 8] = add(%x, %r)
  %1: f32[n, 8] = exp(%x)
  %2: f32[n, 8] = rms_norm(%0, %g)
  %3: f32[n, 8] = mul(%2, %0)
  return %3, %1
}
)",
                 R"(
program @p(n: 1..8) {
  %x: f32[n, 8] = param
  %r: f32[n, 8] = param
  %g: f32[8] = param
  %0: f32[n, 8] = add(%x, %r) @fused(0)
  %2: f32[n, 8] = rms_norm(%0, %g) @fused(0)
  %1: f32[n, 8] = exp(%x)
  %3: f32[n, 8] = mul(%2, %0)
  return %3, %1
}
)",
                 "the norm moves up next to the add; the sum is still used by mul (the residual)");
}

TEST(FuseAddRMSNorm, MovesTheAddDownWhenTheWeightIsComputedBetween) {
  expect_rewrite("FuseAddRMSNorm", R"(
program @p(n: 1..8) {
  %x: f32[n, 8] = param
  %w: f32[8] = param
  %0: f32[n, 8] = add(%x, %x)
  %g: f32[8] = exp(%w)
  %1: f32[n, 8] = rms_norm(%0, %g)
  return %1
}
)",
                 R"(
program @p(n: 1..8) {
  %x: f32[n, 8] = param
  %w: f32[8] = param
  %g: f32[8] = exp(%w)
  %0: f32[n, 8] = add(%x, %x) @fused(0)
  %1: f32[n, 8] = rms_norm(%0, %g) @fused(0)
  return %1
}
)",
                 "the weight is defined after the add, so the add moves down instead");
}

TEST(FuseAddRMSNorm, MustNotFuseWhenNeitherMoveKeepsTheOrderValid) {
  expect_unchanged("FuseAddRMSNorm", R"(
program @p(n: 1..8) {
  %x: f32[n, 8] = param
  %0: f32[n, 8] = add(%x, %x)
  %s: f32[8] = sum(%0, axes=[0])
  %1: f32[n, 8] = rms_norm(%0, %s)
  return %1
}
)",
                   "the weight is computed from the sum between the two: no single kernel can hold them");
}

TEST(FuseAddRMSNorm, IgnoresOtherProducersAndOtherOperands) {
  expect_unchanged("FuseAddRMSNorm", R"(
program @p(n: 1..8) {
  %x: f32[n, 8] = param
  %g: f32[8] = param
  %0: f32[n, 8] = mul(%x, %x)
  %1: f32[n, 8] = rms_norm(%0, %g)
  %h: f32[8] = add(%g, %g)
  %2: f32[n, 8] = rms_norm(%x, %h)
  return %1, %2
}
)",
                   "a mul feeding the norm, or an add feeding its weight, is not the pattern");
}

RC_GTEST_PROP(FuseAddRMSNorm, PreservesTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 8;
  options.template_percent = 50;
  const Program p = generate_program(choices, options);
  const Program after = pipeline::find_pass("FuseAddRMSNorm").graph(p, testing::planted_context());
  verify(after);
  RC_ASSERT(after.num_calls() == p.num_calls());
  const auto preserved = testing::preserves_reference(p, after);
  if (!preserved) RC_FAIL(preserved.message());
}

}  // namespace
}  // namespace difftest
