// FuseTransposeMatmul: the property that it preserves the reference.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "compiler/ops/op.h"
#include "fuzz/generator.h"
#include "tests/support/pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

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
  const Program after = pipeline::find_pass("FuseTransposeMatmul").graph(p, testing::test_context());
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
