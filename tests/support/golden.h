// Golden cases: a small IR program and the values its result must have, written by hand from
// the op's documented semantics (never produced by running the implementation).
#pragma once

#include <cmath>

#include "tests/support/eval_util.h"

namespace difftest::testing {

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

inline void check(const Golden& g) {
  SCOPED_TRACE(g.body);
  const Result r = eval_ir(g.dims, g.body, g.mode, g.env, g.inputs, g.output);
  ASSERT_EQ(r.shape, g.shape);
  ASSERT_EQ(r.values.size(), g.values.size());
  for (size_t i = 0; i < g.values.size(); ++i) {
    if (std::isnan(g.values[i])) {
      EXPECT_TRUE(std::isnan(r.values[i])) << "element " << i;
    } else if (g.tol == 0) {
      EXPECT_EQ(r.values[i], g.values[i]) << "element " << i;
    } else {
      EXPECT_NEAR(r.values[i], g.values[i], g.tol) << "element " << i;
    }
  }
}

}  // namespace difftest::testing
