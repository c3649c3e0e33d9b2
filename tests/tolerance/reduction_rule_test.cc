// A reduction's result is uncertain when any element of its slice is and may decide it: an
// uncertain element's value is unknown, so it can become the slice's minimum, maximum or product (seed 2016788 of
// the 10,000-program run: a min over rounded bf16 values was compared where one rounding could
// go either way, and the clean compiler was reported as a mismatch). Expected flags are
// written out by hand from the inputs below.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/support/ir_util.h"
#include "tolerance/bounds.h"

namespace difftest::tolerance {
namespace {

constexpr const char* kReductions = R"(program @slices() {
  %x0: f32[2, 4] = param
  %x: f32[2, 4] = neg(%x0)
  %r: f32[2, 4] = round(%x)
  %i: i32[2, 4] = cast(%r, dtype=i32)
  %mn: f32[2] = min(%r, axes=[1])
  %mx: f32[2] = max(%r, axes=[1])
  %s: f32[2] = sum(%r, axes=[1])
  %m: f32[2] = mean(%r, axes=[1])
  %p: f32[2] = prod(%r, axes=[1])
  %imn: i32[2] = min(%i, axes=[1])
  %iprod: i32[2] = prod(%i, axes=[1])
  %am: i64[2] = argmin(%r, axis=1)
  return %mn, %mx, %s, %m, %p, %imn, %iprod, %am, %x
}
)";

// Row 0 holds the one element whose rounding is in doubt (x = 2.5 with an error of 0.1 may
// round to 2 or 3); row 1 is certain. Every other value is 0.3 or more from a rounding edge.
TEST(ReductionRule, AnUncertainElementMakesItsSliceUncertainInEveryReduction) {
  const Program p = testing::verified_program(kReductions, "slices.ir");
  std::map<std::string, Tensor> inputs;
  inputs["x0"] = Tensor::from_doubles(DType::f32, {2, 4}, {-4.2, -2.5, -7.1, -5.8, -3.2, -1.9, -6.1, -4.7});
  Options opt;
  opt.mode = BoundMode::Probabilistic;
  const BoundedProgram sound = bound_program(p, {}, inputs, opt);
  ASSERT_FALSE(sound.invalid) << sound.invalid_reason;
  const ValueNode* x = p.outputs().back().get();
  std::vector<double> x_err(8, 0.0);
  x_err[1] = 0.1;
  const BoundedProgram rebound = rebound_program(p, {}, sound, opt, {{x, x_err}});
  const std::vector<std::string> names = {"min", "max", "sum", "mean", "prod", "i32 min", "i32 prod", "argmin"};
  for (size_t o = 0; o + 1 < rebound.outputs.size(); ++o) {
    const Bounded& out = *rebound.outputs[o];
    ASSERT_EQ(out.uncertain.size(), 2u) << names[o];
    // Row 0 rounds to 4, 2 or 3, 7 and 6: its max is 7 whichever way the doubtful element
    // goes (a max or min reads its elements' outcomes), and its min is 2 or 3.
    EXPECT_EQ(out.uncertain[0], names[o] == "max" ? 0 : 1) << names[o] << ": the row with the uncertain rounding";
    EXPECT_EQ(out.uncertain[1], 0) << names[o] << ": the certain row";
  }
}

}  // namespace
}  // namespace difftest::tolerance
