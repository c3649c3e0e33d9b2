// FuseOps and the `@fused(N)` group annotation: text-form round trip, IR-in/IR-out cases, and
// the properties that grouping preserves the reference and that the fused kernels agree.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "compiler/passes/fuse_ops.h"
#include "fuzz/generator.h"
#include "tests/support/pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

using testing::expect_rewrite;
using testing::expect_unchanged;

TEST(FusionGroupAnnotation, RoundTripsThroughTheTextForm) {
  const std::string text =
      "program @p(n: 1..8) {\n"
      "  %x: f32[n, 4] = param\n"
      "  %0: f32[n, 4] = exp(%x) @fused(0)\n"
      "  %1: f32[n, 4] = neg(%0) @fused(0)\n"
      "  %2: f32[n, 4] = sqrt(%1)\n"
      "  return %2\n"
      "}\n";
  const Program p = testing::parse_case(text);
  EXPECT_EQ(p.bindings()[1].group(), 0);
  EXPECT_EQ(p.bindings()[3].group(), -1);
  EXPECT_EQ(print(p), text);
}

TEST(FusionGroupAnnotation, AMalformedAnnotationIsALocatedParseError) {
  const auto error_of = [](const std::string& annotation) {
    try {
      parse_program("program @p() {\n  %x: f32[4] = param\n  %0: f32[4] = exp(%x) " + annotation +
                        "\n  return %0\n}\n",
                    "<case>");
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("@fused(x)").find("<case>:3:"), std::string::npos) << error_of("@fused(x)");
  EXPECT_NE(error_of("@fused(x)").find("fusion group number"), std::string::npos);
  EXPECT_NE(error_of("@grouped(1)").find("@fused(N)"), std::string::npos) << error_of("@grouped(1)");
  EXPECT_NE(error_of("@fused(1").find("')'"), std::string::npos) << error_of("@fused(1");
  EXPECT_NE(error_of("@fused(99999999999)").find("too large"), std::string::npos);
}

TEST(FuseOps, GroupsAnElementwiseChain) {
  expect_rewrite("FuseOps", R"(
program @p(n: 1..8) {
  %x: f32[n, 4] = param
  %b: f32[4] = param
  %0: f32[n, 4] = exp(%x)
  %1: f32[n, 4] = add(%0, %b)
  %2: f32[n, 4] = neg(%1)
  return %2
}
)",
                 R"(
program @p(n: 1..8) {
  %x: f32[n, 4] = param
  %b: f32[4] = param
  %0: f32[n, 4] = exp(%x) @fused(0)
  %1: f32[n, 4] = add(%0, %b) @fused(0)
  %2: f32[n, 4] = neg(%1) @fused(0)
  return %2
}
)",
                 "elementwise and broadcast ops chain into one group");
}

TEST(FuseOps, MustNotFuseAcrossAnOpaqueOp) {
  expect_rewrite("FuseOps", R"(
program @p(n: 1..8) {
  %x: f32[n, 16] = param
  %0: f32[n, 16] = exp(%x)
  %1: f32[n, 16] = neg(%0)
  %p: u32[n, 2], %s: f32[n, 2] = quantize(%1, format="q4f32_1", group=8)
  %2: f32[n, 16] = dequantize(%p, %s, format="q4f32_1", group=8)
  %3: f32[n, 16] = abs(%2)
  return %3
}
)",
                 R"(
program @p(n: 1..8) {
  %x: f32[n, 16] = param
  %0: f32[n, 16] = exp(%x) @fused(0)
  %1: f32[n, 16] = neg(%0) @fused(0)
  %p: u32[n, 2], %s: f32[n, 2] = quantize(%1, format="q4f32_1", group=8)
  %2: f32[n, 16] = dequantize(%p, %s, format="q4f32_1", group=8) @fused(1)
  %3: f32[n, 16] = abs(%2) @fused(1)
  return %3
}
)",
                 "the opaque quantize stays alone and splits the chain into two groups");
}

