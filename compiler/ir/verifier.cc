#include "compiler/ir/verifier.h"

#include <fmt/format.h>

#include <cmath>
#include <unordered_set>

#include "compiler/sym/sym_prove.h"
#include "compiler/ops/op.h"

namespace difftest {

namespace {

class Verifier {
 public:
  explicit Verifier(const Program& p) : p_(p), ranges_(p.ranges()) {}

  void run() {
    for (const auto& d : p_.dims()) check_dim_var(d);
    for (const auto& b : p_.bindings()) {
      try {
        check_binding(b);
      } catch (const UserError& e) {
        throw e.located(b.loc());
      }
    }
    for (const auto& o : p_.outputs()) {
      if (!defined_.count(o.get())) {
        throw UserError(ErrorKind::UnknownName, fmt::format("returned value %{} is not defined", o.name()), p_.loc());
      }
    }
  }

 private:
  void check_dim_var(const DimVar& d) {
    if (!is_valid_identifier(d.name)) {
      throw UserError(ErrorKind::Syntax, fmt::format("invalid dim variable name '{}'", d.name), p_.loc());
    }
    if (d.range.lo < 1 || d.range.hi < d.range.lo || d.range.hi > kMaxDimVarValue) {
      throw UserError(ErrorKind::NegativeDim,
                      fmt::format("dim variable '{}' has range {}..{}; dims need 1 <= lo <= hi <= {}", d.name,
                                  d.range.lo, d.range.hi, kMaxDimVarValue),
                      p_.loc());
    }
  }

  void check_expr_vars(const sym::Expr& e, const std::string& where) {
    for (const auto& v : sym::vars(e)) {
      if (!ranges_.count(v)) {
        throw UserError(ErrorKind::UndeclaredDim, fmt::format("{} uses undeclared dim variable '{}'", where, v));
      }
    }
  }

  void check_type(const Value& v) {
    const TensorType& t = v.type();
    if (t.rank() > kMaxRank) {
      throw UserError(ErrorKind::Limit, fmt::format("%{} has rank {} above the maximum {}", v.name(), t.rank(), kMaxRank));
    }
    sym::Expr count = 1;
    for (const auto& d : t.shape) {
      check_expr_vars(d, fmt::format("the type of %{}", v.name()));
      if (sym::prove_ge(d, 1, ranges_) != sym::Truth::True) {
        throw UserError(ErrorKind::NegativeDim,
                        fmt::format("dim {} of %{}: {} is not provably >= 1 under the declared ranges",
                                    sym::to_string(d), v.name(), t.str()));
      }
      count = count * d;
    }
    const sym::Interval n = sym::bounds(count, ranges_);
    if (!n.hi_finite() || n.hi > kMaxTensorElements) {
      throw UserError(ErrorKind::Limit, fmt::format("%{}: {} may hold more than 2^40 elements", v.name(), t.str()));
    }
  }

  void check_constant(const Binding& b) {
    const ConstantInit& c = b.constant();
    const TensorType& t = b.result().type();
    switch (c.kind) {
      case ConstantInit::Kind::Literal: {
        auto shape = t.static_shape();
        if (!shape) throw UserError(ErrorKind::Literal, "a literal constant needs a static shape");
        size_t count = 1;
        for (int64_t d : *shape) count *= static_cast<size_t>(d);
        const size_t have = is_float(t.dtype) ? c.float_values.size() : c.int_values.size();
        if (have != count || (is_float(t.dtype) ? !c.int_values.empty() : !c.float_values.empty())) {
          throw UserError(ErrorKind::Literal, fmt::format("literal has {} elements, its type {} needs {}", have,
                                                          t.str(), count));
        }
        if (!is_float(t.dtype)) {
          for (int64_t x : c.int_values) {
            if (x < int_min(t.dtype) || x > int_max(t.dtype)) {
              throw UserError(ErrorKind::Literal, fmt::format("{} is out of range for {}", x, dtype_name(t.dtype)));
            }
          }
        }
        return;
      }
      case ConstantInit::Kind::Uniform: {
        if (!std::isfinite(c.p0) || !std::isfinite(c.p1) || !(c.p0 < c.p1)) {
          throw UserError(ErrorKind::Literal, fmt::format("uniform({}, {}) needs finite lo < hi", c.p0, c.p1));
        }
        if (is_bool(t.dtype) || is_int(t.dtype)) {
          if (c.p0 != std::floor(c.p0) || c.p1 != std::floor(c.p1) ||
              c.p0 < static_cast<double>(int_min(t.dtype)) || c.p1 > static_cast<double>(int_max(t.dtype))) {
            throw UserError(ErrorKind::Literal, fmt::format("uniform({}, {}) of {} needs integer bounds within range",
                                                            c.p0, c.p1, dtype_name(t.dtype)));
          }
        }
        return;
      }
      case ConstantInit::Kind::Normal:
        if (!is_float(t.dtype)) throw UserError(ErrorKind::Literal, "normal(...) constants need a float dtype");
        if (!std::isfinite(c.p0) || !std::isfinite(c.p1) || !(c.p1 > 0)) {
          throw UserError(ErrorKind::Literal, fmt::format("normal({}, {}) needs a finite mean and std > 0", c.p0, c.p1));
        }
        return;
    }
  }

