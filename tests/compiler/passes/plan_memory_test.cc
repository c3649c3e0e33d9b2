// PlanMemory (its slot-assignment cases: tests/passes/PlanMemory/): refusal without outputs, the byte saving on a chain,
// and the property that planned modules agree with the reference.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "fuzz/generator.h"
#include "tests/support/pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

const char* kCopy = "func @f(a: f32[4], b: f32[4]) dims() {\n  for (i, 0, 4) serial {\n    b[i] = a[i]\n  }\n}\n";

TEST(PlanMemory, RefusesAModuleThatDoesNotListItsOutputs) {
  const loop::Module m = loop::parse_module(std::string(kCopy) + "call @f(x, y) dims()\n", "<case>");
  EXPECT_NE(pipeline::find_pass("PlanMemory").loop_precondition(m).find("outputs"), std::string::npos);
}

TEST(PlanMemory, ReducesTheBytesAllocatedOnAChain) {
  const Program p = testing::parse_case(R"(
program @p() {
  %x: f32[256] = param
  %0: f32[256] = exp(%x)
  %1: f32[256] = neg(%0)
  %2: f32[256] = sqrt(%1)
  %3: f32[256] = abs(%2)
  %4: f32[256] = tanh(%3)
  return %4
}
)");
  const loop::Module m = pipeline::find_pass("PlanMemory").loop(pipeline::find_pass("LegalizeOps").lower(p, testing::test_context()), testing::test_context());
  // Four f32[256] intermediates (4096 bytes one buffer each) fit in two slots of 1024 bytes.
  ASSERT_EQ(m.storage.size(), 2u) << loop::print(m);
  EXPECT_EQ(m.storage[0], (std::vector<std::string>{"0", "2"}));
  EXPECT_EQ(m.storage[1], (std::vector<std::string>{"1", "3"}));
  EXPECT_TRUE(testing::compiled_agrees(p, {"LegalizeOps", "PlanMemory"}, 0));
}

RC_GTEST_PROP(PlanMemory, PlannedModulesAgreeWithTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 8;
  const Program p = generate_program(choices, options);
  const auto agrees = testing::compiled_agrees(p, {"LegalizeOps", "PlanMemory"}, 1);
  if (!agrees) RC_FAIL(agrees.message());
}

}  // namespace
}  // namespace difftest
