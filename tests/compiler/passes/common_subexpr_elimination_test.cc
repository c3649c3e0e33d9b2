// CommonSubexprElimination: IR-in/IR-out cases and the property that it preserves the reference.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "fuzz/generator.h"
#include "tests/support/pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

using testing::expect_rewrite;
using testing::expect_unchanged;

TEST(CommonSubexprElimination, MergesARepeatedCallAndItsUsers) {
  expect_rewrite("CommonSubexprElimination", R"(
program @p(n: 1..8) {
  %x: f32[n, 4] = param
  %0: f32[n, 4] = exp(%x)
  %1: f32[n, 4] = exp(%x)
  %2: f32[n, 4] = neg(%0)
  %3: f32[n, 4] = neg(%1)
  %4: f32[n, 4] = add(%2, %3)
  return %4, %1
}
)",
                 R"(
program @p(n: 1..8) {
  %x: f32[n, 4] = param
  %0: f32[n, 4] = exp(%x)
  %2: f32[n, 4] = neg(%0)
  %4: f32[n, 4] = add(%2, %2)
  return %4, %0
}
)",
                 "the second exp merges into the first, which makes the negs repeat too; results follow");
}

TEST(CommonSubexprElimination, RemapsEveryResultOfAMultiResultOp) {
  expect_rewrite("CommonSubexprElimination", R"(
program @p(n: 1..8) {
  %x: f32[n, 6] = param
  %a: f32[n, 3], %b: f32[n, 3] = split(%x, sections=2, axis=1)
  %c: f32[n, 3], %d: f32[n, 3] = split(%x, sections=2, axis=1)
  %0: f32[n, 3] = sub(%a, %d)
  %1: f32[n, 3] = sub(%c, %b)
  return %0, %1
}
)",
                 R"(
program @p(n: 1..8) {
  %x: f32[n, 6] = param
  %a: f32[n, 3], %b: f32[n, 3] = split(%x, sections=2, axis=1)
  %0: f32[n, 3] = sub(%a, %b)
  return %0, %0
}
)",
                 "both results of the second split map to the first split's, in order, which makes the subs "
                 "equal in the same sweep");
}

TEST(CommonSubexprElimination, MergesIdenticalConstants) {
  expect_rewrite("CommonSubexprElimination", R"(
program @p() {
  %x: f32[2] = param
  %a: f32[2] = const [0.5, -1]
  %b: f32[2] = const [0.5, -1]
  %u: f32[2] = const uniform(-1, 1, seed=7)
  %v: f32[2] = const uniform(-1, 1, seed=7)
  %0: f32[2] = mul(%x, %b)
  %1: f32[2] = add(%0, %v)
  %2: f32[2] = add(%a, %u)
  return %1, %2
}
)",
                 R"(
program @p() {
  %x: f32[2] = param
  %a: f32[2] = const [0.5, -1]
  %u: f32[2] = const uniform(-1, 1, seed=7)
  %0: f32[2] = mul(%x, %a)
  %1: f32[2] = add(%0, %u)
  %2: f32[2] = add(%a, %u)
  return %1, %2
}
)",
                 "same type and same initializer: literal and generated constants both merge");
}

TEST(CommonSubexprElimination, MustNotMergeMatmulsWithDifferentTransposeFlags) {
  expect_unchanged("CommonSubexprElimination", R"(
program @p() {
  %x: f32[4, 4] = param
  %0: f32[4, 4] = matmul(%x, %x)
  %1: f32[4, 4] = matmul(%x, %x, transpose_b=true)
  %2: f32[4, 4] = matmul(%x, %x, transpose_a=true)
  return %0, %1, %2
}
)",
                   "must not merge matmuls with different transpose flags");
}

TEST(CommonSubexprElimination, MustNotMergeMatmulsWithDifferentAccumulators) {
  expect_unchanged("CommonSubexprElimination", R"(
program @p() {
  %x: f16[4, 8] = param
  %w: f16[8, 4] = param
  %0: f16[4, 4] = matmul(%x, %w)
  %1: f16[4, 4] = matmul(%x, %w, acc=f32)
  %2: f16[4, 4] = matmul(%x, %w, acc=f64)
  return %0, %1, %2
}
)",
                   "must not merge matmuls with different acc dtypes (absent acc is the operand dtype)");
}

TEST(CommonSubexprElimination, MustNotMergeCastsToDifferentDtypes) {
  expect_unchanged("CommonSubexprElimination", R"(
program @p(n: 1..8) {
  %x: f32[n] = param
  %0: f16[n] = cast(%x, dtype=f16)
  %1: bf16[n] = cast(%x, dtype=bf16)
  %2: i32[n] = cast(%x, dtype=i32)
  return %0, %1, %2
}
)",
                   "must not merge casts with different target dtypes");
}

TEST(CommonSubexprElimination, MustNotMergeDifferentConstantsOrParams) {
  expect_unchanged("CommonSubexprElimination", R"(
program @p() {
  %x: f32[2] = param
  %y: f32[2] = param
  %a: f32[2] = const [0, 1]
  %b: f32[2] = const [-0, 1]
  %c: f16[2] = const [0, 1]
  %u: f32[2] = const uniform(-1, 1, seed=7)
  %v: f32[2] = const uniform(-1, 1, seed=8)
  %w: f32[2] = const normal(-1, 1, seed=7)
  %0: f32[2] = div(%x, %a)
  %1: f32[2] = div(%y, %b)
  %2: f32[2] = add(%u, %v)
  %3: f32[2] = add(%2, %w)
  return %0, %1, %3, %c
}
)",
                   "-0.0 is not +0.0 (1/x differs), f16 is not f32, seeds and generators differ; params are "
                   "the interface and never merge");
}

TEST(CommonSubexprElimination, MustNotMergeFloatAttributesOfDifferentSign) {
  expect_unchanged("CommonSubexprElimination", R"(
program @p() {
  %x: f32[2] = param
  %0: f32[2] = leaky_relu(%x, alpha=0)
  %1: f32[2] = leaky_relu(%x, alpha=-0.0)
  %2: f32[2] = div(%x, %0)
  %3: f32[2] = div(%x, %1)
  return %2, %3
}
)",
                   "attributes compare by their bits: alpha=-0 turns negative x into -0, alpha=0 into +0");
}

// Every call repeated under a new name must merge back into the original.
Program with_every_call_repeated(const Program& p) {
  std::vector<Binding> bindings = p.bindings();
  std::vector<Value> outputs = p.outputs();
  for (const auto& b : p.bindings()) {
    if (!b.is_call()) continue;
    std::vector<Value> results;
    for (const auto& r : b.results()) results.push_back(Value::make("again_" + r.name(), r.type()));
    bindings.push_back(Binding::call(results, &b.op(), b.args(), b.attrs()));
    outputs.push_back(results.front());
  }
  return Program::make(p.name(), p.dims(), std::move(bindings), std::move(outputs));
}

RC_GTEST_PROP(CommonSubexprElimination, PreservesTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 6;
  const Program p = generate_program(choices, options);
  const Program doubled = with_every_call_repeated(p);
  const Program after = pipeline::find_pass("CommonSubexprElimination").graph(doubled, testing::planted_context());
  verify(after);
  RC_ASSERT(after.num_calls() <= p.num_calls());
  const auto preserved = testing::preserves_reference(doubled, after);
  if (!preserved) RC_FAIL(preserved.message());
}

}  // namespace
}  // namespace difftest