TEST(FuseOps, ADiamondIsOneGroupAndAValueUsedOutsideStaysAnOutput) {
  expect_rewrite("FuseOps", R"(
program @p(n: 1..8) {
  %x: f32[n, 4] = param
  %0: f32[n, 4] = exp(%x)
  %1: f32[n, 4] = neg(%0)
  %2: f32[n, 4] = sqrt(%0)
  %3: f32[n, 4] = mul(%1, %2)
  return %3, %1
}
)",
                 R"(
program @p(n: 1..8) {
  %x: f32[n, 4] = param
  %0: f32[n, 4] = exp(%x) @fused(0)
  %1: f32[n, 4] = neg(%0) @fused(0)
  %2: f32[n, 4] = sqrt(%0) @fused(0)
  %3: f32[n, 4] = mul(%1, %2) @fused(0)
  return %3, %1
}
)",
                 "both arms of a diamond and its join fuse; %1 is also a result (FuseLoops keeps it an output)");
}

TEST(FuseOps, MatmulTakesAnElementwiseEpilogueButNoPrologue) {
  expect_rewrite("FuseOps", R"(
program @p(n: 1..8) {
  %x: f32[n, 4] = param
  %w: f32[4, 3] = param
  %b: f32[3] = param
  %0: f32[n, 4] = exp(%x)
  %1: f32[n, 3] = matmul(%0, %w)
  %2: f32[n, 3] = add(%1, %b)
  %3: f32[n, 3] = tanh(%2)
  return %3
}
)",
                 R"(
program @p(n: 1..8) {
  %x: f32[n, 4] = param
  %w: f32[4, 3] = param
  %b: f32[3] = param
  %0: f32[n, 4] = exp(%x)
  %1: f32[n, 3] = matmul(%0, %w) @fused(0)
  %2: f32[n, 3] = add(%1, %b) @fused(0)
  %3: f32[n, 3] = tanh(%2) @fused(0)
  return %3
}
)",
                 "out-elemwise-fusable matmul starts a group; its bias add and activation join it");
}

TEST(FuseOps, AReductionTakesItsInjectivePrologueAndElementwiseEpilogue) {
  expect_rewrite("FuseOps", R"(
program @p(n: 1..8) {
  %x: f32[n, 4] = param
  %0: f32[n, 4] = exp(%x)
  %1: f32[n] = sum(%0, axes=[1])
  %2: f32[n] = sqrt(%1)
  %3: f32[n, 1] = reshape(%2, shape=[n, 1])
  return %3
}
)",
                 R"(
program @p(n: 1..8) {
  %x: f32[n, 4] = param
  %0: f32[n, 4] = exp(%x) @fused(0)
  %1: f32[n] = sum(%0, axes=[1]) @fused(0)
  %2: f32[n] = sqrt(%1) @fused(0)
  %3: f32[n, 1] = reshape(%2, shape=[n, 1])
  return %3
}
)",
                 "after a reduction only elementwise/broadcast ops join: the injective reshape starts anew");
}

TEST(FuseOps, ReordersSoThatAGroupIsContiguous) {
  expect_rewrite("FuseOps", R"(
program @p(n: 1..8) {
  %x: f32[n, 16] = param
  %0: f32[n, 16] = exp(%x)
  %p: u32[n, 2], %s: f32[n, 2] = quantize(%x, format="q4f32_1", group=8)
  %2: f32[n, 16] = neg(%0)
  return %2, %p
}
)",
                 R"(
program @p(n: 1..8) {
  %x: f32[n, 16] = param
  %0: f32[n, 16] = exp(%x) @fused(0)
  %2: f32[n, 16] = neg(%0) @fused(0)
  %p: u32[n, 2], %s: f32[n, 2] = quantize(%x, format="q4f32_1", group=8)
  return %2, %p
}
)",
                 "an unrelated op between two members moves after the group");
}

