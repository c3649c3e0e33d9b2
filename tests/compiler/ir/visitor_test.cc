// Visitor and Mutator bases: traversal order, rebuild-only-on-change, fresh names, rebuilt
// bindings, definitions of emitted values, fusion groups and dim variables.
#include <gtest/gtest.h>

#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/op.h"

namespace difftest {
namespace {

const char* kProgram = R"(program @t(n: 1..8) {
  %x: f32[n] = param
  %c: f32[n] = const uniform(0, 1, seed=1)
  %a: f32[n] = neg(%x)
  %b: f32[n] = neg(%a)
  %d: f32[n] = add(%b, %c)
  return %d
}
)";

class OpCounter : public Visitor {
 public:
  std::vector<std::string> seen;

 protected:
  void visit_param(const Binding& b) override { seen.push_back("param " + b.result().name()); }
  void visit_const(const Binding& b) override { seen.push_back("const " + b.result().name()); }
  void visit_call(const Binding& b) override { seen.push_back(b.op().name + " " + b.result().name()); }
  void visit_outputs(const std::vector<Value>& outs) override { seen.push_back("return " + outs[0].name()); }
};

TEST(Visitor, VisitsBindingsInProgramOrder) {
  OpCounter v;
  v.visit_program(parse_program(kProgram));
  EXPECT_EQ(v.seen, (std::vector<std::string>{"param x", "const c", "neg a", "neg b", "add d", "return d"}));
}

// neg(neg(x)) -> x
class DoubleNegation : public Mutator {
 protected:
  std::vector<Value> rewrite(const Binding& b) override {
    if (b.is_call() && b.op().name == "neg") {
      for (const auto& prior : input().bindings()) {
        if (prior.is_call() && prior.op().name == "neg" && prior.result().same_as(b.args()[0])) {
          return {remap(prior.args()[0])};
        }
      }
    }
    return keep(b);
  }
};

// Replaces add(a, b) by sub(a, neg(b)), emitting new bindings with fresh names.
class AddToSub : public Mutator {
 protected:
  std::vector<Value> rewrite(const Binding& b) override {
    if (!b.is_call() || b.op().name != "add") return keep(b);
    const OpDef& neg = *OpRegistry::get().find("neg");
    const OpDef& sub = *OpRegistry::get().find("sub");
    const Value nb = emit_call(neg, {remap(b.args()[1])}, make_attrs(neg, {}), {b.args()[1].type()}, "neg")[0];
    return emit_call(sub, {remap(b.args()[0]), nb}, make_attrs(sub, {}), {b.result().type()}, "sub");
  }
};

TEST(Mutator, UnchangedProgramIsTheSameObject) {
  const Program p = parse_program(kProgram);
  Mutator identity;
  EXPECT_TRUE(identity.mutate(p).same_as(p));
  const Program no_add = parse_program("program @u() {\n  %x: f32[2] = param\n  %y: f32[2] = exp(%x)\n  return %y\n}\n");
  AddToSub m;
  EXPECT_TRUE(m.mutate(no_add).same_as(no_add));
}

TEST(Mutator, RewritesAndDropsBindings) {
  const Program p = parse_program(kProgram);
  DoubleNegation m;
  const Program q = m.mutate(p);
  EXPECT_FALSE(q.same_as(p));
  verify(q);
  // %b is gone: add now reads %x directly; the dead %a stays (removing it is DCE's job).
  EXPECT_EQ(print(q),
            "program @t(n: 1..8) {\n  %x: f32[n] = param\n  %c: f32[n] = const uniform(0, 1, seed=1)\n"
            "  %a: f32[n] = neg(%x)\n  %d: f32[n] = add(%x, %c)\n  return %d\n}\n");
}

