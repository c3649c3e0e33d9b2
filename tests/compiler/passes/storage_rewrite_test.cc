// StorageRewrite: IR-in/IR-out cases in the loop text form and the property that generated
// programs compiled through it agree with the reference.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "fuzz/generator.h"
#include "tests/support/loop_pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {


RC_GTEST_PROP(StorageRewrite, CompiledProgramsAgreeWithTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 4;
  const Program p = generate_program(choices, options);
  const loop::Module lowered = pipeline::run_passes(p, {"LegalizeOps"}).module;
  RC_CLASSIFY(loop::print(pipeline::find_pass("StorageRewrite").loop(lowered, testing::test_context())) != loop::print(lowered), "changed");
  const auto agrees = testing::compiled_agrees(p, {"LegalizeOps", "StorageRewrite"}, 2);
  if (!agrees) RC_FAIL(agrees.message());
}

}  // namespace
}  // namespace difftest
