#include "compiler/passes/specialize_shapes.h"

#include <fmt/format.h>

#include <map>
#include <unordered_map>

#include "compiler/sym/sym_prove.h"
#include "compiler/sym/sym_simplify.h"
#include "compiler/ops/op.h"

namespace difftest::passes {

namespace {

class Specializer {
 public:
  Specializer(std::map<std::string, sym::Expr> pinned, sym::Ranges ranges)
      : pinned_(std::move(pinned)), ranges_(std::move(ranges)) {}

  const sym::Ranges& ranges() const { return ranges_; }

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

  // The value standing for `v` in the specialized program (a new one when its type changed).
  Value value(const Value& v) {
    auto it = values_.find(v.get());
    if (it != values_.end()) return it->second;
    TensorType t = type(v.type());
    Value out = t == v.type() ? v : Value::make(v.name(), std::move(t));
    values_[v.get()] = out;
    return out;
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

  Binding binding(const Binding& b) {
    std::vector<Value> results;
    bool same = true;
    for (const auto& r : b.results()) {
      results.push_back(value(r));
      same = same && results.back().same_as(r);
    }
    if (b.kind() == BindingKind::Param) return same ? b : Binding::param(results.front(), b.loc());
    if (b.kind() == BindingKind::Const) {
      return same ? b : Binding::constant(results.front(), b.constant(), b.loc());
    }
    std::vector<Value> args;
    std::vector<TensorType> arg_types;
    for (const auto& a : b.args()) {
      args.push_back(value(a));
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
    return same ? b
                : Binding::call(std::move(results), &b.op(), std::move(args), std::move(attrs), b.loc())
                      .with_group(b.group());
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
  std::unordered_map<const ValueNode*, Value> values_;
};

}  // namespace

Program specialize_shapes(const Program& p) {
  std::map<std::string, sym::Expr> pinned;
  std::vector<DimVar> dims;
  sym::Ranges ranges;
  for (const auto& d : p.dims()) {
    if (d.range.lo == d.range.hi) {
      pinned[d.name] = sym::Expr::constant(d.range.lo);
    } else {
      dims.push_back(d);
      ranges[d.name] = d.range;
    }
  }
  if (pinned.empty()) return p;
  Specializer s(std::move(pinned), std::move(ranges));
  std::vector<Binding> bindings;
  for (const auto& b : p.bindings()) bindings.push_back(s.binding(b));
  std::vector<Value> outputs;
  for (const auto& o : p.outputs()) outputs.push_back(s.value(o));
  return Program::make(p.name(), std::move(dims), std::move(bindings), std::move(outputs), p.loc());
}

}  // namespace difftest::passes
