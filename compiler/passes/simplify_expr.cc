#include "compiler/passes/simplify_expr.h"

#include <cmath>
#include <functional>
#include <optional>
#include <unordered_map>
#include <variant>

#include "compiler/faults/faults.h"
#include "compiler/sym/sym_prove.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/op.h"

namespace difftest::passes {

// Test faults of this file (docs/faults.md): off unless switched on.

const faults::Fault kSimplifyPermuteComposedBackwards({
    .name = "simplify-permute-composed-backwards",
    .pass = "SimplifyExpr",
    .description = "SimplifyExpr's permute-permute rule composes two permute_dims in the wrong order (c[k] = "
        "outer[inner[k]] instead of inner[outer[k]]): right when the two commute (a transpose and its inverse, "
        "equal permutations, rank 2), wrong for rank >= 3 pairs that do not: a peephole fusing two transposes",
    .models = "the ONNX exporter's peephole fusing two transposes into the wrong `perm` (pytorch/pytorch#7868)",
    .held_out = true,
});

namespace {

// The rewrite, and for the rules the program built so far: they look through operands to the
// bindings that define them.
class Graph : public Mutator {
 public:
  Graph(const sym::Ranges& ranges, const CompileContext& compile) : ranges_(ranges), compile_(compile) {}

  const sym::Ranges& ranges() const { return ranges_; }
  const CompileContext& compile() const { return compile_; }
  const Binding* def(const Value& v) const { return definition(v); }
  // The call that defines `v` when it is an `op` call, else nullptr.
  const Binding* call_of(const Value& v, std::string_view op) const {
    const Binding* b = def(v);
    return b && b->is_call() && b->op().name == op ? b : nullptr;
  }

 private:
  std::vector<Value> rewrite(const Binding& b) override;