TEST(FuseOps, MustNotFormAGroupThatNeedsItselfThroughAnotherOp) {
  expect_rewrite("FuseOps", R"(
program @p(n: 1..8) {
  %x: f32[n, 16] = param
  %0: f32[n, 16] = exp(%x)
  %p: u32[n, 2], %s: f32[n, 2] = quantize(%0, format="q4f32_1", group=8)
  %1: f32[n, 16] = dequantize(%p, %s, format="q4f32_1", group=8)
  %2: f32[n, 16] = add(%0, %1)
  return %2
}
)",
                 R"(
program @p(n: 1..8) {
  %x: f32[n, 16] = param
  %0: f32[n, 16] = exp(%x)
  %p: u32[n, 2], %s: f32[n, 2] = quantize(%0, format="q4f32_1", group=8)
  %1: f32[n, 16] = dequantize(%p, %s, format="q4f32_1", group=8) @fused(0)
  %2: f32[n, 16] = add(%0, %1) @fused(0)
  return %2
}
)",
                 "add cannot join exp (it needs quantize, which needs exp: no single kernel), so it joins dequantize");
}

TEST(FuseOps, LeavesAProgramWithNothingToFuseUnchanged) {
  expect_unchanged("FuseOps", R"(
program @p(n: 1..8) {
  %x: f32[n, 16] = param
  %w: f32[16, 16] = param
  %0: f32[n, 16] = matmul(%x, %w)
  %1: f32[n, 16] = matmul(%0, %w)
  %p: u32[n, 2], %s: f32[n, 2] = quantize(%1, format="q4f32_1", group=8)
  return %p
}
)",
                   "matmul never takes a matmul as an epilogue, and quantize is opaque");
}

TEST(FuseOps, StopsAtTheMaximumGroupSize) {
  std::string in = "program @p() {\n  %x: f32[4] = param\n";
  std::string want = in;
  std::string prev = "x";
  for (int i = 0; i < 20; ++i) {
    in += "  %" + std::to_string(i) + ": f32[4] = neg(%" + prev + ")\n";
    want += "  %" + std::to_string(i) + ": f32[4] = neg(%" + prev + ")" + (i < 16 ? " @fused(0)" : " @fused(1)") + "\n";
    prev = std::to_string(i);
  }
  in += "  return %19\n}\n";
  want += "  return %19\n}\n";
  expect_rewrite("FuseOps", in, want, "20 negations: a full group of 16, then a group of 4");
}

// Found by `difftest fuzz` (seed 382): CommonSubexprElimination between two FuseOps runs
// left a group interrupted, and FuseOps refused the whole pipeline.
TEST(FuseOps, RegroupsAnExistingGroupThatIsInterrupted) {
  const char* in = R"(
program @p() {
  %x: f32[4] = param
  %0: f32[4] = exp(%x) @fused(0)
  %1: f32[4] = abs(%x)
  %2: f32[4] = neg(%1) @fused(0)
  return %2, %0
}
)";
  EXPECT_NE(passes::existing_groups_contiguous(testing::parse_case(in)), "");
  expect_rewrite("FuseOps", in, R"(
program @p() {
  %x: f32[4] = param
  %0: f32[4] = exp(%x)
  %1: f32[4] = abs(%x) @fused(0)
  %2: f32[4] = neg(%1) @fused(0)
  return %2, %0
}
)",
                 "the interrupted group is dissolved; abs and neg form a chain of their own");
}

RC_GTEST_PROP(FuseOps, PreservesTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 8;
  const Program p = generate_program(choices, options);
  const Program after = pipeline::find_pass("FuseOps").graph(p, testing::planted_context());
  verify(after);
  RC_ASSERT(after.num_calls() == p.num_calls());
  const auto preserved = testing::preserves_reference(p, after);
  if (!preserved) RC_FAIL(preserved.message());
}

RC_GTEST_PROP(FuseOps, FusedKernelsAgreeWithTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 8;
  const Program p = generate_program(choices, options);
  const auto agrees = testing::compiled_agrees(p, {"FuseOps", "LegalizeOps", "FuseLoops", "PlanMemory"}, 2);
  if (!agrees) RC_FAIL(agrees.message());
}

}  // namespace
}  // namespace difftest
