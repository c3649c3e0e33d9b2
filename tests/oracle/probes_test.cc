// Probes (oracle/check/probes.h): the probed program returns the selected values beside the
// outputs, in the order the program defines them, and a check of it catches a wrong value
// that a later op hides from the outputs.
#include "oracle/check/probes.h"

#include <gtest/gtest.h>

#include "compiler/faults/faults.h"
#include "compiler/support/diagnostics.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "oracle/check/check.h"
#include "tests/support/check_options.h"

namespace difftest::oracle {
namespace {

// clip(%m) to [5, 6] of products of inputs in [-1, 1]: every output element is 5 whatever %m is.
const char* kMasked = R"(program @masked(n: 1..8) {
  %a: f32[n, 8] = param
  %b: f32[n, 8] = param
  %m: f32[n, 8] = mul(%a, %b)
  %y: f32[n, 8] = clip(%m, min=5, max=6)
  %s: f32[n] = sum(%y, axes=[1])
  return %s
}
)";

Program parsed(const char* text) { return parse_program(text, "probes_test.ir"); }

std::string probed_text(const char* text, const std::string& selection) {
  return print(probe_values(parsed(text), parse_probe_selection(selection, "--probe"), "--probe"));
}

TEST(ProbeValues, AllReturnsEveryComputedValueInProgramOrder) {
  EXPECT_EQ(probed_text(kMasked, "all"), R"(program @masked(n: 1..8) {
  %a: f32[n, 8] = param
  %b: f32[n, 8] = param
  %m: f32[n, 8] = mul(%a, %b)
  %y: f32[n, 8] = clip(%m, min=5, max=6)
  %s: f32[n] = sum(%y, axes=[1])
  return %m, %y, %s
}
)");
}

TEST(ProbeValues, NamedValuesJoinTheOutputsWhereTheyAreDefined) {
  const std::string want = R"(program @masked(n: 1..8) {
  %a: f32[n, 8] = param
  %b: f32[n, 8] = param
  %m: f32[n, 8] = mul(%a, %b)
  %y: f32[n, 8] = clip(%m, min=5, max=6)
  %s: f32[n] = sum(%y, axes=[1])
  return %m, %s
}
)";
  EXPECT_EQ(probed_text(kMasked, "%m"), want);
  EXPECT_EQ(probed_text(kMasked, "m,%s"), want);  // an output named again is returned once
}

std::string usage_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    return e.message();
  }
  return "no error";
}

TEST(ProbeValues, NamesTheFlagAndTheValueItCannotProbe) {
  const Program p = parsed(kMasked);
  EXPECT_EQ(usage_error([&] { probe_values(p, parse_probe_selection("%m,%zz", "--probe"), "--probe"); }),
            "--probe: @masked defines no value %zz");
  EXPECT_EQ(usage_error([&] { probe_values(p, parse_probe_selection("a", "--probe"), "--probe"); }),
            "--probe: %a is a param, not a computed value");
  EXPECT_EQ(usage_error([] { parse_probe_selection("m,,y", "--probe"); }),
            "--probe: '' is not a value name (want all, or names such as %q,%k)");
  EXPECT_EQ(usage_error([] { parse_probe_selection("m-1", "--probe"); }),
            "--probe: 'm-1' is not a value name (want all, or names such as %q,%k)");
}

CheckOptions o0_only() { return testing::pipelines_only({"O0"}, 30); }

TEST(ProbeValues, CatchAWrongValueTheOutputsHide) {
  // mul-drops-tail writes a*0 to the last element of each row of %m; the clip hides it.
  const Program p = parsed(kMasked);
  const Program probed = probe_values(p, parse_probe_selection("all", "--probe"), "--probe");
  EXPECT_EQ(check_program(probed, o0_only()).overall(), VerdictKind::Ok);  // no finding on the clean compiler
  const CheckOptions faulty = testing::planting(o0_only(), {"mul-drops-tail"});
  EXPECT_EQ(check_program(p, faulty).overall(), VerdictKind::Ok);
  const Verdict v = check_program(probed, faulty);
  ASSERT_EQ(v.overall(), VerdictKind::Mismatch);
  const VariantVerdict first = outcome_of(v);
  EXPECT_EQ(first.output, "%m");
  EXPECT_EQ(first.output_op, "mul");
  EXPECT_EQ(first.index.back(), 7);
  EXPECT_EQ(first.got, 0);
}

}  // namespace
}  // namespace difftest::oracle
