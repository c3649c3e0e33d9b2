// The types the op schema speaks in: a tensor's element dtype and symbolic shape, and a call's
// attributes. The graph IR (compiler/ir/ir.h) builds its values and bindings from them; the op
// schema (compiler/ops/op.h) infers them, below the IR, its text and its verifier.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "compiler/sym/sym.h"
#include "compiler/types/dtype.h"

namespace difftest {

constexpr int kMaxRank = 8;

struct TensorType {
  DType dtype = DType::f32;
  std::vector<sym::Expr> shape;

  int rank() const { return static_cast<int>(shape.size()); }
  bool is_static() const;                               // every dim is a constant
  std::optional<std::vector<int64_t>> static_shape() const;
  std::string str() const;                              // "f16[n, 640]"
  friend bool operator==(const TensorType& a, const TensorType& b);  // structural
};

// std::monostate is an optional attribute that is absent (e.g. `acc` when not written).
using AttrValue = std::variant<std::monostate, int64_t, double, bool, std::string, DType, std::vector<int64_t>,
                               sym::Expr, std::vector<sym::Expr>>;

std::string attr_value_str(const AttrValue& v);  // text-form spelling

class Attrs {
 public:
  Attrs() = default;
  explicit Attrs(std::vector<std::pair<std::string, AttrValue>> items) : items_(std::move(items)) {}

  bool has(std::string_view name) const;  // present and not absent
  const AttrValue& get(std::string_view name) const;
  int64_t get_int(std::string_view name) const;
  double get_float(std::string_view name) const;
  bool get_bool(std::string_view name) const;
  const std::string& get_string(std::string_view name) const;
  DType get_dtype(std::string_view name) const;
  std::optional<DType> get_opt_dtype(std::string_view name) const;
  const std::vector<int64_t>& get_ints(std::string_view name) const;
  const sym::Expr& get_sym(std::string_view name) const;
  const std::vector<sym::Expr>& get_syms(std::string_view name) const;

  const std::vector<std::pair<std::string, AttrValue>>& items() const { return items_; }
  friend bool operator==(const Attrs& a, const Attrs& b) { return a.items_ == b.items_; }

 private:
  std::vector<std::pair<std::string, AttrValue>> items_;
};

}  // namespace difftest
