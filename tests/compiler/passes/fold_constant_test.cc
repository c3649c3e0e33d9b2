// FoldConstant: IR-in/IR-out cases and the property that it preserves the reference.
#include "compiler/passes/fold_constant.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>

#include "compiler/faults/faults.h"
#include "compiler/tensor/constant.h"
#include "fuzz/generator.h"
#include "tests/support/pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

using testing::expect_rewrite;
using testing::expect_unchanged;

TEST(FoldConstant, FoldsAChainOfConstantOps) {
  expect_rewrite("FoldConstant", R"(
program @p(n: 1..8) {
  %x: f32[n, 2] = param
  %a: f32[2] = const [1, 2]
  %b: f32[2] = const [3, 4.5]
  %0: f32[2] = add(%a, %b)
  %1: f32[2] = mul(%0, %a)
  %2: f32[n, 2] = add(%x, %1)
  return %2
}
)",
                 R"(
program @p(n: 1..8) {
  %x: f32[n, 2] = param
  %a: f32[2] = const [1, 2]
  %b: f32[2] = const [3, 4.5]
  %0: f32[2] = const [4, 6.5]
  %1: f32[2] = const [4, 13]
  %2: f32[n, 2] = add(%x, %1)
  return %2
}
)",
                 "a result folded earlier in the run is a constant for the next op; an op on a param stays");
}

TEST(FoldConstant, FoldsCreationOpsAndMultiResultOps) {
  expect_rewrite("FoldConstant", R"(
program @p() {
  %0: f32[2, 2] = zeros(shape=[2, 2])
  %1: i32[4] = arange(end=4, dtype=i32)
  %2: f16[3] = full(shape=[3], value=0.1, dtype=f16)
  %3: bool[2, 3] = causal_mask(q_len=2, kv_len=3)
  %a: i32[2], %b: i32[2] = split(%1, sections=2)
  return %0, %2, %3, %a, %b
}
)",
                 R"(
program @p() {
  %0: f32[2, 2] = const [[0, 0], [0, 0]]
  %1: i32[4] = const [0, 1, 2, 3]
  %2: f16[3] = const [0.0999755859375, 0.0999755859375, 0.0999755859375]
  %3: bool[2, 3] = const [[true, false, false], [true, true, false]]
  %a: i32[2] = const [0, 1]
  %b: i32[2] = const [2, 3]
  return %0, %2, %3, %a, %b
}
)",
                 "ops without operands fold; f16 elements are the dtype-rounded doubles; every result of split");
}

TEST(FoldConstant, KeepsIntegerFoldingInIntegers) {
  expect_rewrite("FoldConstant", R"(
program @p() {
  %a: i64[2] = const [9007199254740993, 9223372036854775806]
  %b: i64[2] = const [1, 1]
  %0: i64[2] = add(%a, %b)
  %i: i32[1] = const [2147483647]
  %j: i32[1] = const [1]
  %1: i32[1] = add(%i, %j)
  %u: u32[1] = const [4294967295]
  %2: u32[1] = floor_divide(%u, %u)
  %3: u32[1] = sub(%u, %2)
  return %0, %1, %3
}
)",
                 R"(
program @p() {
  %a: i64[2] = const [9007199254740993, 9223372036854775806]
  %b: i64[2] = const [1, 1]
  %0: i64[2] = const [9007199254740994, 9223372036854775807]
  %i: i32[1] = const [2147483647]
  %j: i32[1] = const [1]
  %1: i32[1] = const [-2147483648]
  %u: u32[1] = const [4294967295]
  %2: u32[1] = const [1]
  %3: u32[1] = const [4294967294]
  return %0, %1, %3
}
)",
                 "2^53 + 1 + 1 is exact only in integers; i32 wraps; u32 values above 2^31 stay unsigned");
}

