#include "fuzz/coverage.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <variant>

#include "compiler/ops/op.h"

namespace difftest::coverage {

namespace {

std::string int_class(int64_t v) { return v < 0 ? "<0" : v == 0 ? "=0" : v == 1 ? "=1" : ">1"; }

std::string float_class(double v) {
  if (v == 0) return "=0";
  if (v < 0) return "<0";
  if (v < 1) return "(0,1)";
  return v == 1 ? "=1" : ">1";
}

std::string dim_class(const sym::Expr& e) {
  if (e.is_const()) return int_class(e.value());
  return e.is_var() ? ":symbolic" : ":derived";
}

// One attribute's class, spelt after its name.
std::string attribute_class(const std::string& name, const AttrValue& v) {
  return std::visit(
      [&](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return name + ":absent";
        } else if constexpr (std::is_same_v<T, int64_t>) {
          return name + int_class(x);
        } else if constexpr (std::is_same_v<T, double>) {
          return name + float_class(x);
        } else if constexpr (std::is_same_v<T, bool>) {
          return name + (x ? "=true" : "=false");
        } else if constexpr (std::is_same_v<T, std::string>) {
          return name + "=" + x;
        } else if constexpr (std::is_same_v<T, DType>) {
          return name + "=" + dtype_name(x);
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          if (x.empty()) return name + ":empty";
          const bool negative = std::any_of(x.begin(), x.end(), [](int64_t a) { return a < 0; });
          if (name == "axes" || name == "axis") return name + (negative ? ":negative" : ":non-negative");
          return name + int_class(negative ? *std::min_element(x.begin(), x.end()) : *std::max_element(x.begin(), x.end()));
        } else if constexpr (std::is_same_v<T, sym::Expr>) {
          return name + dim_class(x);
        } else {
          bool symbolic = false;
          for (const auto& e : x) symbolic = symbolic || !e.is_const();
          return name + (symbolic ? ":symbolic" : ":static");
        }
      },
      v);
}

bool same_shape(const TensorType& a, const TensorType& b) { return a.shape == b.shape; }

std::string matmul_batch(const TensorType& a, const TensorType& b) {
  const bool lhs = a.rank() > 2, rhs = b.rank() > 2;
  if (!lhs && !rhs) return "batch:none";
  if (!lhs || !rhs) return lhs ? "batch:lhs" : "batch:rhs";
  const std::vector<sym::Expr> la(a.shape.begin(), a.shape.end() - 2), lb(b.shape.begin(), b.shape.end() - 2);
  return la == lb ? "batch:both" : "batch:broadcast";
}

}  // namespace

std::vector<std::string> attribute_classes(const Binding& call) {
  std::vector<std::string> out;
  for (const auto& [name, v] : call.attrs().items()) {
    if (!std::holds_alternative<std::monostate>(v)) out.push_back(attribute_class(name, v));
  }
  if (out.empty()) out.push_back("-");
  return out;
}

std::vector<std::string> shape_classes(const Binding& call) {
  std::set<std::string> out;
  const TensorType& r = call.results().front().type();
  if (r.rank() == 0) out.insert("scalar");
  bool all_static = true;
  for (const auto& d : r.shape) {
    if (d.is_var()) out.insert("symbolic");
    if (!d.is_const() && !d.is_var()) out.insert("derived");
    if (d.is_const(1)) out.insert("unit");
    all_static = all_static && d.is_const();
  }
  if (all_static && r.rank() > 0) out.insert("static");
  const std::string& op = call.op().name;
  const auto& args = call.args();
  const OpPattern pattern = call.op().pattern;
  if ((pattern == OpPattern::ElemWise || pattern == OpPattern::Broadcast) && args.size() >= 2) {
    int broadcast = 0;
    for (const auto& a : args) {
      if (!same_shape(a.type(), r)) ++broadcast;
      if (a.type().rank() != r.rank()) out.insert("rank-differs");
    }
    if (broadcast == 1) out.insert("broadcast-one");
    if (broadcast >= 2) out.insert("broadcast-both");
  }
  if (op == "matmul") out.insert(matmul_batch(args[0].type(), args[1].type()));
  if (op == "attention") {
    const auto& q = args[0].type().shape;
    const auto& k = args[1].type().shape;
    out.insert(q[2] == k[2] ? "heads:equal" : "heads:gqa");
  }
  if (op == "reshape") out.insert(args[0].type().rank() == r.rank() ? "same-rank" : "rank-changes");
  if (op == "permute_dims") out.insert(fmt::format("rank={}", r.rank()));
  return {out.begin(), out.end()};
}

namespace {

// value_classes's names, in the order of ValueClass.
constexpr std::array<const char*, 10> kValueClassNames = {"nan",  "inf",  "zero",  "negative-zero", "subnormal",
                                                          "tiny", "unit", "large", "huge",          "tie"};

enum ValueClass : uint32_t { kNan, kInf, kZero, kNegativeZero, kSubnormal, kTiny, kUnit, kLarge, kHuge, kTie };
constexpr uint32_t bit(ValueClass c) { return uint32_t{1} << c; }

}  // namespace