  const sym::Ranges& ranges_;
  const CompileContext& compile_;
};

// A rule's answer: an existing value, or a call computing the binding's result more simply.
struct NewCall {
  const OpDef* op;
  std::vector<Value> args;
  Attrs attrs;
};
using Rewrite = std::variant<Value, NewCall>;

struct Rule {
  const char* name;
  const char* why;
  std::function<std::optional<Rewrite>(const Binding&, const Graph&)> apply;
};

bool same_type(const TensorType& a, const TensorType& b, const sym::Ranges& ranges) {
  if (a.dtype != b.dtype || a.rank() != b.rank()) return false;
  for (int i = 0; i < a.rank(); ++i) {
    if (sym::prove_eq(a.shape[i], b.shape[i], ranges) != sym::Truth::True) return false;
  }
  return true;
}

// The one element of a constant whose elements are all equal (literal, ones, zeros, full).
struct Splat {
  double f = 0;
  int64_t i = 0;
};

std::optional<Splat> splat(const Value& v, const Graph& g) {
  const Binding* b = g.def(v);
  if (!b) return std::nullopt;
  const bool fl = is_float(v.type().dtype);
  if (b->kind() == BindingKind::Const) {
    const ConstantInit& c = b->constant();
    if (c.kind != ConstantInit::Kind::Literal) return std::nullopt;
    Splat s;
    if (fl) {
      if (c.float_values.empty()) return std::nullopt;
      s.f = c.float_values.front();
      for (double x : c.float_values) {
        if (std::signbit(x) != std::signbit(s.f) || !(x == s.f)) return std::nullopt;
      }
    } else {
      if (c.int_values.empty()) return std::nullopt;
      s.i = c.int_values.front();
      for (int64_t x : c.int_values) {
        if (x != s.i) return std::nullopt;
      }
    }
    return s;
  }
  if (!b->is_call()) return std::nullopt;
  const std::string& op = b->op().name;
  double value;
  if (op == "zeros") {
    value = 0;
  } else if (op == "ones") {
    value = 1;
  } else if (op == "full") {
    value = b->attrs().get_float("value");
  } else {
    return std::nullopt;
  }
  // A fill value converts to the dtype; only the exact small values rules ask for matter here.
  if (!fl && value != std::trunc(value)) return std::nullopt;
  return Splat{value, fl ? 0 : static_cast<int64_t>(value)};
}

bool is_one(const Value& v, const Graph& g) {
  auto s = splat(v, g);
  return s && (is_float(v.type().dtype) ? s->f == 1.0 : s->i == 1);
}

// The zero that leaves every x unchanged under `op`: x + (-0.0) and x - (+0.0) for floats.
bool is_neutral_zero(const Value& v, const Graph& g, bool negative_zero) {
  auto s = splat(v, g);
  if (!s) return false;
  if (!is_float(v.type().dtype)) return s->i == 0;
  return s->f == 0.0 && std::signbit(s->f) == negative_zero;
}

// `b` is `op`(x, c) (or (c, x) when `left`) with c neutral and the result typed as x.
std::optional<Rewrite> drop_neutral(const Binding& b, const Graph& g, std::string_view op, bool left,
                                    const std::function<bool(const Value&)>& neutral) {
  if (b.op().name != op) return std::nullopt;
  const Value& x = b.args()[left ? 1 : 0];
  const Value& c = b.args()[left ? 0 : 1];
  if (!neutral(c) || !same_type(x.type(), b.result().type(), g.ranges())) return std::nullopt;
  return Rewrite{x};
}

std::vector<int64_t> permutation(const Binding& b, int rank) {
  std::vector<int64_t> axes = b.attrs().get_ints("axes");
  if (axes.empty()) {
    for (int i = rank - 1; i >= 0; --i) axes.push_back(i);
  }
  for (auto& a : axes) {
    if (a < 0) a += rank;
  }
  return axes;
}

bool is_identity(const std::vector<int64_t>& axes) {
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

// cast(cast(x, to), from) == x for every x of dtype `from`.
bool round_trips(DType from, DType to) {
  if (from == to || is_bool(from)) return true;  // 0 and 1 are exact everywhere; back is x != 0
  if (is_bool(to)) return false;
  if (is_float(from)) {
    if (!is_float(to)) return false;
    return to == DType::f64 || (to == DType::f32 && (from == DType::f16 || from == DType::bf16));
  }
  // int -> int keeps the low bits, so any cast at least as wide comes back unchanged.
  if (is_int(to)) return dtype_bits(to) >= dtype_bits(from);
  // int -> float is exact while every value fits the significand (11 bits f16, 8 bf16, 24
  // f32, 53 f64); the way back truncates an exact integer, which is the identity.
  const int significand = to == DType::f64 ? 53 : to == DType::f32 ? 24 : to == DType::f16 ? 11 : 8;
  const int magnitude_bits = dtype_bits(from) - (is_signed_int(from) ? 1 : 0);
  return magnitude_bits <= significand;
}

const OpDef& op_named(const char* name) {
  const OpDef* op = OpRegistry::get().find(name);
  DT_CHECK(op != nullptr, std::string("SimplifyExpr needs the op ") + name);
  return *op;
}

const std::vector<Rule>& rules() {
  static const std::vector<Rule> table = {
      {"mul-one-right", "x * 1 == x for every x, NaN and -0 included",
       [](const Binding& b, const Graph& g) {
         return drop_neutral(b, g, "mul", false, [&](const Value& c) { return is_one(c, g); });
       }},
      {"mul-one-left", "1 * x == x",
       [](const Binding& b, const Graph& g) {
         return drop_neutral(b, g, "mul", true, [&](const Value& c) { return is_one(c, g); });
       }},
      {"div-one", "x / 1 == x",
       [](const Binding& b, const Graph& g) {
         return drop_neutral(b, g, "div", false, [&](const Value& c) { return is_one(c, g); });
       }},
      {"add-zero-right", "x + 0 == x for integers; for floats only x + (-0.0) (since -0.0 + +0.0 == +0.0)",
       [](const Binding& b, const Graph& g) {
         return drop_neutral(b, g, "add", false, [&](const Value& c) { return is_neutral_zero(c, g, true); });
       }},
      {"add-zero-left", "0 + x == x, with the same zero as add-zero-right",
       [](const Binding& b, const Graph& g) {
         return drop_neutral(b, g, "add", true, [&](const Value& c) { return is_neutral_zero(c, g, true); });
       }},
      {"sub-zero", "x - 0 == x for integers; for floats only x - (+0.0)",
       [](const Binding& b, const Graph& g) {
         return drop_neutral(b, g, "sub", false, [&](const Value& c) { return is_neutral_zero(c, g, false); });
       }},
      {"neg-neg", "neg(neg(x)) == x (sign flips are exact; integer negation wraps back)",
       [](const Binding& b, const Graph& g) -> std::optional<Rewrite> {
         if (b.op().name != "neg") return std::nullopt;
         const Binding* inner = g.call_of(b.args()[0], "neg");
         if (!inner) return std::nullopt;
         return Rewrite{inner->args()[0]};
       }},
      {"permute-identity", "permute_dims by the identity permutation is x",
       [](const Binding& b, const Graph&) -> std::optional<Rewrite> {
         if (b.op().name != "permute_dims") return std::nullopt;
         const Value& x = b.args()[0];
         if (!is_identity(permutation(b, x.type().rank()))) return std::nullopt;
         return Rewrite{x};
       }},
      {"permute-permute", "two permute_dims are one, with axes c[k] = inner[outer[k]]",
       [](const Binding& b, const Graph& g) -> std::optional<Rewrite> {
         if (b.op().name != "permute_dims") return std::nullopt;
         const Binding* inner = g.call_of(b.args()[0], "permute_dims");
         if (!inner) return std::nullopt;
         const Value& x = inner->args()[0];
         const int rank = x.type().rank();
         const std::vector<int64_t> a = permutation(*inner, rank);
         const std::vector<int64_t> o = permutation(b, rank);
         std::vector<int64_t> composed;
         if (g.compile().fault(kSimplifyPermuteComposedBackwards)) {
           for (int64_t k : a) composed.push_back(o[static_cast<size_t>(k)]);
         } else {
           for (int64_t k : o) composed.push_back(a[static_cast<size_t>(k)]);
         }
         if (is_identity(composed)) return Rewrite{x};
         const OpDef& op = op_named("permute_dims");
         return Rewrite{NewCall{&op, {x}, make_attrs(op, {{"axes", AttrValue(composed)}})}};
       }},
      {"reshape-reshape", "a reshape of a reshape is one reshape of the original (row-major order is kept)",
       [](const Binding& b, const Graph& g) -> std::optional<Rewrite> {
         if (b.op().name != "reshape") return std::nullopt;
         const Binding* inner = g.call_of(b.args()[0], "reshape");
         if (!inner) return std::nullopt;
         return Rewrite{NewCall{&b.op(), {inner->args()[0]}, b.attrs()}};
       }},
      {"reshape-same", "a reshape to x's own (provably equal) shape is x",
       [](const Binding& b, const Graph& g) -> std::optional<Rewrite> {
         if (b.op().name != "reshape") return std::nullopt;
         const Value& x = b.args()[0];
         if (!same_type(x.type(), b.result().type(), g.ranges())) return std::nullopt;
         return Rewrite{x};
       }},
      {"cast-same", "a cast to x's own dtype is x",
       [](const Binding& b, const Graph&) -> std::optional<Rewrite> {
         if (b.op().name != "cast" || b.args()[0].type().dtype != b.result().type().dtype) return std::nullopt;
         return Rewrite{b.args()[0]};
       }},
      {"cast-round-trip", "cast(cast(x, W), dtype(x)) is x when every value of x converts to W exactly",
       [](const Binding& b, const Graph& g) -> std::optional<Rewrite> {
         if (b.op().name != "cast") return std::nullopt;
         const Binding* inner = g.call_of(b.args()[0], "cast");
         if (!inner) return std::nullopt;
         const Value& x = inner->args()[0];
         const DType wide = inner->result().type().dtype;
         if (x.type().dtype != b.result().type().dtype || !round_trips(x.type().dtype, wide)) return std::nullopt;
         return Rewrite{x};
       }},
  };
  return table;
}

// The rule's call, when its inferred types are provably the binding's declared ones.
std::optional<Binding> rebuilt(const Binding& b, const NewCall& c, const sym::Ranges& ranges) {
  std::vector<TensorType> in;
  for (const auto& a : c.args) in.push_back(a.type());
  std::vector<TensorType> types;
  try {
    types = infer_types(*c.op, in, c.attrs, ranges);
  } catch (const UserError&) {
    return std::nullopt;
  }
  if (types.size() != b.results().size()) return std::nullopt;
  for (size_t i = 0; i < types.size(); ++i) {
    if (!same_type(types[i], b.results()[i].type(), ranges)) return std::nullopt;
  }
  return Binding::call(b.results(), c.op, c.args, c.attrs, b.loc());
}

// Each rewrite makes the binding strictly simpler; the cap only guards against a bad rule.
constexpr int kMaxRewritesPerBinding = 16;

}  // namespace

std::vector<SimplifyRuleInfo> simplify_expr_rules() {
  std::vector<SimplifyRuleInfo> out;
  for (const auto& r : rules()) out.push_back({r.name, r.why});
  return out;
}

// Rules apply to the binding with its operands remapped, again and again while one rewrites it
// into another call; a rule that answers with an existing value drops the binding.
std::vector<Value> Graph::rewrite(const Binding& b) {
  if (!b.is_call() || b.results().size() != 1) return keep(b);  // every rule is about a single-result op
  Binding cur = remapped(b);
  bool rewritten = false;
  for (int step = 0; step < kMaxRewritesPerBinding; ++step) {
    bool again = false;
    for (const Rule& rule : rules()) {
      std::optional<Rewrite> r = rule.apply(cur, *this);
      if (!r) continue;
      if (const Value* v = std::get_if<Value>(&*r)) return {*v};
      if (std::optional<Binding> nb = rebuilt(cur, std::get<NewCall>(*r), ranges_)) {
        cur = std::move(*nb);
        again = rewritten = true;
        break;
      }
    }
    if (!again) break;
  }
  return rewritten ? emit(std::move(cur)) : keep(b);
}

Program simplify_expr(const Program& p, const CompileContext& compile) {
  const sym::Ranges ranges = p.ranges();
  return Graph(ranges, compile).mutate(p);
}

}  // namespace difftest::passes
