#include <fmt/format.h>

#include <cmath>
#include <map>

#include "compiler/sym/sym_simplify.h"
#include "compiler/ops/infer_util.h"
#include "compiler/ops/op.h"
#include "compiler/ops/op_table.h"
#include "compiler/ops/special_values.h"

namespace difftest {

const char* attr_kind_name(AttrKind k) {
  switch (k) {
    case AttrKind::Int: return "int";
    case AttrKind::Float: return "float";
    case AttrKind::Bool: return "bool";
    case AttrKind::String: return "string";
    case AttrKind::DType: return "dtype";
    case AttrKind::OptDType: return "dtype?";
    case AttrKind::IntList: return "int list";
    case AttrKind::Sym: return "dim expression";
    case AttrKind::SymList: return "dim expression list";
  }
  return "?";
}

const char* op_pattern_name(OpPattern p) {
  switch (p) {
    case OpPattern::ElemWise: return "elemwise";
    case OpPattern::Broadcast: return "broadcast";
    case OpPattern::Injective: return "injective";
    case OpPattern::CommReduce: return "comm-reduce";
    case OpPattern::OutEWiseFusable: return "out-elemwise-fusable";
    case OpPattern::Opaque: return "opaque";
  }
  return "?";
}

const AttrSpec* OpDef::find_attr(std::string_view attr) const {
  for (const auto& a : attrs) {
    if (a.name == attr) return &a;
  }
  return nullptr;
}

const OpRegistry& OpRegistry::get() {
  static const OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    // One registration function per family of the one list; each op's family must be its own.
#define DIFFTEST_REGISTER_OPS(family, unused) \
  ops::register_##family##_ops(*r);           \
  r->check_family(#family);
    DIFFTEST_OP_FAMILY_LIST(DIFFTEST_REGISTER_OPS, _)
#undef DIFFTEST_REGISTER_OPS
    return r;
  }();
  return *registry;
}

const OpDef* OpRegistry::find(std::string_view name) const {
  for (const auto* d : ordered_) {
    if (d->name == name) return d;
  }
  return nullptr;
}

void OpRegistry::check_family(const std::string& family) {
  for (; checked_ < defs_.size(); ++checked_) {
    const OpDef& op = *defs_[checked_];
    DT_CHECK(op.family == family,
             fmt::format("op '{}' is registered by the {} family but says {}", op.name, family, op.family));
  }
}

void OpRegistry::add(OpDef def) {
  DT_CHECK(find(def.name) == nullptr, fmt::format("op '{}' registered twice", def.name));
  DT_CHECK(static_cast<bool>(def.infer), fmt::format("op '{}' has no inference", def.name));
  DT_CHECK(!def.semantics.empty() && !def.summary.empty(), fmt::format("op '{}' is undocumented", def.name));
  for (const auto& a : def.attrs) {
    DT_CHECK(a.required || a.kind == AttrKind::OptDType || !std::holds_alternative<std::monostate>(a.default_value),
             fmt::format("op '{}': optional attribute '{}' has no default", def.name, a.name));
  }
  defs_.push_back(std::make_unique<OpDef>(std::move(def)));
  ordered_.push_back(defs_.back().get());
}

// ------------------------------------------------------------------------------- attributes

AttrValue coerce_attr(const OpDef& op, const AttrSpec& spec, const AttrValue& raw) {
  auto bad = [&](const std::string& got) -> UserError {
    return UserError(ErrorKind::Attribute, fmt::format("{}: attribute '{}' expects {}, got {}", op.name, spec.name,
                                                       attr_kind_name(spec.kind), got));
  };
  const std::string got = attr_value_str(raw);
  auto as_int = [&](const AttrValue& v) -> std::optional<int64_t> {
    if (auto* i = std::get_if<int64_t>(&v)) return *i;
    if (auto* e = std::get_if<sym::Expr>(&v); e && e->is_const()) return e->value();
    return std::nullopt;
  };
  switch (spec.kind) {
    case AttrKind::Int: {
      if (auto i = as_int(raw)) return *i;
      throw bad(got);
    }
    case AttrKind::Float: {
      double v;
      if (auto* d = std::get_if<double>(&raw)) {
        v = *d;
      } else if (auto i = as_int(raw)) {
        v = static_cast<double>(*i);
      } else {
        throw bad(got);
      }
      if (!std::isfinite(v)) throw bad(got);
      return v;
    }
    case AttrKind::Bool:
      if (std::holds_alternative<bool>(raw)) return raw;
      throw bad(got);
    case AttrKind::String: {
      auto* s = std::get_if<std::string>(&raw);
      if (!s) throw bad(got);
      if (!spec.choices.empty() && std::find(spec.choices.begin(), spec.choices.end(), *s) == spec.choices.end()) {
        throw UserError(ErrorKind::Attribute, fmt::format("{}: attribute '{}' must be one of \"{}\", got {}", op.name,
                                                          spec.name, fmt::join(spec.choices, "\", \""), got));
      }
      return raw;
    }
    case AttrKind::DType:
      if (std::holds_alternative<DType>(raw)) return raw;
      throw bad(got);
    case AttrKind::OptDType:
      // Absent is this kind's default (an accumulator absent: the operand's own dtype), so it may be given too.
      if (std::holds_alternative<DType>(raw) || std::holds_alternative<std::monostate>(raw)) return raw;
      throw bad(got);
    case AttrKind::IntList: {
      std::vector<int64_t> out;
      if (auto* xs = std::get_if<std::vector<int64_t>>(&raw)) return *xs;
      auto* es = std::get_if<std::vector<sym::Expr>>(&raw);
      if (!es) throw bad(got);
      for (const auto& e : *es) {
        if (!e.is_const()) throw bad(got);
        out.push_back(e.value());
      }
      return out;
    }
    case AttrKind::Sym:
      if (auto* i = std::get_if<int64_t>(&raw)) return sym::Expr(*i);
      if (std::holds_alternative<sym::Expr>(raw)) return raw;
      throw bad(got);
    case AttrKind::SymList: {
      if (std::holds_alternative<std::vector<sym::Expr>>(raw)) return raw;
      if (auto* xs = std::get_if<std::vector<int64_t>>(&raw)) {
        std::vector<sym::Expr> out(xs->begin(), xs->end());
        return out;
      }
      throw bad(got);
    }
  }
  throw bad(got);
}

std::string unknown_attr_message(const OpDef& op, std::string_view attr) {
  std::vector<std::string> known;
  for (const auto& a : op.attrs) known.push_back(a.name);
  return fmt::format("{} has no attribute '{}'{}", op.name, attr,
                     known.empty() ? " (it takes none)" : fmt::format("; it has: {}", fmt::join(known, ", ")));
}

Attrs make_attrs(const OpDef& op, const std::vector<std::pair<std::string, AttrValue>>& given) {
  std::map<std::string, AttrValue> values;
  for (const auto& [name, raw] : given) {
    const AttrSpec* spec = op.find_attr(name);
    if (!spec) throw UserError(ErrorKind::Attribute, unknown_attr_message(op, name));
    if (values.count(name)) {
      throw UserError(ErrorKind::Attribute, fmt::format("{}: attribute '{}' is given twice", op.name, name));
    }
    values[name] = coerce_attr(op, *spec, raw);
  }
  std::vector<std::pair<std::string, AttrValue>> items;
  for (const auto& spec : op.attrs) {
    auto it = values.find(spec.name);
    if (it != values.end()) {
      items.emplace_back(spec.name, it->second);
    } else if (spec.required) {
      throw UserError(ErrorKind::Attribute, fmt::format("{}: missing required attribute '{}'", op.name, spec.name));
    } else {
      items.emplace_back(spec.name, spec.default_value);
    }
  }
  return Attrs(std::move(items));
}

std::vector<TensorType> infer_types(const OpDef& op, const std::vector<TensorType>& inputs, const Attrs& attrs,
                                    const sym::Ranges& ranges) {
  InferContext ctx{op, inputs, attrs, ranges};
  std::vector<TensorType> out = op.infer(ctx);
  DT_CHECK(static_cast<int>(out.size()) == op.result_count(attrs),
           fmt::format("{}: inference returned {} types for {} results", op.name, out.size(), op.result_count(attrs)));
  for (auto& t : out) {
    for (auto& d : t.shape) d = sym::simplify(d, ranges);
  }
  return out;
}

// ------------------------------------------------------------------------------- docs

std::string ops_markdown() {
  std::string out =
      "# Op reference\n\n"
      "Generated by `difftest list-ops --markdown` from the op registry (`compiler/ops/`); do not edit.\n"
      "Shapes are symbolic: every dim is an integer expression of the program's dim variables.\n"
      "`//` and `%` are floor division and floor modulo. Pattern kinds are TVM's and drive FuseOps.\n";
  std::string family;
  for (const OpDef* op : OpRegistry::get().all()) {
    if (op->family != family) {
      family = op->family;
      out += fmt::format("\n## {}\n", family);
    }
    std::vector<std::string> sig = op->inputs;
    for (const auto& a : op->attrs) {
      sig.push_back(a.required ? fmt::format("{}=<{}>", a.name, attr_kind_name(a.kind))
                    : std::holds_alternative<std::monostate>(a.default_value)
                        ? fmt::format("{}=<{}>?", a.name, attr_kind_name(a.kind))
                        : fmt::format("{}={}", a.name, attr_value_str(a.default_value)));
    }
    out += fmt::format("\n### `{}`\n\n`{}({})` — {}\n\n{}\n", op->name, op->name, fmt::join(sig, ", "),
                       op->summary, op->semantics);
    if (!op->attrs.empty()) {
      out += "\n| attribute | kind | default | meaning |\n|---|---|---|---|\n";
      for (const auto& a : op->attrs) {
        std::string def = a.required ? "required"
                          : std::holds_alternative<std::monostate>(a.default_value)
                              ? "absent"
                              : fmt::format("`{}`", attr_value_str(a.default_value));
        std::string kind = attr_kind_name(a.kind);
        if (!a.choices.empty()) kind = fmt::format("one of `{}`", fmt::join(a.choices, "`, `"));
        out += fmt::format("| `{}` | {} | {} | {} |\n", a.name, kind, def, a.doc);
      }
    }
    out += fmt::format("\nPattern: {}.\n", op_pattern_name(op->pattern));
  }
  return out + special_values_markdown();
}

}  // namespace difftest
