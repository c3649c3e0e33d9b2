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

using testing::expect_loop_unchanged;

TEST(LoopSimplify, DividesOutASplitIndex) {
  expect_loop_fixpoint_rewrite("LoopSimplify", R"(
func @f(X: f32[n, 4], Y: f32[n]) dims(n) {
  for (i, 0, n) serial {
    for (j, 0, 4) serial {
      Y[(((i * 4) + j) // 4)] = X[(((((i * 4) + j) // 4) * 4) + (((i * 4) + j) % 4))]
    }
  }
}
)",
                               R"(
func @f(X: f32[n, 4], Y: f32[n]) dims(n) {
  for (i, 0, n) serial {
    for (j, 0, 4) serial {
      Y[i] = X[((4 * i) + j)]
    }
  }
}
)",
                               "(i * 4 + j) // 4 is i and the % part is j when j is in [0, 4)");
}

TEST(LoopSimplify, SubstitutesAnExtentOneLoopAndFoldsConstants) {
  expect_loop_fixpoint_rewrite("LoopSimplify", R"(
func @f(X: f32[n, 1], Y: f32[n]) dims(n) {
  for (i, 0, n) serial {
    for (k, 2, 1) serial {
      Y[i] = X[((i * (3 - 2)) + (k - 2))]
    }
  }
}
)",
                               R"(
func @f(X: f32[n, 1], Y: f32[n]) dims(n) {
  for (i, 0, n) serial {
    Y[i] = X[i]
  }
}
)",
                               "a loop of extent 1 becomes its body with k := 2, and 3 - 2 and k - 2 fold");
}

TEST(LoopSimplify, RemovesProvableConditionsAndEmptyLoops) {
  expect_loop_fixpoint_rewrite("LoopSimplify", R"(
func @f(X: f32[n, 8], Y: f32[n, 8]) dims(n) {
  for (i, 0, n) serial {
    for (j, 0, 8) serial {
      if ((j < 8) && (i >= 0)) {
        Y[((i * 8) + j)] = select((j > 9), 0.0:f32, X[((i * 8) + j)])
      } else {
        Y[((i * 8) + j)] = 1.0:f32
      }
      if (j >= 8) {
        Y[0] = 2.0:f32
      }
    }
    for (k, 0, (4 - 4)) serial {
      Y[k] = 3.0:f32
    }
  }
}
)",
                               R"(
func @f(X: f32[n, 8], Y: f32[n, 8]) dims(n) {
  for (i, 0, n) serial {
    for (j, 0, 8) serial {
      Y[((8 * i) + j)] = X[((8 * i) + j)]
    }
  }
}
)",
                               "conditions proven from the loop ranges go, with their dead branches; a loop of extent 0 goes");
}

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

TEST(LoopSimplify, KeepsDivisionByZeroADivision) {
  expect_loop_fixpoint_rewrite("LoopSimplify", R"(
func @f(X: i64[n], Y: i64[n]) dims(n) {
  for (i, 0, n) serial {
    Y[i] = (X[i] + (i // (n - n)))
  }
}
)",
                               R"(
func @f(X: i64[n], Y: i64[n]) dims(n) {
  for (i, 0, n) serial {
    Y[i] = (X[i] + (i // 0))
  }
}
)",
                               "x // 0 is 0 in loop IR but an error in the symbolic arithmetic: the divisor folds, "
                               "the division stays");
}

TEST(LoopSimplify, LeavesSimpleCodeAlone) {
  expect_loop_unchanged("LoopSimplify", R"(
func @f(X: f32[n, m], Y: f32[n, m]) dims(n, m) {
  for (i, 0, n) parallel {
    for (j, 0, m) serial {
      if (X[((i * m) + j)] < 0.0:f32) {
        Y[((i * m) + j)] = (X[((i * m) + j)] + (2.0:f32 - 1.0:f32))
      }
    }
  }
}
)",
                        "canonical index arithmetic, a data-dependent condition and float constants stay");
}

RC_GTEST_PROP(LoopSimplify, CompiledProgramsAgreeWithTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 4;
  const Program p = generate_program(choices, options);
  const loop::Module lowered = pipeline::run_passes(p, {"LegalizeOps"}).module;
  RC_CLASSIFY(loop::print(pipeline::find_pass("LoopSimplify").loop(lowered, testing::planted_context())) != loop::print(lowered), "changed");
  const auto agrees = testing::compiled_agrees(p, {"LegalizeOps", "LoopSimplify"}, 2);
  if (!agrees) RC_FAIL(agrees.message());
}

}  // namespace
}  // namespace difftest
