// LegalizeOps: the property that generated programs lowered by it alone agree with the
// reference. Its graph-text-in, loop-text-out cases are tests/passes/LegalizeOps/ (each op a
// PrimFunc written from its semantics, the program a sequence of calls, symbolic extents kept:
// they pin down the lowering's shape where a wrong one would still often agree: broadcast index,
// floor division, nibble order, accumulator dtype); every op's numerics at O0 are covered op by
// op in tests/compiler/o0_agreement_test.cc.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "fuzz/generator.h"
#include "tests/support/pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

RC_GTEST_PROP(LegalizeOps, LoweredProgramsAgreeWithTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 6;
  const Program p = generate_program(choices, options);
  const auto agrees = testing::compiled_agrees(p, {"LegalizeOps"}, 0);
  if (!agrees) RC_FAIL(agrees.message());
}

}  // namespace
}  // namespace difftest
