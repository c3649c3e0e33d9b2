// SimplifyExpr: IR-in/IR-out cases (each rule, and the identities that must not be rules) and
// the property that it preserves the reference.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "compiler/ops/op.h"
#include "compiler/passes/simplify_expr.h"
#include "fuzz/generator.h"
#include "tests/support/pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

TEST(SimplifyExpr, EveryRuleHasANameAndAReason) {
  const auto rules = passes::simplify_expr_rules();
  EXPECT_GE(rules.size(), 13u);
  for (const auto& r : rules) {
    EXPECT_FALSE(r.name.empty());
    EXPECT_FALSE(r.why.empty()) << r.name;
  }
}

RC_GTEST_PROP(SimplifyExpr, PreservesTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 8;
  // Weigh the ops the rules are about, so programs contain chains of them.
  options.weights = default_op_weights();
  for (const char* op : {"neg", "mul", "add", "sub", "div", "cast", "reshape", "permute_dims", "ones", "zeros"}) {
    if (options.weights.count(op)) options.weights[op] *= 8;
  }
  const Program p = generate_program(choices, options);
  const Program after = pipeline::find_pass("SimplifyExpr").graph(p, testing::test_context());
  verify(after);
  const auto preserved = testing::preserves_reference(p, after);
  if (!preserved) RC_FAIL(preserved.message());
}

// Wraps every output o in identities the rules know: neg(neg(o)), o * ones, an exact cast
// round trip, a double reversal and a reshape round trip. SimplifyExpr must see through all.
class Wrapper {
 public:
  explicit Wrapper(const Program& p) : p_(p), bindings_(p.bindings()), ranges_(p.ranges()) {}

  Value call(const char* op_name, std::vector<Value> args, std::vector<std::pair<std::string, AttrValue>> attrs) {
    const OpDef& op = *OpRegistry::get().find(op_name);
    Attrs a = make_attrs(op, attrs);
    std::vector<TensorType> in;
    for (const auto& v : args) in.push_back(v.type());
    Value r = Value::make("w" + std::to_string(counter_++), infer_types(op, in, a, ranges_).front());
    bindings_.push_back(Binding::call({r}, &op, std::move(args), std::move(a)));
    return r;
  }

  Value wrap(const Value& o) {
    const TensorType& t = o.type();
    Value v = o;
    if (is_float(t.dtype) || is_signed_int(t.dtype)) v = call("neg", {call("neg", {v}, {})}, {});
    if (!is_bool(t.dtype)) {
      v = call("mul", {v, call("ones", {}, {{"shape", AttrValue(t.shape)}, {"dtype", AttrValue(t.dtype)}})}, {});
    }
    if (auto wide = wider(t.dtype)) {
      v = call("cast", {call("cast", {v}, {{"dtype", AttrValue(*wide)}})}, {{"dtype", AttrValue(t.dtype)}});
    }
    if (t.rank() >= 2) v = call("permute_dims", {call("permute_dims", {v}, {})}, {});
    if (t.rank() >= 1) {
      // The flat dim can be one the prover fails to show >= 1 (n*(m // 5) - n); the wrapped
      // program would not verify, so that output goes without the reshape round trip.
      sym::Expr count = t.shape.front();
      for (int i = 1; i < t.rank(); ++i) count = count * t.shape[i];
      const std::vector<sym::Expr> flat = {count};
      const OpDef& reshape = *OpRegistry::get().find("reshape");
      const TensorType flat_type =
          infer_types(reshape, {t}, make_attrs(reshape, {{"shape", AttrValue(flat)}}), ranges_).front();
      if (sym::prove_ge(flat_type.shape.front(), 1, ranges_) == sym::Truth::True) {
        v = call("reshape", {call("reshape", {v}, {{"shape", AttrValue(flat)}})}, {{"shape", AttrValue(t.shape)}});
      }
    }
    return v;
  }

  Program program() {
    std::vector<Value> outputs;
    for (const auto& o : p_.outputs()) outputs.push_back(wrap(o));
    return Program::make(p_.name(), p_.dims(), bindings_, outputs);
  }

 private:
  static std::optional<DType> wider(DType t) {
    switch (t) {
      case DType::f16: case DType::bf16: return DType::f32;
      case DType::f32: return DType::f64;
      case DType::i8: case DType::u8: return DType::i32;
      case DType::i32: case DType::u32: return DType::i64;
      case DType::boolean: return DType::f16;
      default: return std::nullopt;
    }
  }

  const Program& p_;
  std::vector<Binding> bindings_;
  sym::Ranges ranges_;
  int counter_ = 0;
};

RC_GTEST_PROP(SimplifyExpr, SeesThroughIdentityChainsAndPreservesTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 5;
  const Program p = generate_program(choices, options);
  const Program wrapped = Wrapper(p).program();
  verify(wrapped);
  const Program after = pipeline::find_pass("SimplifyExpr").graph(wrapped, testing::test_context());
  verify(after);
  // Each wrap adds at least 8 calls; what stays live is p's calls plus at most one per output
  // (a wrapped permute_dims of a permute_dims output composes with it, leaving one permute).
  const Program live = pipeline::find_pass("DeadCodeElimination").graph(after, testing::test_context());
  if (live.num_calls() > p.num_calls() + p.outputs().size()) RC_FAIL("identities left:\n" + print(live));
  const auto preserved = testing::preserves_reference(wrapped, after);
  if (!preserved) RC_FAIL(preserved.message());
}

}  // namespace
}  // namespace difftest
