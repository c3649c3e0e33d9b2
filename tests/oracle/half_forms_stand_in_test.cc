// Two legitimate forms of f16/bf16 arithmetic (docs/tolerance.md, "Legitimate forms") that no
// ensemble member samples are accepted by both tiers on generated programs:
//
//   1. f16 computed in f32, as ONNX Runtime's CPU provider runs f16 nodes it has no kernel for:
//      every f16 value is computed in f32 and rounded to f16 only at the program's casts to f16
//      and at its outputs;
//   2. f16/bf16 accumulated in f32 where the program declares a narrow accumulator (or none),
//      as fused kernels do.
//
// The stand-in implementation of each form is the program rewritten into it and compiled by the
// builtin compiler at O0: an implementation independent of the reference and its ensemble. It
// runs on the original program's inputs and is judged against the original program's bounds, as
// the oracle judges a compiler under test (check/case.h), so an element outside them is a false
// finding the oracle would report against a correct implementation.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/ops/op.h"
#include "compiler/pipeline/compile.h"
#include "fuzz/generator.h"
#include "oracle/check/case.h"
#include "oracle/check/check.h"
#include "reference/inputs.h"
#include "reference/summary.h"

namespace difftest::oracle {
namespace {

constexpr uint64_t kSeeds = 300;
constexpr int kMinPrograms = 30;

bool is_narrow_float(DType t) { return t == DType::f16 || t == DType::bf16; }

Value cast_value(std::vector<Binding>& out, std::set<std::string>& names, const Value& x, DType to) {
  std::string name = fmt::format("{}_{}", x.name(), dtype_name(to));
  while (!names.insert(name).second) name += "_";
  const OpDef* cast = OpRegistry::get().find("cast");
  TensorType t = x.type();
  t.dtype = to;
  const Value y = Value::make(name, t);
  out.push_back(Binding::call({y}, cast, {x}, make_attrs(*cast, {{"dtype", to}})));
  return y;
}

// Form 1: `p` with every f16 value computed in f32. Params and constants stay f16 (the inputs
// are the original program's) and are cast to f32 where they are defined; an op's f16 result
// (a cast to f16, a q4f16_1 scale, a creation op's dtype=f16) is kept and cast to f32 after it,
// so the program's explicit rounding points stay; an f16 accumulator becomes f32. An op that
// takes only f16 operands (dequantize's q4f16_1 scales) gets them in f16, as ONNX Runtime rounds
// before a node it has an f16 kernel for. Each f16 output is rounded to f16 at the end.
Program f16_computed_in_f32(const Program& p) {
  std::set<std::string> names;
  for (const auto& b : p.bindings()) {
    for (const auto& r : b.results()) names.insert(r.name());
  }
  std::vector<Binding> out;
  std::map<const ValueNode*, Value> now;     // a value of `p` -> its value here (f32 for an f16 one)
  std::map<const ValueNode*, Value> in_f16;  // an f16 value of `p` -> an f16 form of it, once made
  const auto define = [&](const std::vector<Value>& originals, const std::vector<Value>& results) {
    for (size_t i = 0; i < results.size(); ++i) {
      now[originals[i].get()] = results[i];
      if (results[i].type().dtype != DType::f16) continue;
      in_f16[originals[i].get()] = results[i];
      now[originals[i].get()] = cast_value(out, names, results[i], DType::f32);
    }
  };
  const auto f16_form = [&](const Value& v) {
    if (!in_f16.count(v.get())) in_f16[v.get()] = cast_value(out, names, now.at(v.get()), DType::f16);
    return in_f16.at(v.get());
  };
  for (const auto& b : p.bindings()) {
    if (!b.is_call()) {
      out.push_back(b);
      define(b.results(), b.results());
      continue;
    }
    bool reads_f16 = false;
    std::vector<Value> args;
    for (const auto& a : b.args()) {
      reads_f16 = reads_f16 || a.type().dtype == DType::f16;
      args.push_back(now.at(a.get()));
    }
    std::vector<std::pair<std::string, AttrValue>> attrs = b.attrs().items();
    const std::optional<DType> acc = b.op().find_attr("acc") ? b.attrs().get_opt_dtype("acc") : std::nullopt;
    for (auto& [name, value] : attrs) {
      if (name == "acc" && reads_f16 && acc && is_narrow_float(*acc)) value = DType::f32;
    }
    const Attrs widened = make_attrs(b.op(), attrs);
    const auto infer = [&] {
      std::vector<TensorType> in;
      for (const auto& a : args) in.push_back(a.type());
      return infer_types(b.op(), in, widened, p.ranges());
    };
    std::vector<TensorType> types;
    try {
      types = infer();
    } catch (const UserError&) {
      for (size_t i = 0; i < args.size(); ++i) {
        if (b.args()[i].type().dtype == DType::f16) args[i] = f16_form(b.args()[i]);
      }
      types = infer();
    }
    std::vector<Value> results;
    for (size_t i = 0; i < types.size(); ++i) results.push_back(Value::make(b.results()[i].name(), types[i]));
    out.push_back(Binding::call(results, &b.op(), args, widened));
    define(b.results(), results);
  }
  std::vector<Value> outputs;
  for (const auto& o : p.outputs()) {
    outputs.push_back(o.type().dtype == DType::f16 ? f16_form(o) : now.at(o.get()));
  }
  Program q = Program::make(p.name(), p.dims(), out, outputs);
  verify(q);
  return q;
}

bool declares_narrow_acc(const Binding& b) {
  if (!b.is_call() || !b.op().find_attr("acc")) return false;
  bool narrow_operands = false;
  for (const auto& a : b.args()) narrow_operands = narrow_operands || is_narrow_float(a.type().dtype);
  const std::optional<DType> acc = b.attrs().get_opt_dtype("acc");
  return narrow_operands && (!acc || is_narrow_float(*acc));
}

// Form 2: `p` with every op on f16/bf16 operands that accumulates in f16/bf16 accumulating in f32.
Program narrow_acc_in_f32(const Program& p) {
  std::vector<Binding> out;
  for (const auto& b : p.bindings()) {
    if (!declares_narrow_acc(b)) {
      out.push_back(b);
      continue;
    }
    std::vector<std::pair<std::string, AttrValue>> attrs = b.attrs().items();
    for (auto& [name, value] : attrs) {
      if (name == "acc") value = DType::f32;
    }
    out.push_back(Binding::call(b.results(), &b.op(), b.args(), make_attrs(b.op(), attrs)).with_group(b.group()));
  }
  Program q = Program::make(p.name(), p.dims(), out, p.outputs());
  verify(q);
  return q;
}

bool has_f16(const Program& p) {
  for (const auto& b : p.bindings()) {
    for (const auto& r : b.results()) {
      if (r.type().dtype == DType::f16) return true;
    }
  }
  return false;
}

bool has_narrow_acc(const Program& p) {
  for (const auto& b : p.bindings()) {
    if (declares_narrow_acc(b)) return true;
  }
  return false;
}

std::string producer(const Program& p, const Value& v) {
  for (const auto& b : p.bindings()) {
    for (const auto& r : b.results()) {
      if (r.same_as(v)) return b.is_call() ? b.op().name : "param or const";
    }
  }
  return "?";
}

struct Tally {
  int programs = 0;  // with at least one binding judged
  int invalid = 0;   // bindings where the reference is invalid
  int rejected = 0;  // programs whose form the compiler rejects
};

// The form `form` of the generated program `p` (seed `seed`) compiled at O0 and run under `p`'s
// standard bindings, each judged against `p`'s bounds (both tiers, `options`' cases) as the
// oracle judges a compiler's outputs. Returns whether every output was accepted.
bool judge_form(uint64_t seed, const Program& p, const Program& form, const CheckOptions& options, Tally& tally) {
  std::optional<runtime::Executable> exe;
  try {
    exe.emplace(pipeline::compile(form, pipeline::find_pipeline("O0")));
  } catch (const UserError&) {
    ++tally.rejected;
    return true;
  }
  bool judged = false, accepted = true;
  for (const sym::Env& binding : reference::standard_bindings(p)) {
    const Case c = make_case(p, binding, options.cases());
    if (c.invalid()) {
      ++tally.invalid;
      continue;
    }
    judged = true;
    const tolerance::Comparison cmp = c.compare(p, exe->run(c.inputs, c.env), options.tolerance);
    for (const auto& o : cmp.outputs) {
      accepted = accepted && o.failing == 0 && o.outliers == 0 && !o.bias.biased();
      const std::string where = fmt::format("seed {} under {}: output {} of {} ({})", seed,
                                            reference::binding_str(c.env), o.index, o.name,
                                            producer(p, p.outputs()[o.index]));
      EXPECT_EQ(o.failing, 0) << where << ": mismatch, " << o.failing << " of " << o.compared
                              << " elements, worst ratio " << o.worst_ratio << " at "
                              << ::testing::PrintToString(o.worst_index) << ": got " << o.got << " want " << o.want
                              << " bound " << o.bound;
      EXPECT_EQ(o.outliers, 0) << where << ": outlier, " << o.outliers << " of " << o.checked
                               << " elements, worst excess " << o.worst_excess << " at "
                               << ::testing::PrintToString(o.excess_index) << ": got " << o.excess_got << " want "
                               << o.excess_want << " allowance " << o.excess_allowance << " sigma " << o.excess_sigma;
      EXPECT_FALSE(o.bias.biased()) << where << ": " << o.bias.describe();
    }
  }
  if (judged) ++tally.programs;
  return accepted;
}

// Every generated program of seeds 0..kSeeds-1 that `selects` takes, in its form `rewrite`. The
// form of a program with a finding is printed, to replay it with `difftest run`.
void expect_form_accepted(const std::function<bool(const Program&)>& selects,
                          const std::function<Program(const Program&)>& rewrite, const CheckOptions& options) {
  Tally tally;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    const Program p = generate_program(seed);
    if (!selects(p)) continue;
    const Program form = rewrite(p);
    if (!judge_form(seed, p, form, options, tally)) {
      std::printf("seed %d, its form:\n%s", static_cast<int>(seed), print(form).c_str());
    }
  }
  std::printf("%d programs judged, %d rejected by the compiler, %d invalid bindings\n", tally.programs,
              tally.rejected, tally.invalid);
  EXPECT_GE(tally.programs, kMinPrograms);
}

// Judged as the oracle judges ONNX Runtime, whose CPU provider computes f16 this way
// (backends::Backend::computes_half_in_f32: q4f16_1 codes its f16 steps decide are uncertain).
TEST(HalfFormsStandIn, F16ComputedInF32IsAccepted) {
  CheckOptions options;
  options.tolerance.half_may_compute_in_f32 = true;
  expect_form_accepted(has_f16, f16_computed_in_f32, options);
}

TEST(HalfFormsStandIn, NarrowAccumulatorsWidenedToF32AreAccepted) {
  expect_form_accepted(has_narrow_acc, narrow_acc_in_f32, CheckOptions{});
}

}  // namespace
}  // namespace difftest::oracle