TEST(Mutator, EmittedBindingsGetFreshNames) {
  const Program p = parse_program(kProgram);
  AddToSub m;
  const Program q = m.mutate(p);
  verify(q);
  EXPECT_EQ(print(q),
            "program @t(n: 1..8) {\n  %x: f32[n] = param\n  %c: f32[n] = const uniform(0, 1, seed=1)\n"
            "  %a: f32[n] = neg(%x)\n  %b: f32[n] = neg(%a)\n  %neg_0: f32[n] = neg(%c)\n"
            "  %sub_1: f32[n] = sub(%b, %neg_0)\n  return %sub_1\n}\n");
}

// Rebuilds sum(x, axes=[0]) as sum(x, axes=[-1]) under the same result: only the attributes
// change, so the results alone do not tell that the program changed.
class LastAxis : public Mutator {
 protected:
  std::vector<Value> rewrite(const Binding& b) override {
    if (!b.is_call() || b.op().name != "sum") return keep(b);
    return emit(Binding::call(b.results(), &b.op(), {remap(b.args()[0])},
                              make_attrs(b.op(), {{"axes", std::vector<int64_t>{-1}}}), b.loc()));
  }
};

TEST(Mutator, ABindingRebuiltUnderItsOwnResultsIsAChange) {
  const Program p = parse_program(
      "program @s() {\n  %x: f32[4] = param\n  %y: f32[] = sum(%x, axes=[0])\n  return %y\n}\n");
  LastAxis m;
  const Program q = m.mutate(p);
  EXPECT_FALSE(q.same_as(p));
  EXPECT_EQ(print(q), "program @s() {\n  %x: f32[4] = param\n  %y: f32[] = sum(%x, axes=[-1])\n  return %y\n}\n");
}

// Records which op defines each neg's operand in the program being built.
class OperandDefinitions : public Mutator {
 public:
  std::vector<std::string> seen;

 protected:
  std::vector<Value> rewrite(const Binding& b) override {
    if (b.is_call() && b.op().name == "neg") {
      const Binding* d = definition(remap(b.args()[0]));
      seen.push_back(!d ? "none" : d->is_call() ? d->op().name : d->kind() == BindingKind::Param ? "param" : "const");
    }
    return keep(b);
  }
};

TEST(Mutator, DefinitionFindsTheEmittedBindingOfAValue) {
  OperandDefinitions m;
  m.mutate(parse_program(kProgram));
  EXPECT_EQ(m.seen, (std::vector<std::string>{"param", "neg"}));
}

TEST(Mutator, RenamingAnOperandKeepsTheFusionGroup) {
  const Program p = parse_program(
      "program @g() {\n  %x: f32[4] = param\n  %a: f32[4] = neg(%x)\n  %b: f32[4] = neg(%a)\n"
      "  %d: f32[4] = exp(%b) @fused(0)\n  %e: f32[4] = exp(%d) @fused(0)\n  return %e\n}\n");
  DoubleNegation m;
  const Program q = m.mutate(p);
  verify(q);
  EXPECT_EQ(print(q),
            "program @g() {\n  %x: f32[4] = param\n  %a: f32[4] = neg(%x)\n"
            "  %d: f32[4] = exp(%x) @fused(0)\n  %e: f32[4] = exp(%d) @fused(0)\n  return %e\n}\n");
}

// Drops the dim variable `m`, which no type mentions.
class DropDim : public Mutator {
 protected:
  std::vector<DimVar> rewrite_dims(const std::vector<DimVar>& dims) override {
    std::vector<DimVar> out;
    for (const auto& d : dims) {
      if (d.name != "m") out.push_back(d);
    }
    return out;
  }
};

TEST(Mutator, ChangedDimVariablesAreAChange) {
  const Program p = parse_program("program @d(n: 1..8, m: 1..4) {\n  %x: f32[n] = param\n  return %x\n}\n");
  DropDim m;
  const Program q = m.mutate(p);
  EXPECT_FALSE(q.same_as(p));
  EXPECT_EQ(print(q), "program @d(n: 1..8) {\n  %x: f32[n] = param\n  return %x\n}\n");
}

}  // namespace
}  // namespace difftest
