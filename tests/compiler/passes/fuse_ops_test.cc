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
  const Program after = pipeline::find_pass("FuseOps").graph(p, testing::test_context());
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
