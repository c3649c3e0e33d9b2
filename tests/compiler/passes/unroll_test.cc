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
using testing::expect_loop_unchanged;

TEST(Unroll, UnrollsAMarkedLoopAndFoldsItsIndices) {
  expect_loop_fixpoint_rewrite("Unroll", R"(
func @f(X: f32[n, 3], Y: f32[n, 3]) dims(n) {
  for (i, 0, n) serial {
    for (j, 0, 3) unrolled {
      Y[((i * 3) + j)] = (X[((i * 3) + j)] * cast<f32>(j))
    }
  }
}
)",
                               R"(
func @f(X: f32[n, 3], Y: f32[n, 3]) dims(n) {
  for (i, 0, n) serial {
    Y[(3 * i)] = (X[(3 * i)] * cast<f32>(0))
    Y[((3 * i) + 1)] = (X[((3 * i) + 1)] * cast<f32>(1))
    Y[((3 * i) + 2)] = (X[((3 * i) + 2)] * cast<f32>(2))
  }
}
)",
                               "one copy per iteration, j replaced by 0, 1, 2");
}

TEST(Unroll, UnrollsSmallSerialInnermostLoopsWithASymbolicMin) {
  expect_loop_fixpoint_rewrite("Unroll", R"(
func @f(X: i64[(n + 2)], Y: i64[n]) dims(n) {
  for (i, 0, n) serial {
    alloc acc: i64[1] local {
      acc[0] = 0
      for (k, i, 2) serial {
        acc[0] = (acc[0] + X[k])
      }
      Y[i] = acc[0]
    }
  }
}
)",
                               R"(
func @f(X: i64[(n + 2)], Y: i64[n]) dims(n) {
  for (i, 0, n) serial {
    alloc acc: i64[1] local {
      acc[0] = 0
      acc[0] = (acc[0] + X[i])
      acc[0] = (acc[0] + X[(i + 1)])
      Y[i] = acc[0]
    }
  }
}
)",
                               "k runs from i: the copies use i and i + 1");
}

TEST(Unroll, LeavesLoopsItMustNotUnroll) {
  expect_loop_unchanged("Unroll", R"(
func @f(X: f32[n, 9], Y: f32[n, 9]) dims(n) {
  for (i, 0, n) unrolled {
    for (j, 0, 9) serial {
      Y[((i * 9) + j)] = X[((i * 9) + j)]
    }
    for (j, 0, 4) parallel {
      Y[((i * 9) + j)] = X[((i * 9) + j)]
    }
    for (j, 0, 2) serial {
      for (k, 0, 2) vectorized {
        Y[(((i * 9) + j) + k)] = X[((i * 9) + j)]
      }
    }
  }
}
)",
                        "a symbolic extent, serial extent 9 > 8, a parallel loop, a vectorized loop and a "
                        "serial loop that is not innermost all stay");
}

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

TEST(Unroll, DropsAnEmptyLoop) {
  expect_loop_fixpoint_rewrite("Unroll", R"(
func @f(Y: f32[4]) dims() {
  Y[0] = 1.0:f32
  for (j, 0, 0) serial {
    Y[j] = 2.0:f32
  }
}
)",
                               R"(
func @f(Y: f32[4]) dims() {
  Y[0] = 1.0:f32
}
)",
                               "zero copies of a loop that never runs");
}

RC_GTEST_PROP(Unroll, CompiledProgramsAgreeWithTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 4;
  const Program p = generate_program(choices, options);
  const loop::Module lowered = pipeline::run_passes(p, {"LegalizeOps"}).module;
  RC_CLASSIFY(loop::print(pipeline::find_pass("Unroll").loop(lowered, testing::planted_context())) != loop::print(lowered), "changed");
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
