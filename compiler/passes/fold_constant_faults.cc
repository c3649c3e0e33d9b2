#include "compiler/passes/fold_constant_faults.h"

#include <fmt/format.h>

#include "compiler/ops/op.h"

namespace difftest::passes {

// fold-constant-int-div-double: a folding engine that holds every constant as a double
// evaluates integer floor_divide / floor_mod as C does, (T)((double)a / (double)b): the
// conversion truncates toward zero where the op floors, so a negative quotient that is not
// exact comes out one too high (-7 // 2 = -3, -7 % 2 = -1), and past 2^53 the operands
// themselves round.
bool truncates_through_double(const Binding& call) {
  const std::string& op = call.op().name;
  return (op == "floor_divide" || op == "floor_mod") && is_int(call.result().type().dtype);
}

std::vector<Binding> through_double(const std::string& op, const std::vector<Value>& args, const Value& result) {
  std::vector<Binding> out;
  auto emit = [&](const std::string& name, const std::string& step, std::vector<Value> in,
                  const std::vector<std::pair<std::string, AttrValue>>& given) {
    const OpDef* def = OpRegistry::get().find(name);
    Attrs attrs = make_attrs(*def, given);
    std::vector<TensorType> types;
    for (const auto& a : in) types.push_back(a.type());
    Value v = Value::make(fmt::format("{}__fold_{}", result.name(), step), infer_types(*def, types, attrs, {}).front());
    out.push_back(Binding::call({v}, def, std::move(in), std::move(attrs)));
    return v;
  };
  const DType t = result.type().dtype;
  const Value a = emit("cast", "a", {args[0]}, {{"dtype", DType::f64}});
  const Value b = emit("cast", "b", {args[1]}, {{"dtype", DType::f64}});
  const Value q = emit("cast", "q", {emit("div", "div", {a, b}, {})}, {{"dtype", t}});
  if (op == "floor_divide") {
    out.back() = Binding::call({result}, &out.back().op(), out.back().args(), out.back().attrs());
    return out;
  }
  const Value qb = emit("mul", "qb", {q, args[1]}, {});
  emit("sub", "r", {args[0], qb}, {});
  out.back() = Binding::call({result}, &out.back().op(), out.back().args(), out.back().attrs());
  return out;
}

// fold-constant-symbolic-shape (TVM's FoldConstant on symbolic shapes): right only where the
// dims equal the guess, or where every element is the same (full, zeros, ones): arange and the
// masks come out wrong.
std::vector<Binding> stretched_to_extents(std::vector<Binding> out, const Binding& call,
                                          const std::vector<bool>& symbolic_axes, const sym::Ranges& ranges,
                                          std::unordered_set<std::string>& names) {
  const Value& result = call.result();
  const OpDef* take = OpRegistry::get().find("take");
  const OpDef* arange = OpRegistry::get().find("arange");
  auto fresh = [&](const std::string& step) {
    std::string name = fmt::format("{}__fold_{}", result.name(), step);
    for (int i = 2; names.count(name); ++i) name = fmt::format("{}_{}{}", result.name(), step, i);
    names.insert(name);
    return name;
  };
  Value v = Value::make(fresh("guess"), out.back().result().type());
  out.back() = Binding::constant(v, out.back().constant(), call.loc());
  for (size_t axis = 0; axis < result.type().shape.size(); ++axis) {
    if (!symbolic_axes[axis]) continue;
    const sym::Expr& extent = result.type().shape[axis];
    Attrs ia = make_attrs(*arange, {{"end", extent}, {"dtype", DType::i64}});
    Value idx = Value::make(fresh("index"), infer_types(*arange, {}, ia, ranges).front());
    out.push_back(Binding::call({idx}, arange, {}, std::move(ia), call.loc()));
    Attrs ta = make_attrs(*take, {{"axis", static_cast<int64_t>(axis)}, {"mode", std::string("clip")}});
    Value next = Value::make(fresh("stretched"), infer_types(*take, {v.type(), idx.type()}, ta, ranges).front());
    out.push_back(Binding::call({next}, take, {v, idx}, std::move(ta), call.loc()));
    v = next;
  }
  if (out.back().is_call()) {  // the last take defines the call's own result
    const Binding last = out.back();
    out.back() = Binding::call({result}, &last.op(), last.args(), last.attrs(), call.loc());
  }
  return out;
}

}  // namespace difftest::passes