uint32_t value_class_bits(double x, DType t) {
  if (std::isnan(x)) return bit(kNan);
  if (std::isinf(x)) return bit(kInf);
  const double a = std::fabs(x);
  uint32_t bits = 0;
  if (x == 0) {
    bits = bit(std::signbit(x) ? kNegativeZero : kZero);
  } else if (a < smallest_normal(t)) {
    bits = bit(kSubnormal);
  } else if (a < 0x1p-8) {
    bits = bit(kTiny);
  } else if (a <= 4) {
    bits = bit(kUnit);
  } else if (a <= 0x1p10) {
    bits = bit(kLarge);
  } else {
    bits = bit(kHuge);
  }
  if (x != 0 && std::floor(a) + 0.5 == a) bits |= bit(kTie);
  return bits;
}

std::vector<std::string> value_class_names(uint32_t bits) {
  std::vector<std::string> out;
  for (size_t i = 0; i < kValueClassNames.size(); ++i) {
    if (bits & (uint32_t{1} << i)) out.emplace_back(kValueClassNames[i]);
  }
  return out;
}

std::vector<std::string> value_classes(double x, DType t) { return value_class_names(value_class_bits(x, t)); }

uint32_t tensor_value_class_bits(const Tensor& t) {
  uint32_t bits = 0;
  if (!is_float(t.dtype())) return bits;
  for (int64_t i = 0; i < t.numel(); ++i) bits |= value_class_bits(t.get(i), t.dtype());
  return bits;
}

std::vector<std::string> call_cells(const Binding& call) {
  const auto& args = call.args();
  const DType dtype = args.empty() ? call.results().front().type().dtype : args[0].type().dtype;
  std::vector<std::string> out;
  for (const auto& a : attribute_classes(call)) {
    for (const auto& s : shape_classes(call)) {
      out.push_back(fmt::format("{}|{}|{}|{}", call.op().name, dtype_name(dtype), a, s));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void Counts::add_program(const Program& p) {
  ++programs;
  for (const auto& b : p.bindings()) {
    if (b.kind() == BindingKind::Const) {
      const ConstantInit& init = b.constant();
      const DType t = b.results().front().type().dtype;
      if (!is_float(t)) continue;
      if (init.kind == ConstantInit::Kind::Literal) {
        for (double v : init.float_values) {
          for (const auto& c : value_classes(v, t)) ++constant_values[c];
        }
      } else {
        // A generated constant is counted by its range's ends (its spread).
        const bool uniform = init.kind == ConstantInit::Kind::Uniform;
        const double lo = uniform ? init.p0 : init.p0 - 3 * init.p1, hi = uniform ? init.p1 : init.p0 + 3 * init.p1;
        ++constant_values[fmt::format("generated:{}", value_classes(std::max(std::fabs(lo), std::fabs(hi)), t)[0])];
      }
      continue;
    }
    if (!b.is_call()) continue;
    ++calls;
    const std::string& op = b.op().name;
    ++ops[op];
    for (const auto& c : call_cells(b)) ++cells[c];
    for (const auto& c : coverage::attribute_classes(b)) ++attribute_classes[op + "|" + c];
    for (const auto& c : coverage::shape_classes(b)) ++shape_classes[op + "|" + c];
    for (const auto& r : b.results()) ++result_dtypes[op + "|" + dtype_name(r.type().dtype)];
  }
}

void Counts::add_inputs(const std::map<std::string, Tensor>& inputs) {
  for (const auto& [name, t] : inputs) {
    if (!is_float(t.dtype())) continue;
    std::array<int64_t, kValueClassNames.size()> per_class{};
    for (int64_t i = 0; i < t.numel(); ++i) {
      const uint32_t bits = value_class_bits(t.get(i), t.dtype());
      for (size_t c = 0; c < per_class.size(); ++c) per_class[c] += (bits >> c) & 1;
    }
    for (size_t c = 0; c < per_class.size(); ++c) {
      if (per_class[c] > 0) input_values[kValueClassNames[c]] += per_class[c];
    }
  }
}

void Counts::merge(const Counts& o) {
  programs += o.programs;
  calls += o.calls;
  const auto add = [](std::map<std::string, int64_t>& to, const std::map<std::string, int64_t>& from) {
    for (const auto& [k, v] : from) to[k] += v;
  };
  add(ops, o.ops);
  add(cells, o.cells);
  add(attribute_classes, o.attribute_classes);
  add(shape_classes, o.shape_classes);
  add(constant_values, o.constant_values);
  add(input_values, o.input_values);
  add(result_dtypes, o.result_dtypes);
}

}  // namespace difftest::coverage
