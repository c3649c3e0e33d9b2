#include "compiler/ir/printer.h"

#include "compiler/support/hash.h"

#include <fmt/format.h>

#include <cmath>

#include "compiler/ops/op.h"

namespace difftest {

namespace {

std::string scalar_str(const ConstantInit& c, DType t, size_t i) {
  if (is_bool(t)) return c.int_values[i] ? "true" : "false";
  if (!is_float(t)) return std::to_string(c.int_values[i]);
  return attr_value_str(AttrValue(c.float_values[i]));
}

// Prints dims [dim, rank) of a row-major literal starting at flat index `offset`.
void print_literal(std::string& out, const ConstantInit& c, DType t, const std::vector<int64_t>& shape, size_t dim,
                   size_t& offset) {
  if (dim == shape.size()) {
    out += scalar_str(c, t, offset++);
    return;
  }
  out += '[';
  for (int64_t i = 0; i < shape[dim]; ++i) {
    if (i) out += ", ";
    print_literal(out, c, t, shape, dim + 1, offset);
  }
  out += ']';
}

}  // namespace

std::string print_constant(const ConstantInit& c, const TensorType& type) {
  auto num = [](double v) { return attr_value_str(AttrValue(v)); };
  switch (c.kind) {
    case ConstantInit::Kind::Uniform: return fmt::format("uniform({}, {}, seed={})", num(c.p0), num(c.p1), c.seed);
    case ConstantInit::Kind::Normal: return fmt::format("normal({}, {}, seed={})", num(c.p0), num(c.p1), c.seed);
    case ConstantInit::Kind::Literal: break;
  }
  auto shape = type.static_shape();
  DT_CHECK(shape.has_value(), "a literal constant with a symbolic shape");
  const size_t count = is_float(type.dtype) ? c.float_values.size() : c.int_values.size();
  size_t expected = 1;
  for (int64_t d : *shape) expected *= static_cast<size_t>(d);
  DT_CHECK(count == expected, "literal element count differs from its type");
  std::string out;
  size_t offset = 0;
  print_literal(out, c, type.dtype, *shape, 0, offset);
  return out;
}

std::string print_binding(const Binding& b) {
  std::string out;
  for (size_t i = 0; i < b.results().size(); ++i) {
    const Value& v = b.results()[i];
    out += fmt::format("{}%{}: {}", i ? ", " : "", v.name(), v.type().str());
  }
  out += " = ";
  switch (b.kind()) {
    case BindingKind::Param: out += "param"; break;
    case BindingKind::Const: out += "const " + print_constant(b.constant(), b.result().type()); break;
    case BindingKind::Call: {
      const OpDef& op = b.op();
      std::vector<std::string> parts;
      for (const auto& a : b.args()) parts.push_back("%" + a.name());
      for (const auto& [name, value] : b.attrs().items()) {
        const AttrSpec* spec = op.find_attr(name);
        DT_CHECK(spec != nullptr, fmt::format("{} has no attribute {}", op.name, name));
        if (std::holds_alternative<std::monostate>(value)) continue;
        if (!spec->required && value == spec->default_value) continue;
        parts.push_back(fmt::format("{}={}", name, attr_value_str(value)));
      }
      out += fmt::format("{}({})", op.name, fmt::join(parts, ", "));
      if (b.group() >= 0) out += fmt::format(" @fused({})", b.group());
      break;
    }
  }
  return out;
}

std::string print(const Program& p) {
  std::vector<std::string> dims;
  for (const auto& d : p.dims()) dims.push_back(fmt::format("{}: {}..{}", d.name, d.range.lo, d.range.hi));
  std::string out = fmt::format("program @{}({}) {{\n", p.name(), fmt::join(dims, ", "));
  for (const auto& b : p.bindings()) {
    out += "  ";
    out += print_binding(b);
    out += '\n';
  }
  std::vector<std::string> outs;
  for (const auto& v : p.outputs()) outs.push_back("%" + v.name());
  out += fmt::format("  return {}\n}}\n", fmt::join(outs, ", "));
  return out;
}

uint64_t program_hash(const Program& p) { return fnv1a64(print(p)); }

}  // namespace difftest
