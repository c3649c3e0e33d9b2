// LoopSimplify: IR-in/IR-out cases in the loop text form and the property that generated
// programs compiled through it agree with the reference.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "fuzz/generator.h"
#include "tests/support/loop_pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

using testing::expect_loop_fixpoint_rewrite;


TEST(LoopSimplify, KeepsFloorSemanticsForPossiblyNegativeOperands) {
  // j - 2 is negative for j < 2: floor division gives -1 there, truncation would give 0 for
  // every j (and fold the first index to the constant 1). Likewise (j - 2) % 4 is 2 or 3 for
  // j < 2, not -2 or -1, so it is (j + 2) % 4, never j - 2.
  expect_loop_fixpoint_rewrite("LoopSimplify", R"(
func @f(X: f32[16], Y: f32[4], Z: f32[4]) dims() {
  for (j, 0, 4) serial {
    Y[j] = X[(((j - 2) // 4) + 1)]
    Z[j] = X[((j - 2) % 4)]
  }
}
)",
                               R"(
func @f(X: f32[16], Y: f32[4], Z: f32[4]) dims() {
  for (j, 0, 4) serial {
    Y[j] = X[(((j - 2) // 4) + 1)]
    Z[j] = X[((j + 2) % 4)]
  }
}
)",
                               "must not turn floor division of a possibly negative operand into truncation");
}

RC_GTEST_PROP(LoopSimplify, CompiledProgramsAgreeWithTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 4;
  const Program p = generate_program(choices, options);
  const loop::Module lowered = pipeline::run_passes(p, {"LegalizeOps"}).module;
  RC_CLASSIFY(loop::print(pipeline::find_pass("LoopSimplify").loop(lowered, testing::test_context())) != loop::print(lowered), "changed");
  const auto agrees = testing::compiled_agrees(p, {"LegalizeOps", "LoopSimplify"}, 2);
  if (!agrees) RC_FAIL(agrees.message());
}

}  // namespace
}  // namespace difftest
