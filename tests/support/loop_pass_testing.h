// Loop-pass test helpers on top of pass_testing.h.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "tests/support/pass_testing.h"

namespace difftest::testing {

// The loop pass returns every function body as the very same node (and the same text).
inline void expect_loop_unchanged(const std::string& pass, const std::string& in, const std::string& intent) {
  const loop::Module before = loop::parse_module(in, "<case>");
  const loop::Module after = run_loop_pass(pass, before);
  ASSERT_EQ(after.funcs.size(), before.funcs.size());
  EXPECT_EQ(loop::print(after), loop::print(before)) << pass << ": " << intent;
  for (size_t i = 0; i < before.funcs.size(); ++i) {
    EXPECT_TRUE(after.funcs[i].body.same_as(before.funcs[i].body)) << pass << " rebuilt a body it did not change: " << intent;
  }
}

// expect_loop_rewrite, and the pass leaves its own output alone (idempotent, same bodies).
inline void expect_loop_fixpoint_rewrite(const std::string& pass, const std::string& in, const std::string& want,
                                         const std::string& intent) {
  expect_loop_rewrite(pass, in, want, intent);
  expect_loop_unchanged(pass, want, "(its own output) " + intent);
}

}  // namespace difftest::testing
