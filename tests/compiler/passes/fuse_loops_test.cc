// FuseLoops (its cases: tests/passes/FuseLoops/): fused kernels from legalized groups (inlined and allocated intermediates, kernel
// outputs), refusals, and the property that fused kernels agree with the reference.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "fuzz/generator.h"
#include "tests/support/pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

loop::Module legalized(const std::string& text) {
  return pipeline::find_pass("LegalizeOps").lower(testing::parse_case(text), testing::test_context());
}

size_t count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
  return n;
}

TEST(FuseLoops, InlinesAnElementwiseChainIntoOneKernel) {
  const loop::Module m = legalized(R"(
program @p(n: 1..8) {
  %x: f32[n, 4] = param
  %0: f32[n, 4] = exp(%x) @fused(0)
  %1: f32[n, 4] = neg(%0) @fused(0)
  %2: f32[n, 4] = sqrt(%1) @fused(0)
  return %2
}
)");
  const loop::Module after = testing::run_loop_pass("FuseLoops", m);
  const std::string text = loop::print(after);
  ASSERT_EQ(after.calls.size(), 1u) << text;
  ASSERT_EQ(after.funcs.size(), 1u) << text;
  EXPECT_EQ(after.calls[0].buffers, (std::vector<std::string>{"x", "2"})) << "params: the input, then the result";
  EXPECT_EQ(after.calls[0].group, 0);
  EXPECT_EQ(count(text, "alloc"), 0u) << "both intermediates are inlined: " << text;
  EXPECT_EQ(count(text, "for ("), 2u) << "one loop nest of rank 2: " << text;
  EXPECT_NE(text.find("sqrt"), std::string::npos) << text;
  EXPECT_EQ(count(text, "v0["), 0u) << text;
  EXPECT_EQ(count(text, "v1["), 0u) << text;
}

TEST(FuseLoops, KeepsAValueUsedOutsideTheGroupAsAKernelOutput) {
  const loop::Module m = legalized(R"(
program @p(n: 1..8) {
  %x: f32[n, 4] = param
  %0: f32[n, 4] = exp(%x) @fused(0)
  %1: f32[n, 4] = neg(%0) @fused(0)
  %2: f32[n, 4] = abs(%1)
  return %2, %0
}
)");
  const loop::Module after = testing::run_loop_pass("FuseLoops", m);
  ASSERT_EQ(after.calls.size(), 2u) << loop::print(after);
  EXPECT_EQ(after.calls[0].buffers, (std::vector<std::string>{"x", "0", "1"}))
      << "%0 is a program result and %1 is read by abs: both stay outputs";
}

TEST(FuseLoops, AllocatesAnIntermediateThatCannotBeInlined) {
  const loop::Module m = legalized(R"(
program @p(n: 1..8) {
  %x: f32[n, 4] = param
  %0: f32[n, 4] = exp(%x) @fused(0)
  %1: f32[n] = sum(%0, axes=[1]) @fused(0)
  %2: f32[n] = sqrt(%1) @fused(0)
  return %2
}
)");
  const loop::Module after = testing::run_loop_pass("FuseLoops", m);
  const std::string text = loop::print(after);
  ASSERT_EQ(after.calls.size(), 1u) << text;
  EXPECT_EQ(count(text, "alloc v1: f32[n] global"), 1u) << "the sum has a loop-carried accumulator: " << text;
  EXPECT_EQ(count(text, "alloc v0"), 0u) << "exp is read by sum at its own flat index and is inlined: " << text;
}

TEST(FuseLoops, InlinesTheDequantizationIntoTheWeightLoads) {
  const loop::Module m = legalized(R"(
program @p(n: 1..8) {
  %x: f32[n, 16] = param
  %pk: u32[8, 2] = param
  %sc: f32[8, 2] = param
  %w: f32[8, 16] = dequantize(%pk, %sc, format="q4f32_1", group=8) @fused(0)
  %y: f32[n, 8] = linear(%x, %w) @fused(0)
  return %y
}
)");
  const loop::Module after = testing::run_loop_pass("FuseLoops", m);
  const std::string text = loop::print(after);
  ASSERT_EQ(after.calls.size(), 1u) << text;
  EXPECT_EQ(after.calls[0].buffers, (std::vector<std::string>{"pk", "sc", "x", "y"})) << text;
  EXPECT_EQ(count(text, "alloc w"), 0u) << "the float weight is never materialized: " << text;
  EXPECT_EQ(count(text, "w["), 0u) << text;
}

// Found by the 200-random-orders test: SimplifyExpr after FuseOps put an op between two
// members of a group, and FuseLoops refused the module.
TEST(FuseLoops, FusesEachConsecutiveRunOfAnInterruptedGroup) {
  const loop::Module m = loop::parse_module(R"(
func @f(a: f32[4], b: f32[4]) dims() {
  for (i, 0, 4) serial {
    b[i] = a[i]
  }
}
call @f(x, y) dims() @fused(0)
call @f(y, v) dims() @fused(0)
call @f(y, z) dims()
call @f(v, w) dims() @fused(0)
outputs(w, z)
)",
                                            "<case>");
  EXPECT_EQ(pipeline::find_pass("FuseLoops").loop_precondition(m), "");
  const loop::Module out = testing::run_loop_pass("FuseLoops", m);
  ASSERT_EQ(out.calls.size(), 3u) << loop::print(out);
  EXPECT_EQ(out.calls[0].func.rfind("fused_", 0), 0u) << loop::print(out);
  // y is read by the interrupting call and v by the second run: both leave the first kernel.
  EXPECT_EQ(out.calls[0].buffers, (std::vector<std::string>{"x", "y", "v"})) << loop::print(out);
  EXPECT_EQ(out.calls[2].buffers, (std::vector<std::string>{"v", "w"})) << loop::print(out);
  EXPECT_EQ(loop::print(loop::parse_module(loop::print(m), "<again>")), loop::print(m)) << "the text form round-trips";
}

TEST(FuseLoops, RefusesAModuleThatDoesNotListItsOutputs) {
  const loop::Module m = loop::parse_module(
      "func @f(a: f32[4], b: f32[4]) dims() {\n  for (i, 0, 4) serial {\n    b[i] = a[i]\n  }\n}\n"
      "call @f(x, y) dims() @fused(0)\n",
      "<case>");
  EXPECT_NE(pipeline::find_pass("FuseLoops").loop_precondition(m).find("outputs"), std::string::npos);
}

RC_GTEST_PROP(FuseLoops, FusedKernelsAgreeWithTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 8;
  options.template_percent = 30;
  const Program p = generate_program(choices, options);
  const auto agrees = testing::compiled_agrees(
      p, {"FuseAddRMSNorm", "FuseDequantizeMatmul", "FuseOps", "LegalizeOps", "FuseLoops"}, 2);
  if (!agrees) RC_FAIL(agrees.message());
}

// Found by `difftest fuzz` (seed 319, a random order with PlanMemory before FuseLoops): the
// plan shared a slot between values that fusion put into one kernel.
RC_GTEST_PROP(FuseLoops, VoidsAMemoryPlanMadeBeforeIt, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 8;
  options.template_percent = 30;
  const Program p = generate_program(choices, options);
  const auto agrees = testing::compiled_agrees(p, {"FuseOps", "LegalizeOps", "PlanMemory", "FuseLoops"}, 1);
  if (!agrees) RC_FAIL(agrees.message());
}

}  // namespace
}  // namespace difftest
