// FuseTransposeMatmul: IR-in/IR-out cases and the property that it preserves the reference.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "compiler/ops/op.h"
#include "fuzz/generator.h"
#include "tests/support/pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

using testing::expect_rewrite;
using testing::expect_unchanged;

TEST(FuseTransposeMatmul, MatrixTransposeOfBBecomesTransposeB) {
  expect_rewrite("FuseTransposeMatmul", R"(
program @p(n: 1..8) {
  %x: f32[n, 4] = param
  %w: f32[3, 4] = param
  %t: f32[4, 3] = permute_dims(%w)
  %0: f32[n, 3] = matmul(%x, %t, acc=f64)
  return %0
}
)",
                 R"(
program @p(n: 1..8) {
  %x: f32[n, 4] = param
  %w: f32[3, 4] = param
  %t: f32[4, 3] = permute_dims(%w)
  %0: f32[n, 3] = matmul(%x, %w, transpose_b=true, acc=f64)
  return %0
}
)",
                 "axes=[] on a matrix is the swap; the permute stays for DeadCodeElimination to drop");
}

TEST(FuseTransposeMatmul, BatchedSwapFlipsAnExistingFlagOnBothOperands) {
  expect_rewrite("FuseTransposeMatmul", R"(
program @p(n: 1..8) {
  %a: f16[2, n, 5, 5] = param
  %t: f16[2, n, 5, 5] = permute_dims(%a, axes=[0, 1, -1, -2])
  %0: f16[2, n, 5, 5] = matmul(%t, %t, transpose_a=true, acc=f32)
  return %0
}
)",
                 R"(
program @p(n: 1..8) {
  %a: f16[2, n, 5, 5] = param
  %t: f16[2, n, 5, 5] = permute_dims(%a, axes=[0, 1, -1, -2])
  %0: f16[2, n, 5, 5] = matmul(%a, %a, transpose_b=true, acc=f32)
  return %0
}
)",
                 "a swap under transpose_a cancels it; negative axes name the same swap");
}

TEST(FuseTransposeMatmul, FollowsAChainOfSwapsAndKeepsAPermuteThatIsAnOutput) {
  expect_rewrite("FuseTransposeMatmul", R"(
program @p(n: 1..8) {
  %x: f32[n, 4] = param
  %w: f32[4, 3] = param
  %t: f32[3, 4] = permute_dims(%w, axes=[1, 0])
  %u: f32[4, 3] = permute_dims(%t, axes=[1, 0])
  %0: f32[n, 3] = matmul(%x, %u)
  return %0, %t
}
)",
                 R"(
program @p(n: 1..8) {
  %x: f32[n, 4] = param
  %w: f32[4, 3] = param
  %t: f32[3, 4] = permute_dims(%w, axes=[1, 0])
  %u: f32[4, 3] = permute_dims(%t, axes=[1, 0])
  %0: f32[n, 3] = matmul(%x, %w)
  return %0, %t
}
)",
                 "two swaps flip the flag twice; %t is a result, so it must stay");
}

TEST(FuseTransposeMatmul, LeavesPermutesThatMoveBatchOrOtherAxes) {
  expect_unchanged("FuseTransposeMatmul", R"(
program @p(n: 1..8) {
  %a: f32[2, n, 5, 3] = param
  %b: f32[n, 2, 4, 3] = param
  %c: f32[4, 3, 2] = param
  %v: f32[6] = param
  %t: f32[2, n, 3, 4] = permute_dims(%b, axes=[1, 0, 3, 2])
  %0: f32[2, n, 5, 4] = matmul(%a, %t)
  %r: f32[2, 3, 4] = permute_dims(%c)
  %1: f32[2, 3, 3] = matmul(%r, %r, transpose_b=true)
  %p: f32[6] = permute_dims(%v, axes=[0])
  %m: f32[2, 3] = reshape(%p, shape=[2, 3])
  %2: f32[2, 2] = matmul(%m, %m, transpose_b=true)
  return %0, %1, %2
}
)",
                   "must not fuse a permute that moves batch axes, a rank-3 reversal or a rank-1 permute");
}

