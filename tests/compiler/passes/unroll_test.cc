// Unroll: IR-in/IR-out cases in the loop text form and the property that generated programs
// compiled through it agree with the reference.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "compiler/passes/unroll.h"
#include "fuzz/generator.h"
#include "tests/support/loop_pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

using testing::expect_loop_fixpoint_rewrite;

// Inner loops unroll first; a loop whose copies would pass the budget (16 statements) stays a
// loop, so a nest of small constant loops does not cascade into one straight-line block.
TEST(Unroll, StopsANestOfSmallLoopsAtItsStatementBudget) {
  static_assert(passes::kMaxSmallStatements == 16, "the nest below is sized for a budget of 16");
  std::string stores;
  for (int c = 0; c < 12; ++c) {
    const std::string at = c == 0 ? "(12 * i)" : fmt::format("((12 * i) + {})", c);
    stores += fmt::format("    Y[{}] = X[{}]\n", at, at);
  }
  expect_loop_fixpoint_rewrite(
      "Unroll", R"(
func @f(X: f32[48], Y: f32[48]) dims() {
  for (i, 0, 4) serial {
    for (j, 0, 4) serial {
      for (k, 0, 3) serial {
        Y[((i * 12) + ((j * 3) + k))] = X[((i * 12) + ((j * 3) + k))]
      }
    }
  }
}
)",
      "\nfunc @f(X: f32[48], Y: f32[48]) dims() {\n  for (i, 0, 4) serial {\n" + stores + "  }\n}\n",
      "k (3 copies) and j (4 x 3 = 12) unroll; i would make 48 and stays");
}

RC_GTEST_PROP(Unroll, CompiledProgramsAgreeWithTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 4;
  const Program p = generate_program(choices, options);
  const loop::Module lowered = pipeline::run_passes(p, {"LegalizeOps"}).module;
  RC_CLASSIFY(loop::print(pipeline::find_pass("Unroll").loop(lowered, testing::test_context())) != loop::print(lowered), "changed");
  const auto agrees = testing::compiled_agrees(p, {"LegalizeOps", "Unroll"}, 2);
  if (!agrees) RC_FAIL(agrees.message());
}

RC_GTEST_PROP(Unroll, ComposesWithTheOtherLoopPassesAtO3, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 4;
  const Program p = generate_program(choices, options);
  const auto agrees =
      testing::compiled_agrees(p, {"LegalizeOps", "LoopSimplify", "StorageRewrite", "LICM", "Unroll"}, 3);
  if (!agrees) RC_FAIL(agrees.message());
}

}  // namespace
}  // namespace difftest
