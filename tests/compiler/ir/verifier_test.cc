// The verifier on programs built through the factories (the parser checks names; these
// check what only the verifier sees).
#include <gtest/gtest.h>

#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/op.h"

namespace difftest {
namespace {

TensorType f32(std::vector<sym::Expr> shape) { return TensorType{DType::f32, std::move(shape)}; }

ErrorKind verify_kind(const Program& p) {
  try {
    verify(p);
  } catch (const UserError& e) {
    return e.kind();
  }
  ADD_FAILURE() << "verified:\n" << print(p);
  return ErrorKind::Io;
}

TEST(Verifier, RejectsUndeclaredVariablesInTypesAndAttributes) {
  const Value x = Value::make("x", f32({sym::Expr::var("n")}));
  EXPECT_EQ(verify_kind(Program::make("t", {}, {Binding::param(x)}, {x})), ErrorKind::UndeclaredDim);

  const OpDef* mask = OpRegistry::get().find("causal_mask");
  const Attrs attrs = make_attrs(*mask, {{"q_len", sym::Expr::var("q")}, {"kv_len", sym::Expr(4)}});
  const Value m = Value::make("m", TensorType{DType::boolean, {sym::Expr::var("q"), 4}});
  const Program p = Program::make("t", {DimVar{"n", {1, 4}}}, {Binding::call({m}, mask, {}, attrs)}, {m});
  EXPECT_EQ(verify_kind(p), ErrorKind::UndeclaredDim);
}

TEST(Verifier, DimsMustBeProvablyPositiveAndBounded) {
  const DimVar n{"n", {1, 100}};
  const Value a = Value::make("a", f32({sym::floordiv(sym::Expr::var("n"), 5) - 1}));
  EXPECT_EQ(verify_kind(Program::make("t", {n}, {Binding::param(a)}, {a})), ErrorKind::NegativeDim);
  const DimVar n10{"n", {10, 100}};
  verify(Program::make("t", {n10}, {Binding::param(a)}, {a}));  // m // 5 - 1 >= 1 when m >= 10

  const sym::Expr big = sym::Expr::var("n");
  const Value huge = Value::make("h", f32({big, big, big}));
  EXPECT_EQ(verify_kind(Program::make("t", {DimVar{"n", {1, 1 << 20}}}, {Binding::param(huge)}, {huge})),
            ErrorKind::Limit);
}

TEST(Verifier, ConstantsMustMatchTheirTypes) {
  ConstantInit lit;
  lit.int_values = {1, 2, 3};
  const Value c = Value::make("c", TensorType{DType::i32, {2}});
  EXPECT_EQ(verify_kind(Program::make("t", {}, {Binding::constant(c, lit)}, {c})), ErrorKind::Literal);

  ConstantInit u;
  u.kind = ConstantInit::Kind::Uniform;
  u.p0 = 1;
  u.p1 = 0;
  const Value f = Value::make("f", f32({4}));
  EXPECT_EQ(verify_kind(Program::make("t", {}, {Binding::constant(f, u)}, {f})), ErrorKind::Literal);

  ConstantInit nrm;
  nrm.kind = ConstantInit::Kind::Normal;
  nrm.p1 = 1;
  const Value i = Value::make("i", TensorType{DType::i32, {4}});
  EXPECT_EQ(verify_kind(Program::make("t", {}, {Binding::constant(i, nrm)}, {i})), ErrorKind::Literal);
}

TEST(Verifier, DeclaredTypesMustEqualInferredOnes) {
  const char* good = R"(program @t(n: 2..8) {
  %x: f32[n, 4] = param
  %y: f32[n - 1, 4] = strided_slice(%x, axes=[0], begin=[1], end=[n])
  %z: f32[4*n] = reshape(%x, shape=[-1])
  return %y, %z
})";
  verify(parse_program(good));
  const char* bad = R"(program @t(n: 2..8) {
  %x: f32[n, 4] = param
  %y: f32[n, 4] = strided_slice(%x, axes=[0], begin=[1], end=[n])
  return %y
})";
  try {
    verify(parse_program(bad, "bad.ir"));
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::TypeMismatch);
    EXPECT_EQ(e.loc().line, 3);
    EXPECT_NE(std::string(e.what()).find("declared f32[n, 4] but strided_slice infers f32[n - 1, 4]"),
              std::string::npos)
        << e.what();
  }
}

TEST(Factories, RejectStructuralErrors) {
  const Value x = Value::make("x", f32({4}));
  const Value y = Value::make("y", f32({4}));
  const OpDef* exp = OpRegistry::get().find("exp");
  // y used before it is defined.
  EXPECT_THROW(Program::make("t", {}, {Binding::call({x}, exp, {y}, make_attrs(*exp, {})), Binding::param(y)}, {x}),
               UserError);
  // Two results named x.
  const Value x2 = Value::make("x", f32({4}));
  EXPECT_THROW(Program::make("t", {}, {Binding::param(x), Binding::param(x2)}, {x}), UserError);
  // Wrong arity.
  EXPECT_THROW(Binding::call({y}, exp, {x, x}, make_attrs(*exp, {})), UserError);
  // Invalid names.
  EXPECT_THROW(Value::make("a-b", f32({4})), UserError);
  EXPECT_THROW(Program::make("1bad", {}, {Binding::param(x)}, {x}), UserError);
}

}  // namespace
}  // namespace difftest
