// LICM: IR-in/IR-out cases in the loop text form and the property that generated programs
// compiled through it agree with the reference.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "fuzz/generator.h"
#include "tests/support/loop_pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {


TEST(LICM, RefusesACallThatAliasesAWrittenBuffer) {
  const std::string text = R"(
func @f(S: f32[4], Y: f32[4]) dims() {
  for (j, 0, 4) serial {
    Y[j] = S[0]
  }
}
call @f(a, a) dims()
)";
  const auto& info = pipeline::find_pass("LICM");
  ASSERT_TRUE(info.loop_precondition);
  const std::string why = info.loop_precondition(loop::parse_module(text, "<case>"));
  EXPECT_NE(why.find("passes a as both Y (written) and S"), std::string::npos) << why;
  EXPECT_EQ(info.loop_precondition(loop::parse_module(
                "func @f(S: f32[4], Y: f32[4]) dims() {\n  Y[0] = S[0]\n}\ncall @f(a, b) dims()\n", "<ok>")),
            "");
}

RC_GTEST_PROP(LICM, CompiledProgramsAgreeWithTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 4;
  const Program p = generate_program(choices, options);
  const loop::Module lowered = pipeline::run_passes(p, {"LegalizeOps"}).module;
  RC_CLASSIFY(loop::print(pipeline::find_pass("LICM").loop(lowered, testing::test_context())) != loop::print(lowered), "changed");
  const auto agrees = testing::compiled_agrees(p, {"LegalizeOps", "LICM"}, 2);
  if (!agrees) RC_FAIL(agrees.message());
}

}  // namespace
}  // namespace difftest
