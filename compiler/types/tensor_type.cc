#include "compiler/types/tensor_type.h"

#include <fmt/format.h>

#include <cmath>

#include "compiler/support/diagnostics.h"

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

}  // namespace difftest
