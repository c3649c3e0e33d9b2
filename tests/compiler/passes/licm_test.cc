// LICM: IR-in/IR-out cases in the loop text form and the property that generated programs
// compiled through it agree with the reference.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "fuzz/generator.h"
#include "tests/support/loop_pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

using testing::expect_loop_fixpoint_rewrite;
using testing::expect_loop_unchanged;

TEST(LICM, HoistsAnInvariantLoadBehindAZeroTripGuard) {
  expect_loop_fixpoint_rewrite("LICM", R"(
func @f(X: f32[n, m], S: f32[n], Y: f32[n, m]) dims(n, m) {
  for (i, 0, n) serial {
    for (j, 0, m) serial {
      Y[((i * m) + j)] = ((X[((i * m) + j)] * S[i]) + exp(S[i]))
    }
  }
}
)",
                               R"(
func @f(X: f32[n, m], S: f32[n], Y: f32[n, m]) dims(n, m) {
  for (i, 0, n) serial {
    alloc S_licm0: f32[1] local {
      alloc licm0: f32[1] local {
        if (m > 0) {
          S_licm0[0] = S[i]
          licm0[0] = exp(S[i])
        }
        for (j, 0, m) serial {
          Y[((i * m) + j)] = ((X[((i * m) + j)] * S_licm0[0]) + licm0[0])
        }
      }
    }
  }
}
)",
                               "S[i] and exp(S[i]) do not depend on j; m may be 0, so S[i] is read only if the loop runs "
                               "(and the guarded init is conditional code for the i loop, so it stays there)");
}

TEST(LICM, NeedsNoGuardForAPositiveConstantExtent) {
  expect_loop_fixpoint_rewrite("LICM", R"(
func @f(X: f32[4], S: f32[1], Y: f32[4]) dims() {
  for (j, 0, 4) serial {
    Y[j] = (X[j] + S[0])
  }
}
)",
                               R"(
func @f(X: f32[4], S: f32[1], Y: f32[4]) dims() {
  alloc S_licm0: f32[1] local {
    S_licm0[0] = S[0]
    for (j, 0, 4) serial {
      Y[j] = (X[j] + S_licm0[0])
    }
  }
}
)",
                               "a loop of extent 4 always runs, so the load may go before it unguarded");
}

TEST(LICM, MustNotHoistALoadAboveTheStoreItDependsOn) {
  expect_loop_unchanged("LICM", R"(
func @f(X: f32[n], A: f32[1], Y: f32[n]) dims(n) {
  for (i, 0, n) serial {
    A[0] = X[i]
    Y[i] = (A[0] * 2.0:f32)
  }
}
)",
                        "must not hoist a load above the store it depends on");
}

TEST(LICM, MustNotHoistFromConditionalCode) {
  expect_loop_unchanged("LICM", R"(
func @f(X: f32[n], S: f32[n], Y: f32[n]) dims(n) {
  for (i, 0, n) serial {
    if (X[i] > 0.0:f32) {
      Y[i] = S[5]
    }
    Y[i] = select((X[i] < 0.0:f32), S[7], X[i])
  }
}
)",
                        "S[5] and S[7] run only under a condition (an if, a select arm): hoisting them could read "
                        "out of bounds");
}

TEST(LICM, RefusesACallThatAliasesAWrittenBuffer) {
  const std::string text = R"(
func @f(S: f32[4], Y: f32[4]) dims() {
  for (j, 0, 4) serial {
    Y[j] = S[0]
  }
}
call @f(a, a) dims()
)";
  const auto& info = pipeline::find_pass("LICM");
  ASSERT_TRUE(info.loop_precondition);
  const std::string why = info.loop_precondition(loop::parse_module(text, "<case>"));
  EXPECT_NE(why.find("passes a as both Y (written) and S"), std::string::npos) << why;
  EXPECT_EQ(info.loop_precondition(loop::parse_module(
                "func @f(S: f32[4], Y: f32[4]) dims() {\n  Y[0] = S[0]\n}\ncall @f(a, b) dims()\n", "<ok>")),
            "");
}

RC_GTEST_PROP(LICM, CompiledProgramsAgreeWithTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 4;
  const Program p = generate_program(choices, options);
  const loop::Module lowered = pipeline::run_passes(p, {"LegalizeOps"}).module;
  RC_CLASSIFY(loop::print(pipeline::find_pass("LICM").loop(lowered, testing::planted_context())) != loop::print(lowered), "changed");
  const auto agrees = testing::compiled_agrees(p, {"LegalizeOps", "LICM"}, 2);
  if (!agrees) RC_FAIL(agrees.message());
}

}  // namespace
}  // namespace difftest
