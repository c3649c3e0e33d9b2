// The evaluator: bad bindings and inputs are user errors; a shape disagreement between the
// reference and a program's type is an internal error naming the op; every op has a kernel;
// every corpus program evaluates under the standard bindings in both modes.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "compiler/ir/parser.h"
#include "compiler/ir/verifier.h"
#include "compiler/ops/op.h"
#include "reference/inputs.h"
#include "reference/kernel.h"
#include "reference/reference.h"

namespace difftest {
namespace {

using reference::Mode;

const char* kProgram = R"(program @t(n: 1..8) {
  %x: f32[n, 4] = param
  %i: i32[n] = param
  %y: f32[n, 4] = exp(%x)
  return %y
})";

ErrorKind eval_error(const Program& p, const sym::Env& env, const std::map<std::string, Tensor>& in) {
  try {
    reference::evaluate(p, env, in, Mode::F64);
  } catch (const UserError& e) {
    return e.kind();
  }
  ADD_FAILURE() << "evaluated";
  return ErrorKind::Syntax;
}

TEST(Evaluator, RejectsBadBindingsAndInputs) {
  const Program p = parse_program(kProgram);
  const auto good = reference::generate_inputs(p, {{"n", 3}}, 0);
  EXPECT_EQ(eval_error(p, {{"n", 9}}, good), ErrorKind::Evaluation);          // outside 1..8
  EXPECT_EQ(eval_error(p, {}, good), ErrorKind::Evaluation);                  // n unbound
  EXPECT_EQ(eval_error(p, {{"n", 3}, {"m", 1}}, good), ErrorKind::Evaluation);  // not a dim of @t
  auto missing = good;
  missing.erase("x");
  EXPECT_EQ(eval_error(p, {{"n", 3}}, missing), ErrorKind::Io);
  auto wrong_dtype = good;
  wrong_dtype["x"] = Tensor(DType::f16, {3, 4});
  EXPECT_EQ(eval_error(p, {{"n", 3}}, wrong_dtype), ErrorKind::TypeMismatch);
  auto wrong_shape = good;
  wrong_shape["x"] = Tensor(DType::f32, {2, 4});  // n is 3
  EXPECT_EQ(eval_error(p, {{"n", 3}}, wrong_shape), ErrorKind::TypeMismatch);
  auto extra = good;
  extra["z"] = Tensor(DType::f32, {1});
  EXPECT_EQ(eval_error(p, {{"n", 3}}, extra), ErrorKind::Io);
  const Program big = parse_program("program @b(n: 1..2147483647) {\n  %x: f64[n, n] = param\n  return %x\n}\n");
  EXPECT_EQ(eval_error(big, {{"n", 100000}}, {}), ErrorKind::Limit);
}

TEST(Evaluator, ShapeDisagreementIsAnInternalErrorNamingTheOp) {
  // Built without the verifier: the declared type of %y is wrong for exp.
  const Value x = Value::make("x", TensorType{DType::f32, {2}});
  const Value y = Value::make("y", TensorType{DType::f32, {3}});
  const OpDef* exp = OpRegistry::get().find("exp");
  const Program p =
      Program::make("t", {}, {Binding::param(x), Binding::call({y}, exp, {x}, make_attrs(*exp, {}))}, {y});
  try {
    reference::evaluate(p, {}, {{"x", Tensor(DType::f32, {2})}}, Mode::F64);
    FAIL();
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("reference exp computed f64[2] for %y"), std::string::npos) << e.what();
  }
}

TEST(Evaluator, EveryOpHasAKernel) {
  for (const OpDef* op : OpRegistry::get().all()) {
    EXPECT_NE(reference::kernels().find(op->name), nullptr) << op->name;
  }
  EXPECT_EQ(reference::kernels().ops().size(), OpRegistry::get().all().size());
}

