// DeadCodeElimination: IR-in/IR-out cases and the property that it preserves the reference.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "fuzz/generator.h"
#include "tests/support/pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

using testing::expect_rewrite;
using testing::expect_unchanged;

TEST(DeadCodeElimination, DropsUnusedOpsAndConstantsButKeepsParams) {
  expect_rewrite("DeadCodeElimination", R"(
program @p(n: 1..8) {
  %x: f32[n, 4] = param
  %unused: f32[4] = param
  %c: f32[4] = const uniform(-1, 1, seed=1)
  %0: f32[n, 4] = exp(%x)
  %1: f32[n, 4] = add(%x, %c)
  %2: f32[n, 4] = neg(%1)
  return %0
}
)",
                 R"(
program @p(n: 1..8) {
  %x: f32[n, 4] = param
  %unused: f32[4] = param
  %0: f32[n, 4] = exp(%x)
  return %0
}
)",
                 "a dead chain goes as a whole (its constant too); params are the interface and stay");
}

TEST(DeadCodeElimination, KeepsAMultiResultOpWhenAnyResultIsUsed) {
  expect_unchanged("DeadCodeElimination", R"(
program @p(n: 1..8) {
  %x: f32[n, 6] = param
  %a: f32[n, 3], %b: f32[n, 3] = split(%x, sections=2, axis=1)
  %0: f32[n, 3] = exp(%b)
  return %0
}
)",
                   "split's first result is unused, but the op must stay for the second");
}

TEST(DeadCodeElimination, KeepsEverythingAnOutputNeeds) {
  expect_unchanged("DeadCodeElimination", R"(
program @p(n: 1..8) {
  %x: f32[n, 4] = param
  %0: f32[n, 4] = exp(%x)
  %1: f32[n, 4] = mul(%0, %0)
  return %1, %0
}
)",
                   "every value reaches an output");
}

RC_GTEST_PROP(DeadCodeElimination, PreservesTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 8;
  const Program p = generate_program(choices, options);
  // Make some code dead: keep only the first output.
  const Program trimmed = Program::make(p.name(), p.dims(), p.bindings(), {p.outputs().front()});
  const Program after = pipeline::find_pass("DeadCodeElimination").graph(trimmed, testing::planted_context());
  verify(after);
  RC_ASSERT(after.num_calls() <= trimmed.num_calls());
  const auto preserved = testing::preserves_reference(trimmed, after);
  if (!preserved) RC_FAIL(preserved.message());
}

}  // namespace
}  // namespace difftest
