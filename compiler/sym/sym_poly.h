// Ring normal form of symbolic expressions: a sum of integer multiples of monomials plus a
// constant, where a monomial is a sorted product of atoms (variables, or //, %, min, max
// subterms treated as opaque). Two expressions built from + - * over the same atoms are
// equal for every binding iff their normal forms are identical, which is what makes
// `n + m == m + n` and `[n, 64] -> [n*2, 32]` provable.
//
// Canonical tree (what to_expr builds and the printer shows):
//   terms ordered by degree (highest first), then by their atoms (sym::compare);
//   positive terms first, then negative ones as subtractions, the constant last:
//   `2*m*n + m - n + 3`. A coefficient comes first in its term: `2*n`, `-1*n` when negative
//   and leading.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/sym/sym.h"

namespace difftest::sym {

struct Monomial {
  int64_t coef = 0;
  std::vector<Expr> atoms;  // sorted with ExprLess, non-empty, may repeat (n*n)
};

class Poly {
 public:
  static constexpr size_t kMaxTerms = 64;

  // nullopt when a coefficient would overflow or the expansion exceeds kMaxTerms.
  static std::optional<Poly> from_expr(const Expr& e);
  static Poly constant(int64_t c);
  static Poly atom(const Expr& e);

  Expr to_expr() const;
  bool is_constant() const { return terms_.empty(); }
  int64_t constant_term() const { return constant_; }
  const std::vector<Monomial>& terms() const { return terms_; }  // canonical order

  static std::optional<Poly> add(const Poly& a, const Poly& b);
  static std::optional<Poly> scale(const Poly& a, int64_t k);
  static std::optional<Poly> mul(const Poly& a, const Poly& b);

  // Builds the canonical sum of `terms` plus `constant` (terms need not be sorted or merged).
  static std::optional<Poly> from_terms(std::vector<Monomial> terms, int64_t constant);

  friend bool operator==(const Poly& a, const Poly& b);

 private:
  std::vector<Monomial> terms_;
  int64_t constant_ = 0;
};

// Normalizes + - * structure; returns `e` itself when it has none or normalization fails.
Expr ring_normalize(const Expr& e);

// The canonical expression of one term, e.g. 3*m*n (coefficient sign included).
Expr monomial_expr(const Monomial& m);

// A canonical sum split into terms (each term sign-carrying: `a - 2*b` gives [a, -2*b]).
// A non-sum gives one term.
std::vector<Expr> sum_terms(const Expr& e);
// A product split into factors with the constant coefficient first (when not 1).
std::vector<Expr> product_factors(const Expr& e);

}  // namespace difftest::sym
