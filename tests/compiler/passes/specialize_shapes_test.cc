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
  const Program after = pipeline::find_pass("SpecializeShapes").graph(fixed, testing::test_context());
  verify(after);
  RC_ASSERT(after.dims().empty());
  const auto preserved = testing::preserves_reference(fixed, after);
  if (!preserved) RC_FAIL(preserved.message());
  const auto runs = testing::compiled_agrees(after, {"LegalizeOps"}, 0);
  if (!runs) RC_FAIL(runs.message());
}

}  // namespace
}  // namespace difftest
