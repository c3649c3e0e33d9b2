// Check options for tests that follow particular compiles: only the given pipelines, under the
// standard bindings, with no random orders, cross-checks, shape-specialized compile or random
// bindings; the builtin compiler under test.
#pragma once

#include <string>
#include <vector>

#include "oracle/check/check.h"
#include "tests/support/builtin.h"

namespace difftest::testing {

inline oracle::CheckOptions pipelines_only(std::vector<std::string> pipelines, double cpu_seconds) {
  oracle::CheckOptions o = builtin_checks();
  o.levels = std::move(pipelines);
  o.random_orders = 0;
  o.cross_checks.clear();
  o.specialize = false;
  o.random_bindings = 0;
  o.limits.cpu_seconds = cpu_seconds;
  return o;
}

}  // namespace difftest::testing
