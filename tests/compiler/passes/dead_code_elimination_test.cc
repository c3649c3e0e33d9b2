// DeadCodeElimination: the property that it preserves the reference.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "fuzz/generator.h"
#include "tests/support/pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

RC_GTEST_PROP(DeadCodeElimination, PreservesTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 8;
  const Program p = generate_program(choices, options);
  // Make some code dead: keep only the first output.
  const Program trimmed = Program::make(p.name(), p.dims(), p.bindings(), {p.outputs().front()});
  const Program after = pipeline::find_pass("DeadCodeElimination").graph(trimmed, testing::test_context());
  verify(after);
  RC_ASSERT(after.num_calls() <= trimmed.num_calls());
  const auto preserved = testing::preserves_reference(trimmed, after);
  if (!preserved) RC_FAIL(preserved.message());
}

}  // namespace
}  // namespace difftest