  void check_call(const Binding& b) {
    const OpDef& op = b.op();
    for (const auto& [name, value] : b.attrs().items()) {
      const AttrSpec* spec = op.find_attr(name);
      if (!spec) throw UserError(ErrorKind::Attribute, unknown_attr_message(op, name));
      if (!std::holds_alternative<std::monostate>(value)) coerce_attr(op, *spec, value);
      if (auto* e = std::get_if<sym::Expr>(&value)) check_expr_vars(*e, fmt::format("attribute '{}'", name));
      if (auto* es = std::get_if<std::vector<sym::Expr>>(&value)) {
        for (const auto& e : *es) check_expr_vars(e, fmt::format("attribute '{}'", name));
      }
    }
    std::vector<TensorType> in;
    for (const auto& a : b.args()) in.push_back(a.type());
    const std::vector<TensorType> inferred = infer_types(op, in, b.attrs(), ranges_);
    if (inferred.size() != b.results().size()) {
      throw UserError(ErrorKind::Arity, fmt::format("{} produces {} results, {} are bound", op.name, inferred.size(),
                                                    b.results().size()));
    }
    for (size_t i = 0; i < inferred.size(); ++i) {
      const Value& r = b.results()[i];
      const TensorType& want = inferred[i];
      bool ok = r.type().dtype == want.dtype && r.type().rank() == want.rank();
      for (int d = 0; ok && d < want.rank(); ++d) {
        ok = sym::prove_eq(r.type().shape[d], want.shape[d], ranges_) == sym::Truth::True;
      }
      if (!ok) {
        throw UserError(ErrorKind::TypeMismatch, fmt::format("%{} is declared {} but {} infers {}", r.name(),
                                                             r.type().str(), op.name, want.str()));
      }
    }
  }

  void check_binding(const Binding& b) {
    for (const auto& a : b.args()) {
      if (!defined_.count(a.get())) {
        throw UserError(ErrorKind::UnknownName, fmt::format("%{} is used before it is defined", a.name()));
      }
    }
    for (const auto& r : b.results()) {
      if (!is_valid_value_name(r.name())) throw UserError(ErrorKind::Syntax, fmt::format("invalid name %{}", r.name()));
      if (!names_.insert(r.name()).second) {
        throw UserError(ErrorKind::DuplicateName, fmt::format("%{} is defined twice", r.name()));
      }
      check_type(r);
    }
    switch (b.kind()) {
      case BindingKind::Param: break;
      case BindingKind::Const: check_constant(b); break;
      case BindingKind::Call: check_call(b); break;
    }
    for (const auto& r : b.results()) defined_.insert(r.get());
  }

  const Program& p_;
  const sym::Ranges ranges_;
  std::unordered_set<const ValueNode*> defined_;
  std::unordered_set<std::string> names_;
};

}  // namespace

void verify(const Program& p) { Verifier(p).run(); }

}  // namespace difftest
