#include "compiler/passes/fold_constant.h"

#include <fmt/format.h>

#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "compiler/faults/faults.h"
#include "compiler/ir/visitor.h"
#include "compiler/sym/sym_simplify.h"
#include "compiler/ops/op.h"
#include "compiler/passes/fold_constant_faults.h"

namespace difftest::passes {

// Test faults of this file (docs/faults.md): off unless switched on.

const faults::Fault kFoldConstantIntDivDouble({
    .name = "fold-constant-int-div-double",
    .pass = "FoldConstant",
    .description = "FoldConstant folds integer floor_divide/floor_mod of constants as (T)((double)a / (double)b): "
        "the C conversion truncates toward zero where the op floors (-7 // 2 folds to -3, -7 % 2 to -1) and int64 "
        "operands past 2^53 round; models a folding engine holding constants as double (generated integer constants "
        "stay within +-100, so the truncation is what they expose)",
    .models = "a folding engine that holds constants as doubles: C's conversion truncates toward zero where the op "
        "floors",
});

const faults::Fault kFoldConstantSymbolicShape({
    .name = "fold-constant-symbolic-shape",
    .pass = "FoldConstant",
    .description = "FoldConstant folds a creation op of symbolic shape (arange, causal/sliding-window masks, fills) "
        "with every dim at its lower bound and stretches the literal by clipping: TVM's "
        "FoldConstant-on-symbolic-shapes bug class, wrong wherever a dim exceeds the guess",
    .models = "TVM's FoldConstant on symbolic shapes (evaluating with a guessed or hinted dim)",
});

namespace {

// `d` as a constant, when the simplifier or the ranges pin it to one value.
std::optional<sym::Expr> static_dim(const sym::Expr& d, const sym::Ranges& ranges) {
  const sym::Expr s = sym::simplify(d, ranges);
  if (s.is_const()) return s;
  // simplify leaves a bare variable as it is, even when its range is a single value.
  const sym::Interval pinned = sym::bounds(s, ranges);
  if (!pinned.is_point()) return std::nullopt;
  return sym::Expr::constant(pinned.lo);
}

std::optional<TensorType> static_type(const TensorType& t, const sym::Ranges& ranges) {
  TensorType out{t.dtype, {}};
  for (const auto& d : t.shape) {
    auto s = static_dim(d, ranges);
    if (!s) return std::nullopt;
    out.shape.push_back(*s);
  }
  return out;
}

// The attributes with every symbolic one made constant: the one-op program has no dims, and
// a value that depends on a dim (strided_slice(begin=[n - 2])) must not be folded at all.
std::optional<Attrs> static_attrs(const Attrs& attrs, const sym::Ranges& ranges) {
  std::vector<std::pair<std::string, AttrValue>> items;
  for (const auto& [name, v] : attrs.items()) {
    if (const sym::Expr* e = std::get_if<sym::Expr>(&v)) {
      auto s = static_dim(*e, ranges);
      if (!s) return std::nullopt;
      items.emplace_back(name, AttrValue(*s));
    } else if (const auto* es = std::get_if<std::vector<sym::Expr>>(&v)) {
      std::vector<sym::Expr> out;
      for (const auto& e : *es) {
        auto s = static_dim(e, ranges);
        if (!s) return std::nullopt;
        out.push_back(*s);
      }
      items.emplace_back(name, AttrValue(std::move(out)));
    } else {
      items.emplace_back(name, v);
    }
  }
  return Attrs(std::move(items));
}

int64_t numel(const TensorType& t) {
  int64_t n = 1;
  for (const auto& d : t.shape) n *= d.value();
  return n;
}

// The text form cannot spell INT64_MIN (the parser reads the magnitude first), so such a
// result stays an op rather than become a literal that does not parse.
bool printable(const Tensor& t) {
  if (t.dtype() != DType::i64) return true;
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (t.get_int(i) == std::numeric_limits<int64_t>::min()) return false;
  }
  return true;
}

ConstantInit literal_of(const Tensor& t) {
  ConstantInit c;
  c.kind = ConstantInit::Kind::Literal;
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (is_float(t.dtype())) {
      c.float_values.push_back(t.get(i));
    } else {
      c.int_values.push_back(t.get_int(i));
    }
  }
  return c;
}

class Folder : public Mutator {
 public:
  Folder(const Program& p, const CompileContext& compile, const ConstantEvaluator& evaluate)
      : ranges_(p.ranges()), compile_(compile), evaluate_(evaluate) {}

