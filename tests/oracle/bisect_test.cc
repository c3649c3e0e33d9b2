// Culprit bisection: a graph pass that produces a wrong program is the culprit, confirmed by
// the reference; one whose output is right but exposes a lowering bug is not. The expected
// culprits are where the faults live (compiler/faults), not anything the bisection computed.
#include "oracle/reduce/bisect.h"

#include <gtest/gtest.h>

#include "compiler/faults/faults.h"
#include "compiler/ir/parser.h"
#include "tests/support/builtin.h"

namespace difftest::oracle {
namespace {

FailingRun failing_at(const std::string& pipeline) {
  FailingRun run;
  run.variant = backends::builtin_compiler().named(pipeline, "test");
  return run;
}

CheckOptions quiet_options() {
  CheckOptions o = testing::builtin_checks();
  o.limits.cpu_seconds = 60;  // nothing hangs here
  return o;
}

// DecomposeOps writes gelu with muls; mul-drops-tail breaks the mul lowering. The failure
// appears after DecomposeOps, whose output the reference agrees with.
TEST(Bisect, AGraphPassThatOnlyExposesALoweringBugIsNotTheCulprit) {
  const Program p = parse_program(R"(program @gelu() {
  %x: f32[2, 8] = param
  %y: f32[2, 8] = gelu(%x)
  return %y
}
)",
                                  "gelu.ir");
  const Culprit c = find_culprit(p, failing_at("O2"), testing::planting(quiet_options(), {"mul-drops-tail"}));
  ASSERT_TRUE(c.reproduced);
  EXPECT_EQ(c.pass, "LegalizeOps") << format_culprit(c);
  EXPECT_EQ(c.application, 0);
  EXPECT_EQ(c.exposed_by, "DecomposeOps");
  EXPECT_NE(c.confirmation.find("still agrees with the reference"), std::string::npos) << c.confirmation;
  EXPECT_EQ(c.minimal_passes, (std::vector<std::string>{"DecomposeOps", "LegalizeOps"}));
}

// decompose-window-off-by-one makes DecomposeOps itself produce a wrong program.
TEST(Bisect, AWrongGraphPassIsTheCulpritConfirmedByTheReference) {
  const Program p = parse_program(R"(program @local_attention() {
  %q: f32[1, 6, 2, 8] = param
  %k: f32[1, 6, 2, 8] = param
  %v: f32[1, 6, 2, 8] = param
  %y: f32[1, 6, 2, 8] = attention(%q, %k, %v, window=2)
  return %y
}
)",
                                  "attention.ir");
  const Culprit c = find_culprit(p, failing_at("O2"), testing::planting(quiet_options(), {"decompose-window-off-by-one"}));
  ASSERT_TRUE(c.reproduced);
  EXPECT_EQ(c.pass, "DecomposeOps") << format_culprit(c);
  EXPECT_GT(c.application, 0);
  EXPECT_EQ(c.exposed_by, "");
  EXPECT_NE(c.confirmation.find("confirmed by the reference"), std::string::npos) << c.confirmation;
  EXPECT_EQ(c.minimal_passes, (std::vector<std::string>{"DecomposeOps", "LegalizeOps"}));
}

}  // namespace
}  // namespace difftest::oracle
