#include "tolerance/precision.h"

#include <fmt/format.h>

#include <unordered_map>
#include <unordered_set>

#include "compiler/support/diagnostics.h"
#include "compiler/ops/op.h"

namespace difftest::tolerance {

namespace {

bool narrowed(DType t, DType precision) {
  return t != precision && (t == DType::f32 || t == DType::f16 || t == DType::bf16);
}

DType retyped(DType t, DType precision) { return narrowed(t, precision) ? precision : t; }

TensorType retyped(const TensorType& t, DType precision) {
  TensorType out = t;
  out.dtype = retyped(t.dtype, precision);
  return out;
}

const OpDef& op_named(const char* name) {
  const OpDef* op = OpRegistry::get().find(name);
  DT_CHECK(op != nullptr, fmt::format("no op '{}' in the registry", name));
  return *op;
}

class Narrowing {
 public:
  Narrowing(const Program& p, DType precision) : p_(p), precision_(precision), ranges_(p.ranges()) {
    for (const Binding& b : p.bindings()) {
      for (const Value& r : b.results()) names_.insert(r.name());
    }
  }

  Program run() {
    for (const Binding& b : p_.bindings()) {
      switch (b.kind()) {
        case BindingKind::Param: param(b); break;
        case BindingKind::Const: constant(b); break;
        case BindingKind::Call: call(b); break;
      }
    }
    std::vector<Value> outputs;
    for (const Value& v : p_.outputs()) outputs.push_back(leaving(v));
    return Program::make(p_.name(), p_.dims(), std::move(bindings_), std::move(outputs), p_.loc());
  }

 private:
  void param(const Binding& b) {
    bindings_.push_back(b);
    const Value& v = b.result();
    if (!narrowed(v.type().dtype, precision_)) {
      map_[v.get()] = v;
      return;
    }
    map_[v.get()] = cast(v, precision_, v.name() + "_in", b.loc());
  }

  void constant(const Binding& b) {
    const Value& v = b.result();
    const Value narrowed_value = Value::make(v.name(), retyped(v.type(), precision_));
    bindings_.push_back(Binding::constant(narrowed_value, b.constant(), b.loc()));
    map_[v.get()] = narrowed_value;
  }

  void call(const Binding& b) {
    std::vector<Value> args;
    std::vector<TensorType> arg_types;
    for (const Value& a : b.args()) {
      args.push_back(map_.at(a.get()));
      arg_types.push_back(args.back().type());
    }
    std::vector<std::pair<std::string, AttrValue>> attrs;
    for (const auto& [name, value] : b.attrs().items()) {
      const DType* dtype = std::get_if<DType>(&value);
      attrs.emplace_back(name, dtype != nullptr && name != "acc" ? AttrValue(retyped(*dtype, precision_)) : value);
    }
    const Attrs narrowed_attrs(std::move(attrs));
    std::vector<TensorType> types;
    try {
      types = infer_types(b.op(), arg_types, narrowed_attrs, ranges_);
    } catch (const UserError&) {
      in_declared_dtypes(b);
      return;
    }
    std::vector<Value> results;
    for (size_t i = 0; i < b.results().size(); ++i) results.push_back(Value::make(b.results()[i].name(), types.at(i)));
    bindings_.push_back(Binding::call(results, &b.op(), std::move(args), narrowed_attrs, b.loc()));
    entering(b, results);
  }

  // The results of `b` as the rest of the level sees them: in the precision, though an op may
  // define a result's dtype whatever its operands' (quantize's scales are f16).
  void entering(const Binding& b, const std::vector<Value>& results) {
    for (size_t i = 0; i < results.size(); ++i) {
      const Value& r = results[i];
      map_[b.results()[i].get()] = narrowed(r.type().dtype, precision_) ? cast(r, precision_, r.name() + "_in", b.loc()) : r;
    }
  }

  // An op that does not take the precision (dequantize's scales are the format's f16) runs as
  // declared between casts: its narrowed operands cast back, its results cast to the precision.
  void in_declared_dtypes(const Binding& b) {
    std::vector<Value> args;
    for (const Value& a : b.args()) {
      const Value& inside = map_.at(a.get());
      const bool as_declared = inside.type().dtype == a.type().dtype;
      args.push_back(as_declared ? inside : cast(inside, a.type().dtype, a.name() + "_as_declared", b.loc()));
    }
    bindings_.push_back(Binding::call(b.results(), &b.op(), std::move(args), b.attrs(), b.loc()));
    entering(b, b.results());
  }

  // The output `v` of p in the narrowed program: cast back to its declared dtype.
  Value leaving(const Value& v) {
    const Value& inside = map_.at(v.get());
    if (inside.type().dtype == v.type().dtype) return inside;
    return cast(inside, v.type().dtype, v.name() + "_out", {});
  }

  Value cast(const Value& v, DType to, const std::string& name_hint, const SourceLoc& loc) {
    const OpDef& op = op_named("cast");
    const Attrs attrs = make_attrs(op, {{"dtype", to}});
    std::string name = name_hint;
    for (int k = 2; names_.count(name); ++k) name = fmt::format("{}{}", name_hint, k);
    names_.insert(name);
    TensorType type = v.type();
    type.dtype = to;
    const Value out = Value::make(name, type);
    bindings_.push_back(Binding::call({out}, &op, {v}, attrs, loc));
    return out;
  }

  const Program& p_;
  DType precision_;
  sym::Ranges ranges_;
  std::vector<Binding> bindings_;
  std::unordered_map<const ValueNode*, Value> map_;
  std::unordered_set<std::string> names_;  // every value name of p and of the casts added
};

}  // namespace

bool narrows(const Program& p, DType precision) {
  for (const Binding& b : p.bindings()) {
    for (const Value& v : b.results()) {
      if (narrowed(v.type().dtype, precision)) return true;
    }
  }
  return false;
}

Program computed_in(const Program& p, DType precision) {
  DT_CHECK(precision == DType::bf16 || precision == DType::f16, "computed_in takes bf16 or f16");
  if (!narrows(p, precision)) return p;
  return Narrowing(p, precision).run();
}

}  // namespace difftest::tolerance