 private:
  // A call whose operands are all constants (once remapped) becomes the literals of its results.
  std::vector<Value> rewrite(const Binding& b) override {
    if (b.kind() == BindingKind::Const) add_constant(b);
    if (!b.is_call()) return keep(b);
    const Binding call = remapped(b);
    bool all_constant = true;
    for (const auto& a : call.args()) all_constant = all_constant && is_constant(a);
    if (!all_constant) return keep(b);
    std::optional<std::vector<Binding>> folded = fold(call);
    if (!folded && compile_.fault(kFoldConstantSymbolicShape)) {
      if (auto guessed = fold_guessing_dims(call, names())) {
        for (Binding& g : *guessed) {
          if (g.kind() == BindingKind::Const) add_constant(g);
          emit(std::move(g));
        }
        return {emitted().back().result()};
      }
    }
    if (!folded) return keep(b);
    std::vector<Value> results;
    for (Binding& c : *folded) {
      add_constant(c);
      results.push_back(emit(std::move(c)).front());
    }
    return results;
  }

  void add_constant(const Binding& b) { constants_.insert_or_assign(b.result().get(), b); }
  bool is_constant(const Value& v) const { return constants_.count(v.get()) > 0; }

  // The literal constants standing for the results of `call` (operands already remapped), or
  // nothing when it must not be folded.
  std::optional<std::vector<Binding>> fold(const Binding& call) {
    return fold_as(call, ranges_);
  }

  // Fault fold-constant-symbolic-shape: a creation op of symbolic shape folded with every dim
  // at its lower bound, then stretched to its extents (fold_constant_faults.h).
  std::optional<std::vector<Binding>> fold_guessing_dims(const Binding& call, std::unordered_set<std::string>& names) {
    if (!call.args().empty() || call.results().size() != 1) return std::nullopt;
    sym::Ranges guess;
    for (const auto& [name, r] : ranges_) guess[name] = sym::Range{r.lo, r.lo};
    std::optional<std::vector<Binding>> folded = fold_as(call, guess);
    if (!folded) return std::nullopt;
    std::vector<bool> symbolic_axes;
    for (const auto& extent : call.result().type().shape) symbolic_axes.push_back(!static_dim(extent, ranges_));
    return stretched_to_extents(std::move(*folded), call, symbolic_axes, ranges_, names);
  }

 private:
  // `fold` under `ranges`: the real ones, or the guess above.
  std::optional<std::vector<Binding>> fold_as(const Binding& call, const sym::Ranges& ranges) {
    std::vector<TensorType> result_types;
    for (const auto& r : call.results()) {
      auto t = static_type(r.type(), ranges);
      if (!t || numel(*t) > kMaxFoldedElements) return std::nullopt;
      result_types.push_back(std::move(*t));
    }
    std::optional<Attrs> attrs = static_attrs(call.attrs(), ranges);
    if (!attrs) return std::nullopt;
    std::vector<Binding> bindings;
    std::vector<Value> args;
    std::unordered_map<const ValueNode*, Value> operand;  // an operand used twice is bound once
    for (const auto& a : call.args()) {
      if (!operand.count(a.get())) {
        auto t = static_type(a.type(), ranges);
        if (!t) return std::nullopt;
        Value v = Value::make(a.name(), std::move(*t));
        bindings.push_back(Binding::constant(v, constants_.at(a.get()).constant()));
        operand[a.get()] = v;
      }
      args.push_back(operand.at(a.get()));
    }
    std::vector<Value> results;
    for (size_t i = 0; i < result_types.size(); ++i) {
      results.push_back(Value::make(call.results()[i].name(), result_types[i]));
    }
    if (compile_.fault(kFoldConstantIntDivDouble) && truncates_through_double(call)) {
      for (auto& b : through_double(call.op().name, args, results.front())) bindings.push_back(std::move(b));
    } else {
      bindings.push_back(Binding::call(results, &call.op(), std::move(args), std::move(*attrs), call.loc()));
    }
    const Program one = Program::make("fold", {}, std::move(bindings), results);
    const std::optional<std::vector<Tensor>> computed = evaluate_(one, compile_);
    if (!computed) return std::nullopt;
    const std::vector<Tensor>& values = *computed;
    for (const auto& v : values) {
      if (!printable(v)) return std::nullopt;
    }
    std::vector<Binding> out;
    for (size_t i = 0; i < results.size(); ++i) {
      out.push_back(Binding::constant(results[i], literal_of(values[i]), call.loc()));
    }
    return out;
  }

  sym::Ranges ranges_;
  const CompileContext& compile_;
  const ConstantEvaluator& evaluate_;
  std::unordered_map<const ValueNode*, Binding> constants_;
};

}  // namespace

Program fold_constant(const Program& p, const CompileContext& compile, const ConstantEvaluator& evaluate) {
  return Folder(p, compile, evaluate).mutate(p);
}

}  // namespace difftest::passes
