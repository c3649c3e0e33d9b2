#include "compiler/sym/sym_poly.h"

#include <algorithm>

#include "compiler/support/checked.h"

namespace difftest::sym {

namespace {

int compare_atoms(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return a.size() > b.size() ? -1 : 1;  // higher degree first
  for (size_t i = 0; i < a.size(); ++i) {
    int c = compare(a[i], b[i]);
    if (c != 0) return c;
  }
  return 0;
}

bool same_atoms(const std::vector<Expr>& a, const std::vector<Expr>& b) { return compare_atoms(a, b) == 0; }

Expr product(const std::vector<Expr>& factors) {
  Expr acc = factors.front();
  for (size_t i = 1; i < factors.size(); ++i) acc = acc * factors[i];
  return acc;
}

}  // namespace

Poly Poly::constant(int64_t c) {
  Poly p;
  p.constant_ = c;
  return p;
}

Poly Poly::atom(const Expr& e) {
  Poly p;
  p.terms_.push_back(Monomial{1, {e}});
  return p;
}

std::optional<Poly> Poly::from_terms(std::vector<Monomial> terms, int64_t constant) {
  for (auto& t : terms) std::sort(t.atoms.begin(), t.atoms.end(), ExprLess());
  std::stable_sort(terms.begin(), terms.end(),
                   [](const Monomial& x, const Monomial& y) { return compare_atoms(x.atoms, y.atoms) < 0; });
  Poly p;
  p.constant_ = constant;
  for (auto& t : terms) {
    if (!p.terms_.empty() && same_atoms(p.terms_.back().atoms, t.atoms)) {
      auto sum = checked::try_add(p.terms_.back().coef, t.coef);
      if (!sum) return std::nullopt;
      p.terms_.back().coef = *sum;
    } else {
      p.terms_.push_back(std::move(t));
    }
  }
  std::erase_if(p.terms_, [](const Monomial& m) { return m.coef == 0; });
  if (p.terms_.size() > kMaxTerms) return std::nullopt;
  return p;
}

std::optional<Poly> Poly::add(const Poly& a, const Poly& b) {
  auto c = checked::try_add(a.constant_, b.constant_);
  if (!c) return std::nullopt;
  std::vector<Monomial> terms = a.terms_;
  terms.insert(terms.end(), b.terms_.begin(), b.terms_.end());
  return from_terms(std::move(terms), *c);
}

std::optional<Poly> Poly::scale(const Poly& a, int64_t k) {
  auto c = checked::try_mul(a.constant_, k);
  if (!c) return std::nullopt;
  std::vector<Monomial> terms = a.terms_;
  for (auto& t : terms) {
    auto m = checked::try_mul(t.coef, k);
    if (!m) return std::nullopt;
    t.coef = *m;
  }
  return from_terms(std::move(terms), *c);
}

std::optional<Poly> Poly::mul(const Poly& a, const Poly& b) {
  if (a.terms_.size() * b.terms_.size() > kMaxTerms * 4) return std::nullopt;
  auto c = checked::try_mul(a.constant_, b.constant_);
  if (!c) return std::nullopt;
  std::vector<Monomial> terms;
  auto scaled = [&](const Poly& p, int64_t k) -> bool {
    for (const auto& t : p.terms_) {
      auto m = checked::try_mul(t.coef, k);
      if (!m) return false;
      terms.push_back(Monomial{*m, t.atoms});
    }
    return true;
  };
  if (!scaled(a, b.constant_) || !scaled(b, a.constant_)) return std::nullopt;
  for (const auto& x : a.terms_) {
    for (const auto& y : b.terms_) {
      auto m = checked::try_mul(x.coef, y.coef);
      if (!m) return std::nullopt;
      Monomial t{*m, x.atoms};
      t.atoms.insert(t.atoms.end(), y.atoms.begin(), y.atoms.end());
      terms.push_back(std::move(t));
    }
  }
  return from_terms(std::move(terms), *c);
}

std::optional<Poly> Poly::from_expr(const Expr& e) {
  switch (e.op()) {
    case Op::Const: return constant(e.value());
    case Op::Add:
    case Op::Sub:
    case Op::Mul: {
      auto a = from_expr(e.a());
      if (!a) return std::nullopt;
      auto b = from_expr(e.b());
      if (!b) return std::nullopt;
      if (e.op() == Op::Add) return add(*a, *b);
      if (e.op() == Op::Mul) return mul(*a, *b);
      auto nb = scale(*b, -1);
      if (!nb) return std::nullopt;
      return add(*a, *nb);
    }
    default: return atom(e);
  }
}

Expr monomial_expr(const Monomial& m) {
  std::vector<Expr> factors;
  if (m.coef != 1) factors.push_back(Expr::constant(m.coef));
  factors.insert(factors.end(), m.atoms.begin(), m.atoms.end());
  return product(factors);
}

Expr Poly::to_expr() const {
  Expr acc;
  for (const auto& t : terms_) {
    if (t.coef <= 0) continue;
    Expr term = monomial_expr(t);
    acc = acc.defined() ? acc + term : term;
  }
  for (const auto& t : terms_) {
    if (t.coef >= 0) continue;
    if (!acc.defined() || t.coef == INT64_MIN) {
      Expr term = monomial_expr(t);
      acc = acc.defined() ? acc + term : term;
    } else {
      acc = acc - monomial_expr(Monomial{-t.coef, t.atoms});
    }
  }
  if (!acc.defined()) return Expr::constant(constant_);
  if (constant_ > 0) return acc + Expr::constant(constant_);
  if (constant_ < 0) {
    return constant_ == INT64_MIN ? acc + Expr::constant(constant_) : acc - Expr::constant(-constant_);
  }
  return acc;
}

bool operator==(const Poly& a, const Poly& b) {
  if (a.constant_ != b.constant_ || a.terms_.size() != b.terms_.size()) return false;
  for (size_t i = 0; i < a.terms_.size(); ++i) {
    if (a.terms_[i].coef != b.terms_[i].coef || !same_atoms(a.terms_[i].atoms, b.terms_[i].atoms)) return false;
  }
  return true;
}

Expr ring_normalize(const Expr& e) {
  if (e.op() != Op::Add && e.op() != Op::Sub && e.op() != Op::Mul) return e;
  auto p = Poly::from_expr(e);
  return p ? p->to_expr() : e;
}

std::vector<Expr> product_factors(const Expr& e) {
  std::vector<Expr> raw;
  std::vector<Expr> stack{e};
  while (!stack.empty()) {
    Expr x = stack.back();
    stack.pop_back();
    if (x.op() == Op::Mul) {
      stack.push_back(x.b());
      stack.push_back(x.a());
    } else {
      raw.push_back(x);
    }
  }
  int64_t coef = 1;
  std::vector<Expr> rest;
  for (const auto& f : raw) {
    if (f.is_const()) {
      auto m = checked::try_mul(coef, f.value());
      if (!m) return raw;
      coef = *m;
    } else {
      rest.push_back(f);
    }
  }
  if (coef != 1 || rest.empty()) rest.insert(rest.begin(), Expr::constant(coef));
  return rest;
}

namespace {

Expr negate_term(const Expr& t) {
  if (t.is_const()) {
    auto n = checked::try_sub(0, t.value());
    return n ? Expr::constant(*n) : Expr::constant(-1) * t;
  }
  std::vector<Expr> f = product_factors(t);
  if (f.front().is_const() && f.size() > 1) {
    auto n = checked::try_sub(0, f.front().value());
    if (!n) return Expr::constant(-1) * t;
    if (*n == 1) {
      f.erase(f.begin());
    } else {
      f.front() = Expr::constant(*n);
    }
    return product(f);
  }
  f.insert(f.begin(), Expr::constant(-1));
  return product(f);
}

void collect_terms(const Expr& e, bool negate, std::vector<Expr>& out) {
  if (e.op() == Op::Add || e.op() == Op::Sub) {
    collect_terms(e.a(), negate, out);
    collect_terms(e.b(), e.op() == Op::Sub ? !negate : negate, out);
  } else {
    out.push_back(negate ? negate_term(e) : e);
  }
}

}  // namespace

std::vector<Expr> sum_terms(const Expr& e) {
  std::vector<Expr> out;
  collect_terms(e, false, out);
  return out;
}

}  // namespace difftest::sym
