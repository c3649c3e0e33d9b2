// FoldConstant (its cases: tests/passes/FoldConstant/): a generated constant folds to the bits
// its materialization gives, the fold memo keeps faults apart, and the property that it
// preserves the reference.
#include "compiler/passes/fold_constant.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>

#include "compiler/tensor/constant.h"
#include "fuzz/generator.h"
#include "tests/support/pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

TEST(FoldConstant, FoldsAGeneratedConstantOnlyWhenAFoldedOpConsumesIt) {
  const Program before = testing::parse_case(R"(
program @p() {
  %u: f32[3] = const uniform(-1, 1, seed=5)
  %v: f32[2] = const normal(0, 1, seed=6)
  %0: f32[3] = neg(%u)
  return %0, %v
}
)");
  const Program after = testing::run_graph_pass("FoldConstant", before);
  // neg is exact, so the folded literal is the negated materialization of the generator.
  const Tensor u = materialize_constant(before.bindings()[0].constant(), DType::f32, {3});
  std::string want = "program @p() {\n  %u: f32[3] = const uniform(-1, 1, seed=5)\n"
                     "  %v: f32[2] = const normal(0, 1, seed=6)\n  %0: f32[3] = const [";
  for (int i = 0; i < 3; ++i) want += (i ? ", " : "") + attr_value_str(AttrValue(-u.get(i)));
  want += "]\n  return %0, %v\n}\n";
  EXPECT_EQ(print(after), want);
}

// FoldConstant computes a fold with the compiler's own O0 and keeps it for the next variant that
// folds the same call: a fault in that compile must still change what it folds (the memo's key
// holds the enabled faults), and turning it off must bring the right values back.
TEST(FoldConstant, AFaultInTheFoldingCompileChangesTheFoldEvenAfterTheSameFoldWithoutIt) {
  const Program before = testing::parse_case(R"(
program @p() {
  %a: f32[2] = const [2, 3]
  %b: f32[2] = const [4, 5]
  %0: f32[2] = mul(%a, %b)
  return %0
}
)");
  auto folded = [&](const std::vector<std::string>& faults) {
    return print(testing::run_graph_pass("FoldConstant", before, faults));
  };
  const std::string clean = folded({});
  EXPECT_NE(clean.find("%0: f32[2] = const [8, 15]"), std::string::npos) << clean;
  const std::string faulty = folded({"mul-drops-tail"});  // the mul lowering writes a*0 to the last element
  EXPECT_NE(faulty.find("%0: f32[2] = const [8, 0]"), std::string::npos) << faulty;
  EXPECT_EQ(folded({}), clean);
}

RC_GTEST_PROP(FoldConstant, PreservesTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 5;
  const Program p = generate_program(choices, options);
  const Program after = pipeline::find_pass("FoldConstant").graph(p, testing::test_context());
  verify(after);
  RC_ASSERT(after.num_calls() <= p.num_calls());
  const auto preserved = testing::preserves_reference(p, after);
  if (!preserved) RC_FAIL(preserved.message());
}

}  // namespace
}  // namespace difftest
