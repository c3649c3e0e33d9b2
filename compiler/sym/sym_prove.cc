#include "compiler/sym/sym_prove.h"

#include <algorithm>

#include "compiler/support/checked.h"
#include "compiler/support/diagnostics.h"
#include "compiler/sym/sym_poly.h"
#include "compiler/sym/sym_simplify.h"

namespace difftest::sym {

namespace {

using Wide = __int128;
constexpr Wide kSaturate = Wide{1} << 62;
constexpr int64_t kNegInf = Interval::kNegInf;
constexpr int64_t kPosInf = Interval::kPosInf;

// Bounds saturate in the direction that keeps them sound: a lower bound beyond -2^62 becomes
// -infinity and one beyond +2^62 is clamped down to 2^62 (still a lower bound); upper bounds
// mirror that.
int64_t saturate_lo(Wide v) {
  if (v <= -kSaturate) return kNegInf;
  if (v >= kSaturate) return static_cast<int64_t>(kSaturate);
  return static_cast<int64_t>(v);
}

int64_t saturate_hi(Wide v) {
  if (v >= kSaturate) return kPosInf;
  if (v <= -kSaturate) return -static_cast<int64_t>(kSaturate);
  return static_cast<int64_t>(v);
}

Interval make(Wide lo, Wide hi) { return Interval{saturate_lo(lo), saturate_hi(hi)}; }
const Interval kUnbounded{};

Interval add(const Interval& a, const Interval& b) {
  Interval r;
  r.lo = (!a.lo_finite() || !b.lo_finite()) ? kNegInf : saturate_lo(Wide{a.lo} + b.lo);
  r.hi = (!a.hi_finite() || !b.hi_finite()) ? kPosInf : saturate_hi(Wide{a.hi} + b.hi);
  return r;
}

Interval sub(const Interval& a, const Interval& b) {
  Interval r;
  r.lo = (!a.lo_finite() || !b.hi_finite()) ? kNegInf : saturate_lo(Wide{a.lo} - b.hi);
  r.hi = (!a.hi_finite() || !b.lo_finite()) ? kPosInf : saturate_hi(Wide{a.hi} - b.lo);
  return r;
}

// Infinite endpoints are carried as +-2^63, so a product with an infinite factor saturates
// back to infinity, and an infinite endpoint times 0 gives 0 (the value set is finite).
Interval mul(const Interval& a, const Interval& b) {
  const Wide c[4] = {Wide{a.lo} * b.lo, Wide{a.lo} * b.hi, Wide{a.hi} * b.lo, Wide{a.hi} * b.hi};
  return make(*std::min_element(c, c + 4), *std::max_element(c, c + 4));
}

bool finite(const Interval& x) { return x.lo_finite() && x.hi_finite(); }

Interval floordiv(const Interval& a, const Interval& b) {
  if (b.is_point() && b.lo != 0) {
    const int64_t c = b.lo;
    Interval r;
    if (c > 0) {
      r.lo = a.lo_finite() ? *checked::try_floordiv(a.lo, c) : kNegInf;
      r.hi = a.hi_finite() ? *checked::try_floordiv(a.hi, c) : kPosInf;
    } else {
      auto q_hi = a.hi_finite() ? checked::try_floordiv(a.hi, c) : std::nullopt;
      auto q_lo = a.lo_finite() ? checked::try_floordiv(a.lo, c) : std::nullopt;
      r.lo = q_hi ? *q_hi : kNegInf;
      r.hi = q_lo ? *q_lo : kPosInf;
    }
    return r;
  }
  const bool positive = b.lo_finite() && b.lo > 0;
  const bool negative = b.hi_finite() && b.hi < 0;
  if (!positive && !negative) return kUnbounded;
  if (finite(a) && finite(b)) {
    // floor(a / b) is monotone in each argument on a sign-definite b, so the corners bound it.
    int64_t q[4];
    int k = 0;
    for (int64_t x : {a.lo, a.hi}) {
      for (int64_t y : {b.lo, b.hi}) {
        auto v = checked::try_floordiv(x, y);
        if (!v) return kUnbounded;
        q[k++] = *v;
      }
    }
    return Interval{*std::min_element(q, q + 4), *std::max_element(q, q + 4)};
  }
  if (positive && a.lo_finite() && a.lo >= 0) {
    return Interval{0, a.hi_finite() ? *checked::try_floordiv(a.hi, b.lo) : kPosInf};
  }
  return kUnbounded;
}

Interval floormod(const Interval& a, const Interval& b) {
  if (b.is_point() && b.lo > 0) {
    const int64_t c = b.lo;
    if (a.lo_finite() && a.hi_finite()) {
      if (a.lo >= 0 && a.hi < c) return a;
      if (*checked::try_floordiv(a.lo, c) == *checked::try_floordiv(a.hi, c)) {
        return Interval{*checked::try_floormod(a.lo, c), *checked::try_floormod(a.hi, c)};
      }
    }
    return Interval{0, c - 1};
  }
  if (b.lo_finite() && b.lo > 0) {
    Interval r{0, b.hi_finite() ? b.hi - 1 : kPosInf};
    if (a.lo_finite() && a.lo >= 0) r.hi = std::min(r.hi, a.hi);
    return r;
  }
  if (b.hi_finite() && b.hi < 0) {
    return Interval{b.lo_finite() ? b.lo + 1 : kNegInf, 0};
  }
  return kUnbounded;
}

Truth decide(Cmp c, const Interval& d) {
  // d bounds b - a.
  switch (c) {
    case Cmp::EQ:
      if (d.is_point() && d.lo == 0) return Truth::True;
      if ((d.lo_finite() && d.lo > 0) || (d.hi_finite() && d.hi < 0)) return Truth::False;
      return Truth::Unknown;
    case Cmp::NE: return truth_not(decide(Cmp::EQ, d));
    case Cmp::LE:  // b - a >= 0
      if (d.lo_finite() && d.lo >= 0) return Truth::True;
      if (d.hi_finite() && d.hi < 0) return Truth::False;
      return Truth::Unknown;
    case Cmp::LT:  // b - a >= 1
      if (d.lo_finite() && d.lo >= 1) return Truth::True;
      if (d.hi_finite() && d.hi <= 0) return Truth::False;
      return Truth::Unknown;
    case Cmp::GE:  // b - a <= 0
      if (d.hi_finite() && d.hi <= 0) return Truth::True;
      if (d.lo_finite() && d.lo > 0) return Truth::False;
      return Truth::Unknown;
    case Cmp::GT:  // b - a <= -1
      if (d.hi_finite() && d.hi <= -1) return Truth::True;
      if (d.lo_finite() && d.lo >= 0) return Truth::False;
      return Truth::Unknown;
  }
  return Truth::Unknown;
}

Truth prove_with(Cmp c, const Expr& a, const Expr& b, const Ranges& ranges, const Expr& difference) {
  Truth t = decide(c, bounds(difference, ranges));
  if (t != Truth::Unknown) return t;
  // Separate intervals sometimes know more than the difference (shared atoms aside).
  return decide(c, sub(bounds(b, ranges), bounds(a, ranges)));
}

}  // namespace

Interval bounds(const Expr& e, const Ranges& ranges) {
  switch (e.op()) {
    case Op::Const: return make(e.value(), e.value());
    case Op::Var: {
      auto it = ranges.find(e.name());
      if (it == ranges.end()) return kUnbounded;
      return make(it->second.lo, it->second.hi);
    }
    default: break;
  }
  const Interval a = bounds(e.a(), ranges);
  const Interval b = bounds(e.b(), ranges);
  switch (e.op()) {
    case Op::Add: return add(a, b);
    case Op::Sub: return sub(a, b);
    case Op::Mul: return mul(a, b);
    case Op::FloorDiv: return floordiv(a, b);
    case Op::FloorMod: return floormod(a, b);
    case Op::Min: return Interval{std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
    case Op::Max: return Interval{std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
    default: break;
  }
  DT_CHECK(false, "unreachable sym op in bounds");
  return kUnbounded;
}

const char* cmp_symbol(Cmp c) {
  switch (c) {
    case Cmp::EQ: return "==";
    case Cmp::NE: return "!=";
    case Cmp::LT: return "<";
    case Cmp::LE: return "<=";
    case Cmp::GT: return ">";
    case Cmp::GE: return ">=";
  }
  return "?";
}

Truth prove_basic(Cmp c, const Expr& a, const Expr& b, const Ranges& ranges) {
  return prove_with(c, a, b, ranges, ring_normalize(b - a));
}

Truth prove(Cmp c, const Expr& a, const Expr& b, const Ranges& ranges) {
  return prove_with(c, a, b, ranges, simplify(b - a, ranges));
}

Truth prove_divisible(const Expr& a, int64_t divisor, const Ranges& ranges) {
  DT_CHECK(divisor > 0, "prove_divisible needs a positive divisor");
  if (divisor == 1) return Truth::True;
  Expr r = simplify(floormod(a, Expr::constant(divisor)), ranges);
  const Interval i = bounds(r, ranges);
  if (i.is_point()) return i.lo == 0 ? Truth::True : Truth::False;
  if (i.lo_finite() && i.lo > 0) return Truth::False;
  return Truth::Unknown;
}

}  // namespace difftest::sym
