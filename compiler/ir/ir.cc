#include "compiler/ir/ir.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <set>
#include <unordered_set>

#include "compiler/ops/op.h"

namespace difftest {

// ------------------------------------------------------------------------------- values

bool is_valid_identifier(std::string_view name) {
  if (name.empty() || name.size() > 256) return false;
  if (!(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

bool is_valid_value_name(std::string_view name) {
  if (name.empty() || name.size() > 256) return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

Value Value::make(std::string name, TensorType type) {
  if (!is_valid_value_name(name)) {
    throw UserError(ErrorKind::Syntax, fmt::format("invalid value name '%{}'", name));
  }
  for (const auto& d : type.shape) DT_CHECK(d.defined(), "a tensor type with an undefined dim");
  return Value(std::make_shared<const ValueNode>(ValueNode{std::move(name), std::move(type)}));
}

// ------------------------------------------------------------------------------- bindings

Binding Binding::param(Value v, SourceLoc loc) {
  DT_CHECK(v.defined(), "Binding::param with an undefined value");
  Binding b;
  b.kind_ = BindingKind::Param;
  b.results_ = {std::move(v)};
  b.loc_ = std::move(loc);
  return b;
}

Binding Binding::constant(Value v, ConstantInit init, SourceLoc loc) {
  DT_CHECK(v.defined(), "Binding::constant with an undefined value");
  Binding b;
  b.kind_ = BindingKind::Const;
  b.results_ = {std::move(v)};
  b.constant_ = std::move(init);
  b.loc_ = std::move(loc);
  return b;
}

Binding Binding::call(std::vector<Value> results, const OpDef* op, std::vector<Value> args, Attrs attrs,
                      SourceLoc loc) {
  DT_CHECK(op != nullptr, "Binding::call without an op");
  const int n = static_cast<int>(args.size());
  if (n < op->min_inputs || (op->max_inputs >= 0 && n > op->max_inputs)) {
    std::string expected = op->max_inputs < 0 ? fmt::format("at least {}", op->min_inputs)
                           : op->min_inputs == op->max_inputs
                               ? fmt::format("{}", op->min_inputs)
                               : fmt::format("{} to {}", op->min_inputs, op->max_inputs);
    throw UserError(ErrorKind::Arity, fmt::format("{} takes {} operand(s), got {}", op->name, expected, n), loc);
  }
  const int want = op->result_count(attrs);
  if (static_cast<int>(results.size()) != want) {
    throw UserError(ErrorKind::Arity,
                    fmt::format("{} produces {} result(s) here, but {} are bound", op->name, want, results.size()),
                    loc);
  }
  for (const auto& v : args) DT_CHECK(v.defined(), "Binding::call with an undefined operand");
  for (const auto& v : results) DT_CHECK(v.defined(), "Binding::call with an undefined result");
  Binding b;
  b.kind_ = BindingKind::Call;
  b.results_ = std::move(results);
  b.op_ = op;
  b.args_ = std::move(args);
  b.attrs_ = std::move(attrs);
  b.loc_ = std::move(loc);
  return b;
}

const Value& Binding::result() const {
  DT_CHECK(results_.size() == 1, "Binding::result on a multi-result binding");
  return results_.front();
}

Binding Binding::with_group(int group) const {
  DT_CHECK(group >= -1, "Binding::with_group with a negative group");
  DT_CHECK(group == -1 || kind_ == BindingKind::Call, "only call bindings join fusion groups");
  Binding b = *this;
  b.group_ = group;
  return b;
}

const ConstantInit& Binding::constant() const {
  DT_CHECK(kind_ == BindingKind::Const, "Binding::constant on a non-constant binding");
  return constant_;
}

const OpDef& Binding::op() const {
  DT_CHECK(kind_ == BindingKind::Call, "Binding::op on a non-call binding");
  return *op_;
}

// ------------------------------------------------------------------------------- programs

Program Program::make(std::string name, std::vector<DimVar> dims, std::vector<Binding> bindings,
                      std::vector<Value> outputs, SourceLoc loc) {
  if (!is_valid_identifier(name)) {
    throw UserError(ErrorKind::Syntax, fmt::format("invalid program name '@{}'", name), loc);
  }
  std::set<std::string> dim_names;
  for (const auto& d : dims) {
    if (!dim_names.insert(d.name).second) {
      throw UserError(ErrorKind::DuplicateName, fmt::format("dim variable '{}' is declared twice", d.name), loc);
    }
  }
  std::unordered_set<const ValueNode*> defined;
  std::set<std::string> names;
  for (const auto& b : bindings) {
    for (const auto& a : b.args()) {
      if (!defined.count(a.get())) {
        throw UserError(ErrorKind::UnknownName, fmt::format("%{} is used before it is defined", a.name()), b.loc());
      }
    }
    for (const auto& r : b.results()) {
      if (!names.insert(r.name()).second) {
        throw UserError(ErrorKind::DuplicateName, fmt::format("%{} is defined twice", r.name()), b.loc());
      }
      defined.insert(r.get());
    }
  }
  if (outputs.empty()) throw UserError(ErrorKind::Syntax, "a program returns at least one value", loc);
  for (const auto& o : outputs) {
    if (!defined.count(o.get())) {
      throw UserError(ErrorKind::UnknownName, fmt::format("returned value %{} is not defined", o.name()), loc);
    }
  }
  Program p;
  p.data_ = std::make_shared<const Data>(
      Data{std::move(name), std::move(dims), std::move(bindings), std::move(outputs), std::move(loc)});
  return p;
}

sym::Ranges Program::ranges() const {
  sym::Ranges r;
  for (const auto& d : dims()) r[d.name] = d.range;
  return r;
}

std::vector<Value> Program::params() const {
  std::vector<Value> out;
  for (const auto& b : bindings()) {
    if (b.kind() == BindingKind::Param) out.push_back(b.result());
  }
  return out;
}

std::vector<DType> Program::dtypes_computed() const {
  std::vector<DType> out;
  const auto add = [&](DType t) {
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  };
  for (const auto& b : bindings()) {
    for (const auto& v : b.results()) add(v.type().dtype);
    for (const auto& [name, value] : b.attrs().items()) {
      if (const auto* t = std::get_if<DType>(&value)) add(*t);
    }
  }
  return out;
}

size_t Program::num_calls() const {
  size_t n = 0;
  for (const auto& b : bindings()) n += b.is_call();
  return n;
}

}  // namespace difftest
