// FuseDequantizeMatmul: IR-in/IR-out cases and the property that it preserves the reference.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "fuzz/generator.h"
#include "tests/support/pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

using testing::expect_rewrite;
using testing::expect_unchanged;

TEST(FuseDequantizeMatmul, GroupsTheDequantizedWeightWithLinear) {
  expect_rewrite("FuseDequantizeMatmul", R"(
program @p(n: 1..8) {
  %pk: u32[8, 2] = param
  %sc: f32[8, 2] = param
  %x: f32[n, 16] = param
  %w: f32[8, 16] = dequantize(%pk, %sc, format="q4f32_1", group=8)
  %h: f32[n, 16] = exp(%x)
  %y: f32[n, 8] = linear(%h, %w)
  return %y
}
)",
                 R"(
program @p(n: 1..8) {
  %pk: u32[8, 2] = param
  %sc: f32[8, 2] = param
  %x: f32[n, 16] = param
  %h: f32[n, 16] = exp(%x)
  %w: f32[8, 16] = dequantize(%pk, %sc, format="q4f32_1", group=8) @fused(0)
  %y: f32[n, 8] = linear(%h, %w) @fused(0)
  return %y
}
)",
                 "the activation is computed between them, so the dequantize moves down to the linear");
}

TEST(FuseDequantizeMatmul, GroupsTheWeightOfMatmul) {
  expect_rewrite("FuseDequantizeMatmul", R"(
program @p(n: 1..8) {
  %pk: u32[16, 1] = param
  %sc: f32[16, 1] = param
  %x: f32[n, 16] = param
  %w: f32[16, 8] = dequantize(%pk, %sc, format="q4f32_1", group=8)
  %y: f32[n, 8] = matmul(%x, %w)
  return %y
}
)",
                 R"(
program @p(n: 1..8) {
  %pk: u32[16, 1] = param
  %sc: f32[16, 1] = param
  %x: f32[n, 16] = param
  %w: f32[16, 8] = dequantize(%pk, %sc, format="q4f32_1", group=8) @fused(0)
  %y: f32[n, 8] = matmul(%x, %w) @fused(0)
  return %y
}
)",
                 "dequantize feeding matmul's weight operand");
}

TEST(FuseDequantizeMatmul, MustNotFuseADequantizedActivation) {
  expect_unchanged("FuseDequantizeMatmul", R"(
program @p() {
  %pk: u32[8, 2] = param
  %sc: f32[8, 2] = param
  %w: f32[16, 8] = param
  %x: f32[8, 16] = dequantize(%pk, %sc, format="q4f32_1", group=8)
  %y: f32[8, 8] = matmul(%x, %w)
  return %y
}
)",
                   "the dequantized value is operand 0 (the activation), not the weight");
}

RC_GTEST_PROP(FuseDequantizeMatmul, PreservesTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 8;
  options.template_percent = 50;
  const Program p = generate_program(choices, options);
  const Program after = pipeline::find_pass("FuseDequantizeMatmul").graph(p, testing::planted_context());
  verify(after);
  RC_ASSERT(after.num_calls() == p.num_calls());
  const auto preserved = testing::preserves_reference(p, after);
  if (!preserved) RC_FAIL(preserved.message());
}

}  // namespace
}  // namespace difftest
