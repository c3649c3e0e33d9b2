// FuseAddRMSNorm: the property that it preserves the reference.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "fuzz/generator.h"
#include "tests/support/pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

RC_GTEST_PROP(FuseAddRMSNorm, PreservesTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 8;
  options.template_percent = 50;
  const Program p = generate_program(choices, options);
  const Program after = pipeline::find_pass("FuseAddRMSNorm").graph(p, testing::test_context());
  verify(after);
  RC_ASSERT(after.num_calls() == p.num_calls());
  const auto preserved = testing::preserves_reference(p, after);
  if (!preserved) RC_FAIL(preserved.message());
}

}  // namespace
}  // namespace difftest
