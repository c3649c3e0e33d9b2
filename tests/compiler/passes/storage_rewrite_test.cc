// StorageRewrite: IR-in/IR-out cases in the loop text form and the property that generated
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

TEST(StorageRewrite, MovesAnAllocationAroundItsUsesOnly) {
  expect_loop_fixpoint_rewrite("StorageRewrite", R"(
func @f(X: f32[n], Y: f32[n], Z: f32[n]) dims(n) {
  alloc t: f32[n] global {
    alloc unused: f32[4] local {
      for (i, 0, n) serial {
        Z[i] = X[i]
      }
      if (n > 2) {
        for (i, 0, n) serial {
          t[i] = (X[i] * 2.0:f32)
        }
        for (i, 0, n) serial {
          Y[i] = t[i]
        }
      } else {
        Y[0] = 1.0:f32
      }
      Z[0] = 0.0:f32
    }
  }
}
)",
                               R"(
func @f(X: f32[n], Y: f32[n], Z: f32[n]) dims(n) {
  for (i, 0, n) serial {
    Z[i] = X[i]
  }
  if (n > 2) {
    alloc t: f32[n] global {
      for (i, 0, n) serial {
        t[i] = (X[i] * 2.0:f32)
      }
      for (i, 0, n) serial {
        Y[i] = t[i]
      }
    }
  } else {
    Y[0] = 1.0:f32
  }
  Z[0] = 0.0:f32
}
)",
                               "t only lives in the then branch between its first and last use; `unused` goes");
}

TEST(StorageRewrite, MergesSiblingAllocationsOfOneDtype) {
  expect_loop_fixpoint_rewrite("StorageRewrite", R"(
func @f(X: f32[16], Y: f32[16]) dims() {
  alloc a: f32[8] local {
    for (i, 0, 8) serial {
      a[i] = X[i]
    }
    Y[0] = a[7]
  }
  Y[1] = X[1]
  alloc b: f32[16] local {
    for (i, 0, 16) serial {
      b[i] = X[i]
    }
    Y[2] = b[15]
  }
  alloc c: i64[16] local {
    c[0] = 1
  }
}
)",
                               R"(
func @f(X: f32[16], Y: f32[16]) dims() {
  alloc a: f32[16] local {
    for (i, 0, 8) serial {
      a[i] = X[i]
    }
    Y[0] = a[7]
    Y[1] = X[1]
    for (i, 0, 16) serial {
      a[i] = X[i]
    }
    Y[2] = a[15]
  }
  alloc c: i64[16] local {
    c[0] = 1
  }
}
)",
                               "a and b never live at once: b reuses a, sized to the larger; c has another dtype");
}

TEST(StorageRewrite, NeverMovesAnAllocationIntoALoop) {
  expect_loop_unchanged("StorageRewrite", R"(
func @f(X: f32[n], Y: f32[n]) dims(n) {
  alloc acc: f32[1] local {
    acc[0] = 0.0:f32
    for (i, 0, n) serial {
      acc[0] = (acc[0] + X[i])
      Y[i] = acc[0]
    }
  }
}
)",
                        "acc carries a running sum from one iteration to the next");
}

TEST(StorageRewrite, KeepsOverlappingLifetimesApart) {
  expect_loop_fixpoint_rewrite("StorageRewrite", R"(
func @f(X: f32[n], Y: f32[n]) dims(n) {
  for (i, 0, n) serial {
    alloc a: f32[1] local {
      alloc b: f32[1] local {
        a[0] = X[i]
        b[0] = (a[0] * 2.0:f32)
        Y[i] = (a[0] + b[0])
      }
    }
  }
}
)",
                               R"(
func @f(X: f32[n], Y: f32[n]) dims(n) {
  for (i, 0, n) serial {
    alloc a: f32[1] local {
      a[0] = X[i]
      alloc b: f32[1] local {
        b[0] = (a[0] * 2.0:f32)
        Y[i] = (a[0] + b[0])
      }
    }
  }
}
)",
                               "b starts at its first use, but a and b are live together: no reuse");
}

RC_GTEST_PROP(StorageRewrite, CompiledProgramsAgreeWithTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 4;
  const Program p = generate_program(choices, options);
  const loop::Module lowered = pipeline::run_passes(p, {"LegalizeOps"}).module;
  RC_CLASSIFY(loop::print(pipeline::find_pass("StorageRewrite").loop(lowered, testing::planted_context())) != loop::print(lowered), "changed");
  const auto agrees = testing::compiled_agrees(p, {"LegalizeOps", "StorageRewrite"}, 2);
  if (!agrees) RC_FAIL(agrees.message());
}

}  // namespace
}  // namespace difftest
