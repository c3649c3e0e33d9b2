#include "tolerance/half_forms.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/verifier.h"
#include "compiler/ops/op.h"

namespace difftest::tolerance {

namespace {

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

bool computes_f16(const Program& p) {
  for (const auto& b : p.bindings()) {
    for (const auto& r : b.results()) {
      if (r.type().dtype == DType::f16) return true;
    }
  }
  return false;
}

bool declares_narrow_acc(const Binding& b) {
  if (!b.is_call() || !b.op().find_attr("acc")) return false;
  bool narrow_operands = false;
  for (const auto& a : b.args()) narrow_operands = narrow_operands || is_narrow_float(a.type().dtype);
  const std::optional<DType> acc = b.attrs().get_opt_dtype("acc");
  return narrow_operands && (!acc || is_narrow_float(*acc));
}

}  // namespace

// Params and constants stay f16 (the inputs are the original program's) and are cast to f32
// where they are defined; an op's f16 result (a cast to f16, a q4f16_1 scale, a creation op's
// dtype=f16) is kept and cast to f32 after it, so the program's explicit rounding points stay;
// an f16 accumulator becomes f32. An op whose type rule takes only f16 operands (dequantize's
// q4f16_1 scales) gets them in f16, as ONNX Runtime rounds before a node it has an f16 kernel
// for. Each f16 output is rounded to f16 at the end.
std::optional<ProgramForm> f16_computed_in_f32(const Program& p) {
  if (!computes_f16(p)) return std::nullopt;
  std::set<std::string> names;
  for (const auto& b : p.bindings()) {
    for (const auto& r : b.results()) names.insert(r.name());
  }
  std::vector<Binding> out;
  std::unordered_map<const ValueNode*, Value> now;  // a value of `p` -> its value here (f32 for an f16 one)
  std::map<const ValueNode*, Value> in_f16;         // an f16 value of `p` -> an f16 form of it, once made
  const auto define = [&](const std::vector<Value>& originals, const std::vector<Value>& results) {
    for (size_t i = 0; i < results.size(); ++i) {
      now.insert_or_assign(originals[i].get(), results[i]);
      if (results[i].type().dtype != DType::f16) continue;
      in_f16.insert_or_assign(originals[i].get(), results[i]);
      now.insert_or_assign(originals[i].get(), cast_value(out, names, results[i], DType::f32));
    }
  };
  const auto f16_form = [&](const Value& v) {
    if (!in_f16.count(v.get())) in_f16.emplace(v.get(), cast_value(out, names, now.at(v.get()), DType::f16));
    return in_f16.at(v.get());
  };
  try {
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
    ProgramForm form{"f16 computed in f32, rounded to f16 only at the program's casts and outputs (ONNX Runtime's CPU "
                     "provider without an f16 kernel)",
                     Program::make(p.name(), p.dims(), out, outputs), std::move(now)};
    verify(form.program);
    return form;
  } catch (const UserError&) {
    return std::nullopt;  // an op with no f32 form: the form does not exist for this program
  }
}

std::optional<ProgramForm> narrow_acc_in_f32(const Program& p) {
  bool any = false;
  std::vector<Binding> out;
  ProgramForm form{"f16/bf16 accumulated in f32 where the program declares a narrow accumulator (fused kernels)", p,
                   {}};
  for (const auto& b : p.bindings()) {
    for (const auto& r : b.results()) form.counterpart.emplace(r.get(), r);
    if (!declares_narrow_acc(b)) {
      out.push_back(b);
      continue;
    }
    any = true;
    std::vector<std::pair<std::string, AttrValue>> attrs = b.attrs().items();
    for (auto& [name, value] : attrs) {
      if (name == "acc") value = DType::f32;
    }
    // make_attrs cannot refuse: `acc` is a dtype attribute of this op (declares_narrow_acc).
    out.push_back(Binding::call(b.results(), &b.op(), b.args(), make_attrs(b.op(), attrs)).with_group(b.group()));
  }
  if (!any) return std::nullopt;
  try {
    form.program = Program::make(p.name(), p.dims(), out, p.outputs());
    verify(form.program);
  } catch (const UserError&) {
    return std::nullopt;  // an op whose declared result an f32 accumulator would change
  }
  return form;
}

std::vector<ProgramForm> half_forms(const Program& p, const Options& opt) {
  std::vector<ProgramForm> forms;
  if (opt.half_may_compute_in_f32) {
    if (auto f = f16_computed_in_f32(p)) forms.push_back(std::move(*f));
  }
  if (auto f = narrow_acc_in_f32(p)) forms.push_back(std::move(*f));
  return forms;
}

}  // namespace difftest::tolerance