TEST(Evaluator, InputsAreDeterministicAndRespectDomains) {
  const Program p = parse_program(R"(program @d(n: 1..8) {
  %x: f16[n] = param
  %l: f16[n] = log(%x)
  %e: f32[5, 2] = param
  %i: i64[n] = param
  %g: f32[n, 2] = take(%e, %i)
  %w: u32[4, 4] = param
  %s: f16[4, 1] = param
  %dq: f16[4, 32] = dequantize(%w, %s, format="q4f16_1", group=32)
  return %l, %g, %dq
})");
  const auto a = reference::generate_inputs(p, {{"n", 8}}, 7);
  const auto b = reference::generate_inputs(p, {{"n", 8}}, 7);
  for (const auto& [name, t] : a) EXPECT_TRUE(t.same_bytes(b.at(name))) << name;
  EXPECT_FALSE(a.at("x").same_bytes(reference::generate_inputs(p, {{"n", 8}}, 8).at("x")));
  for (double v : a.at("x").to_doubles()) EXPECT_GT(v, 0);  // log's operand
  for (int64_t v : a.at("i").to_ints()) {
    EXPECT_GE(v, 0);
    EXPECT_LT(v, 5);  // take's dim
  }
  // Packed weights come from quantize: codes 0..14 only, scales positive.
  for (int64_t word : a.at("w").to_ints()) {
    for (int e = 0; e < 8; ++e) EXPECT_LE((word >> (4 * e)) & 15, 14);
  }
  for (double s : a.at("s").to_doubles()) EXPECT_GT(s, 0);
  const auto ev = reference::evaluate(p, {{"n", 8}}, a, Mode::Native);
  for (const Tensor& out : ev.outputs) {
    for (double v : out.to_doubles()) EXPECT_TRUE(std::isfinite(v));
  }
}

TEST(Evaluator, BindingsFromFlagsAndInputShapes) {
  const Program p = parse_program(kProgram);
  EXPECT_EQ(reference::parse_binding("n=5,m=3", "--bind"), (sym::Env{{"n", 5}, {"m", 3}}));
  EXPECT_TRUE(reference::parse_binding("", "--bind").empty());
  for (const char* bad : {"n", "n=", "=3", "n=x", "n=-1", "n=1,,m=2", "n=1,n=2"}) {
    EXPECT_THROW(reference::parse_binding(bad, "--bind"), UserError) << bad;
  }
  const std::map<std::string, Tensor> in = {{"x", Tensor(DType::f32, {6, 4})}, {"i", Tensor(DType::i32, {6})}};
  EXPECT_EQ(reference::resolve_binding(p, {}, &in), (sym::Env{{"n", 6}}));
  EXPECT_EQ(reference::resolve_binding(p, {}, nullptr), (sym::Env{{"n", 1}}));
  const std::map<std::string, Tensor> conflict = {{"x", Tensor(DType::f32, {6, 4})}, {"i", Tensor(DType::i32, {5})}};
  EXPECT_THROW(reference::resolve_binding(p, {}, &conflict), UserError);
  EXPECT_THROW(reference::resolve_binding(p, {{"n", 9}}, nullptr), UserError);
  EXPECT_THROW(reference::resolve_binding(p, {{"q", 1}}, nullptr), UserError);
  const Program two = parse_program("program @b(n: 1..9, m: 2..4) {\n  %x: f32[n, m] = param\n  return %x\n}\n");
  const auto envs = reference::standard_bindings(two);
  EXPECT_EQ(envs, (std::vector<sym::Env>{{{"n", 1}, {"m", 2}},
                                         {{"n", 5}, {"m", 2}},
                                         {{"n", 9}, {"m", 2}},
                                         {{"n", 1}, {"m", 3}},
                                         {{"n", 1}, {"m", 4}},
                                         {{"n", 9}, {"m", 4}}}));
}

// The done-criterion of the reference issue: every corpus program under the standard bindings
// (each dim at 1, an odd middle value and its maximum) in both modes, with finite outputs.
TEST(Evaluator, EveryCorpusProgramEvaluatesUnderStandardBindingsInBothModes) {
  int programs = 0, runs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(DIFFTEST_SOURCE_DIR "/corpus")) {
    if (entry.path().extension() != ".ir") continue;
    const Program p = parse_program_file(entry.path().string());
    verify(p);
    ++programs;
    for (const sym::Env& env : reference::standard_bindings(p)) {
      const auto inputs = reference::generate_inputs(p, env, 1);
      for (Mode mode : {Mode::F64, Mode::Native}) {
        const auto ev = reference::evaluate(p, env, inputs, mode);
        ++runs;
        for (size_t i = 0; i < ev.outputs.size(); ++i) {
          for (double v : ev.outputs[i].to_doubles()) {
            ASSERT_TRUE(std::isfinite(v)) << entry.path() << " output " << i << " in " << reference::mode_name(mode);
          }
        }
      }
    }
  }
  EXPECT_GE(programs, 10);
  std::printf("evaluated %d corpus programs in %d (binding, mode) runs\n", programs, runs);
}

}  // namespace
}  // namespace difftest
