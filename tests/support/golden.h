// Golden cases: a small IR program and the values its result must have, written by hand from
// the op's documented semantics (never produced by running the implementation).
#pragma once

#include <gtest/gtest.h>

#include <cmath>

#include "tests/support/eval_util.h"

namespace difftest::testing {

// %a, the 2x3 matrix [[1, 2, 3], [4, 5, 6]]: the first binding of many goldens.
inline const std::string kA = "  %a: f32[2, 3] = const [[1, 2, 3], [4, 5, 6]]\n";

struct Golden {
  std::string body;                  // bindings; the last one is checked
  std::vector<int64_t> shape;
  std::vector<double> values;
  double tol = 0;                    // absolute; 0 means exact
  reference::Mode mode = reference::Mode::F64;
  std::string dims = "";
  sym::Env env = {};
  std::map<std::string, Tensor> inputs = {};
  size_t output = 0;
};

// Whether the program's result has exactly the golden shape and values (NaN where NaN is
// expected; within `tol` when it is not 0); the failure lists every element that differs.
inline ::testing::AssertionResult matches_golden(const Golden& g) {
  const Result r = eval_ir(g.dims, g.body, g.mode, g.env, g.inputs, g.output);
  if (r.shape != g.shape) {
    return ::testing::AssertionFailure() << "shape " << ::testing::PrintToString(r.shape) << ", want "
                                         << ::testing::PrintToString(g.shape) << " in\n" << g.body;
  }
  if (r.values.size() != g.values.size()) {
    return ::testing::AssertionFailure() << r.values.size() << " values, want " << g.values.size() << " in\n"
                                         << g.body;
  }
  ::testing::AssertionResult result = ::testing::AssertionSuccess();
  bool failed = false;
  for (size_t i = 0; i < g.values.size(); ++i) {
    const double got = r.values[i], want = g.values[i];
    const bool ok = std::isnan(want) ? std::isnan(got) : g.tol == 0 ? got == want : std::fabs(got - want) <= g.tol;
    if (ok) continue;
    if (!failed) result = ::testing::AssertionFailure() << g.body << "\n";
    failed = true;
    result << "element " << i << ": got " << ::testing::PrintToString(got) << ", want "
           << ::testing::PrintToString(want) << (g.tol == 0 ? "" : " within " + std::to_string(g.tol)) << "\n";
  }
  return result;
}

}  // namespace difftest::testing

// EXPECT_GOLDEN({body, shape, values, ...}): the parentheses keep the braces' commas together.
#define EXPECT_GOLDEN(...) EXPECT_TRUE((::difftest::testing::matches_golden(__VA_ARGS__)))
