// SpecializeShapes and fix_dims: IR-in/IR-out cases, and the properties that a specialized
// program preserves the reference and still compiles and runs at O0.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "compiler/ir/fix_dims.h"
#include "compiler/passes/specialize_shapes.h"
#include "fuzz/generator.h"
#include "tests/support/pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

using testing::expect_rewrite;
using testing::expect_unchanged;

TEST(SpecializeShapes, SubstitutesAPinnedDimInTypesAttributesAndDerivedDims) {
  expect_rewrite("SpecializeShapes", R"(
program @p(n: 4..4, m: 1..8) {
  %x: f32[n, m] = param
  %c: f32[n] = const uniform(-1, 1, seed=3)
  %0: f32[2*n, m] = concat(%x, %x)
  %1: i64[n] = arange(end=n)
  %2: f32[m, n] = permute_dims(%x)
  %3: f32[m, n] = add(%2, %c)
  %4: f32[m, 2*n] = reshape(%0, shape=[m, 2*n])
  %5: f32[m + 1, n] = full(shape=[m + 1, n], value=2)
  return %3, %4, %1, %5
}
)",
                 R"(
program @p(m: 1..8) {
  %x: f32[4, m] = param
  %c: f32[4] = const uniform(-1, 1, seed=3)
  %0: f32[8, m] = concat(%x, %x)
  %1: i64[4] = arange(end=4)
  %2: f32[m, 4] = permute_dims(%x)
  %3: f32[m, 4] = add(%2, %c)
  %4: f32[m, 8] = reshape(%0, shape=[m, 8])
  %5: f32[m + 1, 4] = full(shape=[m + 1, 4], value=2)
  return %3, %4, %1, %5
}
)",
                 "n = 4 everywhere (2*n is 8); m is not pinned and its expressions stay as written");
}

// Found by `difftest fuzz` (seed 11, O3-specialized): squeeze without axes removes the dims
// that are the constant 1, so a dim variable pinned to 1 must not start being removed.
TEST(SpecializeShapes, KeepsWhatASqueezeWithoutAxesMeant) {
  expect_rewrite("SpecializeShapes", R"(
program @p(m: 1..1) {
  %x: f64[4, m, 8, 1] = param
  %0: f64[4, m, 8] = squeeze(%x)
  return %0
}
)",
                 R"(
program @p() {
  %x: f64[4, 1, 8, 1] = param
  %0: f64[4, 1, 8] = reshape(%x, shape=[4, 1, 8])
  return %0
}
)",
                 "the squeeze removed only the constant 1; m = 1 must stay");
}

TEST(SpecializeShapes, LeavesAProgramWithoutPinnedDims) {
  expect_unchanged("SpecializeShapes", R"(
program @p(n: 1..4) {
  %x: f32[n, 2] = param
  %0: f32[n, 2] = exp(%x)
  return %0
}
)",
                   "no range is a single value");
}

TEST(SpecializeShapes, FixDimsNarrowsRangesAndRejectsBadValues) {
  const Program p = testing::parse_case(R"(
program @p(n: 1..8, m: 2..3) {
  %x: f32[n, m] = param
  %0: f32[n, m] = neg(%x)
  return %0
}
)");
  const Program fixed = fix_dims(p, {{"n", 5}});
  EXPECT_EQ(print(fixed), R"(program @p(n: 5..5, m: 2..3) {
  %x: f32[n, m] = param
  %0: f32[n, m] = neg(%x)
  return %0
}
)");
  EXPECT_TRUE(fix_dims(fixed, {{"n", 5}}).same_as(fixed)) << "already fixed: nothing to narrow";
  EXPECT_THROW(fix_dims(p, {{"m", 4}}), UserError) << "4 is outside m's range 2..3";
  EXPECT_THROW(fix_dims(p, {{"n", 0}}), UserError) << "0 is outside n's range 1..8";
  EXPECT_THROW(fix_dims(p, {{"k", 1}}), UserError) << "k is not a dim of @p";
  const Program specialized = testing::run_graph_pass("SpecializeShapes", fix_dims(p, {{"n", 5}, {"m", 2}}));
  EXPECT_EQ(print(specialized), R"(program @p() {
  %x: f32[5, 2] = param
  %0: f32[5, 2] = neg(%x)
  return %0
}
)");
}

RC_GTEST_PROP(SpecializeShapes, PreservesTheReferenceAndRunsAtO0, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 5;
  const Program p = generate_program(choices, options);
  // Fix every dim at its lower bound or its upper bound, as the oracle would for one binding.
  sym::Env values;
  for (const auto& d : p.dims()) values[d.name] = choices.below(2) ? d.range.hi : d.range.lo;
  const Program fixed = fix_dims(p, values);
  verify(fixed);
  const Program after = pipeline::find_pass("SpecializeShapes").graph(fixed, testing::planted_context());
  verify(after);
  RC_ASSERT(after.dims().empty());
  const auto preserved = testing::preserves_reference(fixed, after);
  if (!preserved) RC_FAIL(preserved.message());
  const auto runs = testing::compiled_agrees(after, {"LegalizeOps"}, 0);
  if (!runs) RC_FAIL(runs.message());
}

}  // namespace
}  // namespace difftest
