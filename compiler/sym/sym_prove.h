// Bounds and proofs over symbolic expressions under variable ranges.
//
// Soundness is the contract: `True` means the fact holds for every binding of the variables
// within their ranges (for which the expressions evaluate without overflow); `False` means it
// fails for every such binding; anything else is `Unknown`. Interval arithmetic saturates:
// a bound of magnitude >= 2^62 is treated as infinite, which only ever weakens a proof.
#pragma once

#include <cstdint>
#include <limits>

#include "compiler/sym/sym.h"

namespace difftest::sym {

struct Interval {
  static constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();
  static constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();
  int64_t lo = kNegInf;
  int64_t hi = kPosInf;

  bool lo_finite() const { return lo != kNegInf; }
  bool hi_finite() const { return hi != kPosInf; }
  bool is_point() const { return lo_finite() && lo == hi; }
};

// Variables missing from `ranges` are unbounded.
Interval bounds(const Expr& e, const Ranges& ranges);

enum class Truth { False, True, Unknown };
inline Truth truth_not(Truth t) { return t == Truth::Unknown ? t : (t == Truth::True ? Truth::False : Truth::True); }

enum class Cmp { EQ, NE, LT, LE, GT, GE };
const char* cmp_symbol(Cmp c);

// Full strength: the difference b - a is simplified with the rule set first.
Truth prove(Cmp c, const Expr& a, const Expr& b, const Ranges& ranges);
inline Truth prove_eq(const Expr& a, const Expr& b, const Ranges& r) { return prove(Cmp::EQ, a, b, r); }
inline Truth prove_le(const Expr& a, const Expr& b, const Ranges& r) { return prove(Cmp::LE, a, b, r); }
inline Truth prove_ge(const Expr& a, const Expr& b, const Ranges& r) { return prove(Cmp::GE, a, b, r); }
inline Truth prove_lt(const Expr& a, const Expr& b, const Ranges& r) { return prove(Cmp::LT, a, b, r); }

// Is `a` a multiple of the positive constant `divisor` for every binding?
Truth prove_divisible(const Expr& a, int64_t divisor, const Ranges& ranges);

// Basic strength: ring normalization of b - a plus interval bounds, no rewrite rules.
// The simplifier uses this for rule conditions (it must not recurse into itself).
Truth prove_basic(Cmp c, const Expr& a, const Expr& b, const Ranges& ranges);

}  // namespace difftest::sym
