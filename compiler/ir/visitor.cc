#include "compiler/ir/visitor.h"

#include <fmt/format.h>

namespace difftest {

void Visitor::visit_program(const Program& p) {
  for (const auto& b : p.bindings()) visit_binding(b);
  visit_outputs(p.outputs());
}

void Visitor::visit_binding(const Binding& b) {
  switch (b.kind()) {
    case BindingKind::Param: visit_param(b); break;
    case BindingKind::Const: visit_const(b); break;
    case BindingKind::Call: visit_call(b); break;
  }
}

Program Mutator::mutate(const Program& p) {
  input_ = &p;
  out_.clear();
  map_.clear();
  defs_.clear();
  names_.clear();
  changed_ = false;
  counter_ = 0;
  for (const auto& b : p.bindings()) {
    for (const auto& r : b.results()) names_.insert(r.name());
  }
  std::vector<DimVar> dims = rewrite_dims(p.dims());
  if (dims.size() != p.dims().size()) changed_ = true;
  for (const auto& b : p.bindings()) {
    const std::vector<Value> replacement = rewrite(b);
    DT_CHECK(replacement.size() == b.results().size(),
             fmt::format("rewrite of %{} returned {} values for {} results", b.results().front().name(),
                         replacement.size(), b.results().size()));
    for (size_t i = 0; i < replacement.size(); ++i) {
      const Value& old = b.results()[i];
      if (!replacement[i].same_as(old)) changed_ = true;
      map_[old.get()] = replacement[i];
    }
  }
  std::vector<Value> outputs;
  for (const auto& o : p.outputs()) {
    outputs.push_back(remap(o));
    if (!outputs.back().same_as(o)) changed_ = true;
  }
  if (!changed_ && out_.size() == p.bindings().size()) return p;
  return Program::make(p.name(), std::move(dims), std::move(out_), std::move(outputs), p.loc());
}

std::vector<Value> Mutator::rewrite(const Binding& b) { return keep(b); }

Value Mutator::remap(const Value& v) const {
  auto it = map_.find(v.get());
  DT_CHECK(it != map_.end(), fmt::format("%{} has no value in the mutated program yet", v.name()));
  return it->second;
}

std::optional<Binding> Mutator::with_remapped_args(const Binding& b) const {
  if (!b.is_call()) return std::nullopt;
  std::vector<Value> args;
  bool same = true;
  for (const auto& a : b.args()) {
    args.push_back(remap(a));
    same = same && args.back().same_as(a);
  }
  if (same) return std::nullopt;
  return Binding::call(b.results(), &b.op(), std::move(args), b.attrs(), b.loc()).with_group(b.group());
}

Binding Mutator::remapped(const Binding& b) const { return with_remapped_args(b).value_or(b); }

std::vector<Value> Mutator::keep(const Binding& b) {
  if (std::optional<Binding> r = with_remapped_args(b)) {
    changed_ = true;
    append(std::move(*r));
  } else {
    append(b);
  }
  return b.results();
}

std::vector<Value> Mutator::emit(Binding b) {
  changed_ = true;
  std::vector<Value> results = b.results();
  append(std::move(b));
  return results;
}

std::string Mutator::fresh_name(const std::string& hint) {
  std::string name;
  do {
    name = fmt::format("{}_{}", hint, counter_++);
  } while (names_.count(name));
  names_.insert(name);
  return name;
}

std::vector<Value> Mutator::emit_call(const OpDef& op, std::vector<Value> args, Attrs attrs,
                                      std::vector<TensorType> types, const std::string& name_hint) {
  std::vector<Value> results;
  for (auto& t : types) results.push_back(Value::make(fresh_name(name_hint), std::move(t)));
  return emit(Binding::call(results, &op, std::move(args), std::move(attrs)));
}

Value Mutator::emit_constant(ConstantInit init, TensorType type, const std::string& name_hint) {
  Value v = Value::make(fresh_name(name_hint), std::move(type));
  emit(Binding::constant(v, std::move(init)));
  return v;
}

const Binding* Mutator::definition(const Value& v) const {
  auto it = defs_.find(v.get());
  return it == defs_.end() ? nullptr : &out_[it->second];
}

void Mutator::append(Binding b) {
  for (const auto& r : b.results()) defs_[r.get()] = out_.size();
  out_.push_back(std::move(b));
}

}  // namespace difftest
