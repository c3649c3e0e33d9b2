// FuseLoops (its cases, in tests/passes/FuseLoops/: fused kernels from legalized groups, inlined
// and allocated intermediates, kernel outputs): an interrupted group, refusals, and the
// properties that fused kernels agree with the reference and void a memory plan.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "fuzz/generator.h"
#include "tests/support/pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

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