TEST(FuseTransposeMatmul, LeavesAPermuteOfTheResultAndLinear) {
  expect_unchanged("FuseTransposeMatmul", R"(
program @p(n: 1..8) {
  %x: f32[n, 4] = param
  %w: f32[4, 3] = param
  %0: f32[n, 3] = matmul(%x, %w)
  %1: f32[3, n] = permute_dims(%0)
  %t: f32[3, 4] = permute_dims(%w)
  %2: f32[n, 3] = linear(%x, %t)
  return %1, %2
}
)",
                   "a permute of the matmul's output is not an operand; linear has no transpose flag");
}

TEST(FuseTransposeMatmul, FusedProgramCompilesAndAgrees) {
  const Program before = testing::parse_case(R"(
program @p(n: 1..8) {
  %a: f32[3, n, 5] = param
  %b: f32[3, 4, n] = param
  %ta: f32[3, 5, n] = permute_dims(%a, axes=[0, 2, 1])
  %tb: f32[3, n, 4] = permute_dims(%b, axes=[0, 2, 1])
  %0: f32[3, 5, 4] = matmul(%ta, %tb, acc=f64)
  return %0
}
)");
  const Program after = testing::run_graph_pass("FuseTransposeMatmul", before);
  ASSERT_FALSE(after.same_as(before));
  EXPECT_TRUE(testing::preserves_reference(before, after));
  EXPECT_TRUE(testing::compiled_agrees(after, {"DeadCodeElimination", "LegalizeOps"}));
}

// The pass's inverse on a random subset of matmul operands: the operand goes through a swap
// of its last two axes and the matching flag flips. Generated programs rarely contain the
// pattern on their own, so this is what gives the property something to fuse.
Program unfuse(const Program& p) {
  const OpDef& permute = *OpRegistry::get().find("permute_dims");
  std::vector<Binding> out;
  for (const auto& b : p.bindings()) {
    if (!b.is_call() || b.op().name != "matmul") {
      out.push_back(b);
      continue;
    }
    std::vector<Value> args = b.args();
    auto items = b.attrs().items();
    bool changed = false;
    for (size_t i = 0; i < 2; ++i) {
      if (!*rc::gen::arbitrary<bool>()) continue;
      std::vector<int64_t> axes;
      for (int d = 0; d < args[i].type().rank(); ++d) axes.push_back(d);
      std::swap(axes[axes.size() - 1], axes[axes.size() - 2]);
      const Attrs attrs = make_attrs(permute, {{"axes", axes}});
      const auto types = infer_types(permute, {args[i].type()}, attrs, p.ranges());
      const Value swapped = Value::make(b.result().name() + "_swap" + std::to_string(i), types.front());
      out.push_back(Binding::call({swapped}, &permute, {args[i]}, attrs));
      args[i] = swapped;
      for (auto& [name, value] : items) {
        if (name == (i == 0 ? "transpose_a" : "transpose_b")) value = !std::get<bool>(value);
      }
      changed = true;
    }
    out.push_back(changed ? Binding::call(b.results(), &b.op(), args, Attrs(items)) : b);
  }
  return Program::make(p.name(), p.dims(), std::move(out), p.outputs());
}

RC_GTEST_PROP(FuseTransposeMatmul, PreservesTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 8;
  options.weights["permute_dims"] = 300;
  options.weights["matmul"] = 300;
  const Program p = unfuse(generate_program(choices, options));
  verify(p);
  const Program after = pipeline::find_pass("FuseTransposeMatmul").graph(p, testing::planted_context());
  verify(after);
  RC_CLASSIFY(!after.same_as(p), "fused");
  RC_ASSERT(after.num_calls() == p.num_calls());
  for (const auto& b : after.bindings()) {
    if (!b.is_call() || b.op().name != "matmul") continue;
    for (const auto& a : b.args()) RC_ASSERT(a.name().find("_swap") == std::string::npos);
  }
  const auto preserved = testing::preserves_reference(p, after);
  if (!preserved) RC_FAIL(preserved.message());
}

}  // namespace
}  // namespace difftest
