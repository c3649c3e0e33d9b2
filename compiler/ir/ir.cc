#include "compiler/ir/ir.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <set>
#include <unordered_set>

#include "compiler/ops/op.h"

namespace difftest {

// ------------------------------------------------------------------------------- types

bool TensorType::is_static() const {
  for (const auto& d : shape) {
    if (!d.is_const()) return false;
  }
  return true;
}

std::optional<std::vector<int64_t>> TensorType::static_shape() const {
  std::vector<int64_t> out;
  for (const auto& d : shape) {
    if (!d.is_const()) return std::nullopt;
    out.push_back(d.value());
  }
  return out;
}

std::string TensorType::str() const {
  std::string out = dtype_name(dtype);
  out += '[';
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += sym::to_string(shape[i]);
  }
  out += ']';
  return out;
}

bool operator==(const TensorType& a, const TensorType& b) { return a.dtype == b.dtype && a.shape == b.shape; }

// ------------------------------------------------------------------------------- attributes

namespace {

std::string float_str(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{}", v);
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace

std::string attr_value_str(const AttrValue& v) {
  struct Visitor {
    std::string operator()(std::monostate) const { return "<absent>"; }
    std::string operator()(int64_t x) const { return std::to_string(x); }
    std::string operator()(double x) const { return float_str(x); }
    std::string operator()(bool x) const { return x ? "true" : "false"; }
    std::string operator()(const std::string& s) const { return quote(s); }
    std::string operator()(DType t) const { return dtype_name(t); }
    std::string operator()(const std::vector<int64_t>& xs) const {
      std::string out = "[";
      for (size_t i = 0; i < xs.size(); ++i) out += (i ? ", " : "") + std::to_string(xs[i]);
      return out + "]";
    }
    std::string operator()(const sym::Expr& e) const { return sym::to_string(e); }
    std::string operator()(const std::vector<sym::Expr>& xs) const {
      std::string out = "[";
      for (size_t i = 0; i < xs.size(); ++i) out += (i ? ", " : "") + sym::to_string(xs[i]);
      return out + "]";
    }
  };
  return std::visit(Visitor{}, v);
}

bool Attrs::has(std::string_view name) const {
  for (const auto& [n, v] : items_) {
    if (n == name) return !std::holds_alternative<std::monostate>(v);
  }
  return false;
}

const AttrValue& Attrs::get(std::string_view name) const {
  for (const auto& [n, v] : items_) {
    if (n == name) return v;
  }
  DT_CHECK(false, fmt::format("attribute '{}' is not in the op's schema", name));
  static const AttrValue none;
  return none;
}

template <typename T>
static const T& get_as(const Attrs& a, std::string_view name) {
  const AttrValue& v = a.get(name);
  DT_CHECK(std::holds_alternative<T>(v), fmt::format("attribute '{}' has another kind", name));
  return std::get<T>(v);
}

int64_t Attrs::get_int(std::string_view name) const { return get_as<int64_t>(*this, name); }
double Attrs::get_float(std::string_view name) const { return get_as<double>(*this, name); }
bool Attrs::get_bool(std::string_view name) const { return get_as<bool>(*this, name); }
const std::string& Attrs::get_string(std::string_view name) const { return get_as<std::string>(*this, name); }
DType Attrs::get_dtype(std::string_view name) const { return get_as<DType>(*this, name); }
std::optional<DType> Attrs::get_opt_dtype(std::string_view name) const {
  const AttrValue& v = get(name);
  if (std::holds_alternative<std::monostate>(v)) return std::nullopt;
  return get_as<DType>(*this, name);
}
const std::vector<int64_t>& Attrs::get_ints(std::string_view name) const {
  return get_as<std::vector<int64_t>>(*this, name);
}
const sym::Expr& Attrs::get_sym(std::string_view name) const { return get_as<sym::Expr>(*this, name); }
const std::vector<sym::Expr>& Attrs::get_syms(std::string_view name) const {
  return get_as<std::vector<sym::Expr>>(*this, name);
}

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