TEST(FoldConstant, LeavesAnI64MinResultAsAnOp) {
  expect_unchanged("FoldConstant", R"(
program @p() {
  %a: i64[1] = const [-9223372036854775807]
  %b: i64[1] = const [-1]
  %0: i64[1] = add(%a, %b)
  return %0
}
)",
                   "the text form cannot spell -2^63, so the result must not become a literal");
}

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
  auto folded = [&] { return print(testing::run_graph_pass("FoldConstant", before)); };
  const std::string clean = folded();
  EXPECT_NE(clean.find("%0: f32[2] = const [8, 15]"), std::string::npos) << clean;
  {
    const faults::ScopedFaults on{"mul-drops-tail"};  // the mul lowering writes a*0 to the last element
    const std::string faulty = folded();
    EXPECT_NE(faulty.find("%0: f32[2] = const [8, 0]"), std::string::npos) << faulty;
  }
  EXPECT_EQ(folded(), clean);
}

TEST(FoldConstant, MustNotFoldASymbolicShapeArange) {
  expect_unchanged("FoldConstant", R"(
program @p(n: 1..8) {
  %0: i64[n] = arange(end=n)
  %1: f32[n, 2] = zeros(shape=[n, 2])
  %c: f32[2] = const [1, 2]
  %2: f32[n, 2] = add(%1, %c)
  return %0, %2
}
)",
                   "must not fold a symbolic-shape arange (or anything else whose shape needs a guessed dim)");
}

TEST(FoldConstant, FoldsADimPinnedByItsRange) {
  expect_rewrite("FoldConstant", R"(
program @p(n: 3..3) {
  %x: i32[n] = param
  %0: i32[n] = arange(end=n, dtype=i32)
  %1: i32[n] = add(%x, %0)
  return %1
}
)",
                 R"(
program @p(n: 3..3) {
  %x: i32[n] = param
  %0: i32[3] = const [0, 1, 2]
  %1: i32[n] = add(%x, %0)
  return %1
}
)",
                 "n's range is a single value, so the shape simplifies to a constant and is not a guess");
}

TEST(FoldConstant, MustNotFoldAValueThatDependsOnASymbolicAttribute) {
  expect_unchanged("FoldConstant", R"(
program @p(n: 4..8) {
  %c: i32[8] = const [0, 1, 2, 3, 4, 5, 6, 7]
  %0: i32[2] = strided_slice(%c, axes=[0], begin=[n - 2], end=[n])
  return %0
}
)",
                   "the shape is static but the elements depend on n");
}

TEST(FoldConstant, FoldsASymbolicAttributePinnedByItsRange) {
  expect_rewrite("FoldConstant", R"(
program @p(n: 5..5) {
  %c: i32[8] = const [0, 1, 2, 3, 4, 5, 6, 7]
  %0: i32[2] = strided_slice(%c, axes=[0], begin=[n - 2], end=[n])
  return %0
}
)",
                 R"(
program @p(n: 5..5) {
  %c: i32[8] = const [0, 1, 2, 3, 4, 5, 6, 7]
  %0: i32[2] = const [3, 4]
  return %0
}
)",
                 "n = 5 is the only value, so begin=[3], end=[5]");
}

TEST(FoldConstant, LeavesResultsAboveTheElementCapAsOps) {
  static_assert(passes::kMaxFoldedElements == 4096);
  expect_unchanged("FoldConstant", R"(
program @p() {
  %0: f32[4097] = zeros(shape=[4097])
  %1: f32[64, 65] = ones(shape=[64, 65])
  return %0, %1
}
)",
                   "results of more than 4096 elements stay ops, so the text form stays readable");
}

TEST(FoldConstant, LeavesOpsWithANonConstantOperand) {
  expect_unchanged("FoldConstant", R"(
program @p() {
  %x: f32[2] = param
  %c: f32[2] = const [1, 2]
  %u: f32[2] = const uniform(0, 1, seed=1)
  %0: f32[2] = add(%x, %c)
  %1: f32[2] = mul(%0, %u)
  return %1, %u
}
)",
                   "a param makes everything after it non-constant; generated constants stay as they are");
}

RC_GTEST_PROP(FoldConstant, PreservesTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 5;
  const Program p = generate_program(choices, options);
  const Program after = pipeline::find_pass("FoldConstant").graph(p, testing::planted_context());
  verify(after);
  RC_ASSERT(after.num_calls() <= p.num_calls());
  const auto preserved = testing::preserves_reference(p, after);
  if (!preserved) RC_FAIL(preserved.message());
}

}  // namespace
}  // namespace difftest
