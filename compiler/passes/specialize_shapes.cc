#include "compiler/passes/specialize_shapes.h"

#include <fmt/format.h>

#include <map>
#include <optional>

#include "compiler/ir/visitor.h"
#include "compiler/sym/sym_prove.h"
#include "compiler/sym/sym_simplify.h"
#include "compiler/ops/op.h"

namespace difftest::passes {

namespace {

// Every dim variable pinned to one value is substituted in types and attributes; a value
// whose type changes is a new value of the same name.
class Specializer : public Mutator {
 public:
  Specializer(std::map<std::string, sym::Expr> pinned, sym::Ranges ranges)
      : pinned_(std::move(pinned)), ranges_(std::move(ranges)) {}

 private:
  std::vector<DimVar> rewrite_dims(const std::vector<DimVar>& dims) override {
    std::vector<DimVar> out;
    for (const auto& d : dims) {
      if (!pinned_.count(d.name)) out.push_back(d);
    }
    return out;
  }

  std::vector<Value> rewrite(const Binding& b) override {
    std::optional<Binding> s = specialized(b);
    return s ? emit(std::move(*s)) : keep(b);
  }

  sym::Expr dim(const sym::Expr& e) const {
    bool mentions = false;
    for (const auto& v : sym::vars(e)) mentions = mentions || pinned_.count(v);
    if (!mentions) return e;
    return sym::simplify(sym::substitute(e, pinned_), ranges_);
  }

  TensorType type(const TensorType& t) const {
    TensorType out{t.dtype, {}};
    for (const auto& d : t.shape) out.shape.push_back(dim(d));
    return out;
  }

  // The value standing for the result `v` in the specialized program (a new one when its type
  // changed).
  Value result(const Value& v) const {
    TensorType t = type(v.type());
    return t == v.type() ? v : Value::make(v.name(), std::move(t));
  }

  AttrValue attr(const AttrValue& a) const {
    if (const sym::Expr* e = std::get_if<sym::Expr>(&a)) return AttrValue(dim(*e));
    if (const auto* es = std::get_if<std::vector<sym::Expr>>(&a)) {
      std::vector<sym::Expr> out;
      for (const auto& e : *es) out.push_back(dim(e));
      return AttrValue(std::move(out));
    }
    return a;
  }

  // b with its results specialized and its operands remapped; nothing when neither changed.
  std::optional<Binding> specialized(const Binding& b) const {
    std::vector<Value> results;
    bool same = true;
    for (const auto& r : b.results()) {
      results.push_back(result(r));
      same = same && results.back().same_as(r);
    }
    if (!b.is_call() && same) return std::nullopt;
    if (b.kind() == BindingKind::Param) return Binding::param(results.front(), b.loc());
    if (b.kind() == BindingKind::Const) return Binding::constant(results.front(), b.constant(), b.loc());
    std::vector<Value> args;
    std::vector<TensorType> arg_types;
    for (const auto& a : b.args()) {
      args.push_back(remap(a));
      arg_types.push_back(args.back().type());
      same = same && args.back().same_as(a);
    }
    if (!same && squeezes_what_is_constant(b)) {
      // squeeze(axes=[]) removes the dims that are the *constant* 1: once a dim variable
      // becomes 1 it would be removed too, changing the result. Keep the original meaning as a
      // reshape to the specialized result shape.
      const OpDef* reshape = OpRegistry::get().find("reshape");
      Attrs attrs = make_attrs(*reshape, {{"shape", AttrValue(results.front().type().shape)}});
      check_inference_of(*reshape, arg_types, attrs, results);
      return Binding::call(std::move(results), reshape, std::move(args), std::move(attrs), b.loc()).with_group(b.group());
    }
    std::vector<std::pair<std::string, AttrValue>> items;
    for (const auto& [name, v] : b.attrs().items()) items.emplace_back(name, attr(v));
    Attrs attrs(std::move(items));
    same = same && attrs == b.attrs();
    check_inference_of(b.op(), arg_types, attrs, results);
    if (same) return std::nullopt;
    return Binding::call(std::move(results), &b.op(), std::move(args), std::move(attrs), b.loc()).with_group(b.group());
  }

 private:
  static bool squeezes_what_is_constant(const Binding& b) {
    return b.op().name == "squeeze" && b.attrs().get_ints("axes").empty();
  }

  void check_inference_of(const OpDef& op, const std::vector<TensorType>& args, const Attrs& attrs,
                          const std::vector<Value>& results) const {
    const std::vector<TensorType> inferred = infer_types(op, args, attrs, ranges_);
    DT_CHECK(inferred.size() == results.size(), "SpecializeShapes changed a result count");
    for (size_t i = 0; i < inferred.size(); ++i) {
      const TensorType& want = results[i].type();
      bool ok = inferred[i].dtype == want.dtype && inferred[i].rank() == want.rank();
      for (int d = 0; ok && d < want.rank(); ++d) {
        ok = sym::prove_eq(inferred[i].shape[d], want.shape[d], ranges_) == sym::Truth::True;
      }
      DT_CHECK(ok, fmt::format("SpecializeShapes: %{} is inferred as {} but specialized to {}", results[i].name(),
                               inferred[i].str(), want.str()));
    }
  }

  std::map<std::string, sym::Expr> pinned_;
  sym::Ranges ranges_;
};

}  // namespace

Program specialize_shapes(const Program& p) {
  std::map<std::string, sym::Expr> pinned;
  sym::Ranges ranges;
  for (const auto& d : p.dims()) {
    if (d.range.lo == d.range.hi) {
      pinned[d.name] = sym::Expr::constant(d.range.lo);
    } else {
      ranges[d.name] = d.range;
    }
  }
  if (pinned.empty()) return p;
  return Specializer(std::move(pinned), std::move(ranges)).mutate(p);
}

}  // namespace difftest::passes
