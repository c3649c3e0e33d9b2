// Sampled soundness of the scalar propagation rules (tolerance/error_model.h: unary_bound,
// binary_bound, comparison_uncertain): perturbing the operands anywhere within their bounds
// never moves the exact (f64) result of the op outside the propagated bound.
//
// For each op and output dtype (f32, f16, bf16): 500 random exact operands a (and b) in the
// op's domain, random operand bounds ea (eb) — relative up to 1e-2 of the operand (1e-1 for
// bf16, see bound_for), log-uniform so that tiny bounds occur too, sometimes plus an absolute
// part, sometimes 0 — and r = f(a) computed in double from the op's documented semantics
// (docs/ops.md). Then f is evaluated at 8-10 perturbed operands per sample (several thousand per
// op and dtype): a' in [a - ea, a + ea] at both ends (the nearest doubles inside the exact
// interval) and at uniform interior points; for binary ops the four corners and interior
// points. The check is
//   |f(a') - r| <= bound.err            unless bound.uncertain.
// The bound also contains the rounding of the output dtype (and a libm budget), which exact
// evaluations in double do not use up; it absorbs the double rounding of f(a') and r, so what
// the samples check is the propagation part. To show that the check is live (and that the
// propagation part is not loose), each op whose bound propagates errors must also reach a
// worst ratio |f(a') - r| / bound.err above 1/2 on some sample: a rule that over-estimates by
// more than 2x everywhere, or a sampler that never perturbs, fails that.
//
// An uncertain element must have a reason a perturbation can show: where a simple witness
// exists (the operand interval reaches log's or sqrt's domain edge, floor/round differ at the
// ends, a divisor interval contains 0), it is checked, so uncertainty is not over-reported there.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "compiler/tensor/float_format.h"
#include "tolerance/error_model.h"

namespace difftest::tolerance {
namespace {

using Rng = std::mt19937_64;

constexpr int kOperandsPerCase = 500;
constexpr int kInteriorPoints = 6;  // per operand, besides the interval's ends (corners for binary ops)

double uniform(Rng& g, double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(g); }
double log_uniform(Rng& g, double lo, double hi) { return std::exp(uniform(g, std::log(lo), std::log(hi))); }
double signed_log_uniform(Rng& g, double lo, double hi) { return (g() & 1 ? -1.0 : 1.0) * log_uniform(g, lo, hi); }
bool one_in(Rng& g, int n) { return g() % static_cast<uint64_t>(n) == 0; }

// An operand's bound: 1 in 10 operands is exact; otherwise relative 1e-9..max_relative of |x|
// (log-uniform), and for 4 in 10 plus an absolute 1e-9..1e-2 (which can exceed a small operand,
// so intervals reach 0). bf16 results pay a rounding of 2^-8 relative, and a libm budget or a
// first-order term of a few u on top, so its operands get bounds up to 10% (values carried
// through a few bf16 roundings): smaller ones would leave the propagation part hidden under the
// rounding terms.
double max_relative(DType out) { return out == DType::bf16 ? 1e-1 : 1e-2; }

double bound_for(Rng& g, double x, DType out) {
  const int kind = static_cast<int>(g() % 10);
  if (kind == 0) return 0;
  double e = log_uniform(g, 1e-9, max_relative(out)) * std::fabs(x);
  if (kind >= 6) e += log_uniform(g, 1e-9, 1e-2);
  return e;
}

// Whether x' lies in [x - e, x + e] exactly: the difference x' - x is recovered without
// rounding (TwoSum), so the ends computed as x +- e in double, which can round outward, are
// not mistaken for points of the interval.
bool within(double x_prime, double x, double e) {
  const double s = x_prime - x;
  const double bb = s - x_prime;  // TwoSum(x_prime, -x): s + residual == x_prime - x exactly
  const double residual = (x_prime - (s - bb)) + (-x - bb);
  if (std::fabs(s) != e) return std::fabs(s) < e;
  return s > 0 ? residual <= 0 : residual >= 0;
}

// The point x + t e (t in [-1, 1]), moved toward x until it lies in the exact interval.
double inside(double x, double e, double t) {
  double y = x + t * e;
  while (!within(y, x, e)) y = std::nextafter(y, x);
  return y;
}

// Checked samples of one rule, and its worst ratio |f(x') - r| / err.
struct Tally {
  int64_t operands = 0, certain = 0, perturbations = 0, violations = 0, uncertain_without_witness = 0;
  double worst_ratio = 0;
  std::string first_violation, first_unwitnessed;

  void check(double moved, double err, const std::string& where) {
    ++perturbations;
    const double ratio = err > 0 ? moved / err : (moved == 0 ? 0 : INFINITY);
    if (!(moved <= err)) {
      if (violations++ == 0)
        first_violation = fmt::format("{}: |f(x') - r| = {:.6g} > bound {:.6g}", where, moved, err);
    }
    if (ratio > worst_ratio) worst_ratio = ratio;
  }
  void unwitnessed(const std::string& where) {
    if (uncertain_without_witness++ == 0) first_unwitnessed = where;
  }
};

std::string summary(const Tally& t) {
  return fmt::format("{} operands ({} certain), {} perturbations, {} violations, worst ratio {:.4g}", t.operands,
                     t.certain, t.perturbations, t.violations, t.worst_ratio);
}

// ----------------------------------------------------------------------------- unary rules

struct UnarySample {
  double x = 0, e = 0;
  double alpha = 0;       // leaky_relu's slope
  double lo = 0, hi = 0;  // clip's bounds
};

enum class Witness {
  None,         // never uncertain
  NonPositive,  // uncertain iff the interval reaches x <= 0 (log, rsqrt)
  Negative,     // uncertain iff the interval reaches x < 0 (sqrt)
  Step,         // uncertain iff f differs at the interval's ends (floor, round)
};

struct UnaryCase {
  std::string name;  // test name
  std::string op;    // the rule's op
  std::function<double(double, const UnarySample&)> f;
  std::function<UnarySample(Rng&, DType)> sample;
  Witness witness = Witness::None;
  bool propagates = true;  // err grows with the operand's bound (not only uncertainty)
};

UnarySample plain(Rng& g, DType out, double x) {
  UnarySample s;
  s.x = x;
  s.e = bound_for(g, x, out);
  return s;
}

// Values near integers and half-integers (exactly on them 1 in 4), where floor and round step.
double near_steps(Rng& g) {
  const double x = uniform(g, -10, 10);
  return one_in(g, 4) ? std::nearbyint(x * 2) / 2 : x;
}

double gelu_erf(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }
double gelu_tanh(double x) { return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x))); }

std::vector<UnaryCase> unary_cases() {
  using S = const UnarySample&;
  const auto u = [](double lo, double hi) {
    return [lo, hi](Rng& g, DType out) { return plain(g, out, uniform(g, lo, hi)); };
  };
  const auto positive = [](Rng& g, DType out) { return plain(g, out, log_uniform(g, 1e-4, 1e4)); };
  // Mostly moderate magnitudes, some near 0 (where abs, relu and leaky_relu kink).
  const auto around_zero = [](Rng& g, DType out) { return plain(g, out, signed_log_uniform(g, 1e-6, 1e3)); };
  // sin/cos: small arguments, and large ones where a relative bound exceeds a period.
  const auto angles = [](Rng& g, DType out) {
    return plain(g, out, one_in(g, 4) ? signed_log_uniform(g, 10, 1e4) : uniform(g, -10, 10));
  };
  return {
      {"exp", "exp", [](double x, S) { return std::exp(x); }, u(-20, 20)},
      {"log", "log", [](double x, S) { return std::log(x); }, positive, Witness::NonPositive},
      {"sqrt", "sqrt", [](double x, S) { return std::sqrt(x); }, positive, Witness::Negative},
      {"rsqrt", "rsqrt", [](double x, S) { return 1 / std::sqrt(x); }, positive, Witness::NonPositive},
      {"tanh", "tanh", [](double x, S) { return std::tanh(x); }, u(-6, 6)},
      {"sigmoid", "sigmoid", [](double x, S) { return 1 / (1 + std::exp(-x)); }, u(-20, 20)},
      {"erf", "erf", [](double x, S) { return std::erf(x); }, u(-5, 5)},
      {"silu", "silu", [](double x, S) { return x / (1 + std::exp(-x)); }, u(-20, 20)},
      {"gelu", "gelu", [](double x, S) { return gelu_erf(x); }, u(-8, 8)},
      {"gelu_tanh", "gelu", [](double x, S) { return gelu_tanh(x); }, u(-8, 8)},
      {"sin", "sin", [](double x, S) { return std::sin(x); }, angles},
      {"cos", "cos", [](double x, S) { return std::cos(x); }, angles},
      {"floor", "floor", [](double x, S) { return std::floor(x); },
       [](Rng& g, DType out) { return plain(g, out, near_steps(g)); }, Witness::Step, false},
      {"round", "round", [](double x, S) { return std::nearbyint(x); },
       [](Rng& g, DType out) { return plain(g, out, near_steps(g)); }, Witness::Step, false},
      {"neg", "neg", [](double x, S) { return -x; }, around_zero},
      {"abs", "abs", [](double x, S) { return std::fabs(x); }, around_zero},
      {"relu", "relu", [](double x, S) { return x > 0 ? x : 0.0; }, around_zero},
      {"leaky_relu", "leaky_relu", [](double x, S s) { return x >= 0 ? x : s.alpha * x; },
       [around_zero](Rng& g, DType out) {
         UnarySample s = around_zero(g, out);
         const double alphas[] = {0.01, 0.2, -0.5, 1.5, 3};
         s.alpha = alphas[g() % 5];
         return s;
       }},
      {"clip", "clip", [](double x, S s) { return std::min(std::max(x, s.lo), s.hi); },
       [](Rng& g, DType out) {
         UnarySample s = plain(g, out, uniform(g, -4, 4));
         s.lo = uniform(g, -3, 0);
         s.hi = s.lo + uniform(g, 0, 3);
         return s;
       }},
  };
}

bool has_witness(const UnaryCase& c, const UnarySample& s, double r) {
  const double low = inside(s.x, s.e, -1), high = inside(s.x, s.e, 1);
  switch (c.witness) {
    case Witness::None: return false;
    case Witness::NonPositive: return low <= 0;
    case Witness::Negative: return low < 0;
    case Witness::Step: return c.f(low, s) != r || c.f(high, s) != r;
  }
  return false;
}

Tally run_unary(const UnaryCase& c, DType out, uint64_t seed) {
  Rng g(seed);
  Tally t;
  for (int n = 0; n < kOperandsPerCase; ++n) {
    const UnarySample s = c.sample(g, out);
    const double r = c.f(s.x, s);
    const ScalarBound b = c.op == "clip" ? unary_bound(c.op, s.x, s.e, r, out, 0, s.lo, s.hi)
                                         : unary_bound(c.op, s.x, s.e, r, out, s.alpha);
    ++t.operands;
    const std::string where = fmt::format("{}({:.17g}) +- {:.6g}", c.name, s.x, s.e);
    if (b.uncertain) {
      if (!has_witness(c, s, r)) t.unwitnessed(where);
      continue;
    }
    ++t.certain;
    std::vector<double> points = {inside(s.x, s.e, -1), inside(s.x, s.e, 1)};
    for (int i = 0; i < kInteriorPoints; ++i) points.push_back(inside(s.x, s.e, uniform(g, -1, 1)));
    for (const double x : points) t.check(std::fabs(c.f(x, s) - r), b.err, fmt::format("{} at x' = {:.17g}", where, x));
  }
  return t;
}

// ----------------------------------------------------------------------------- binary rules

struct BinarySample {
  double a = 0, ea = 0, b = 0, eb = 0;
};

struct BinaryCase {
  std::string op;
  std::function<double(double, double, DType)> f;  // the op's semantics for result dtype `out`
  std::function<BinarySample(Rng&, DType)> sample;
  // Uncertain only when b's interval contains 0 (div). floor_divide and floor_mod are also
  // uncertain when the quotient's interval, widened by a margin for the quotient's rounding
  // (2 u |q|: an implementation may divide in another precision or by a reciprocal), reaches an
  // integer; no simple witness exists for that margin, so their uncertainty is not checked.
  bool zero_divisor_witness = false;
  bool propagates = true;
};

BinarySample with_bounds(Rng& g, DType out, double a, double b) {
  return BinarySample{a, bound_for(g, a, out), b, bound_for(g, b, out)};
}

double floor_mod(double a, double b) {  // docs/ops.md: fmod (exact), then + b when the signs differ
  double r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

std::vector<BinaryCase> binary_cases() {
  const auto mixed = [](Rng& g, DType out) {
    return with_bounds(g, out, signed_log_uniform(g, 1e-3, 1e3), signed_log_uniform(g, 1e-3, 1e3));
  };
  return {
      {"add", [](double a, double b, DType) { return a + b; }, mixed},
      {"sub", [](double a, double b, DType) { return a - b; }, mixed},
      {"mul", [](double a, double b, DType) { return a * b; }, mixed},
      {"div", [](double a, double b, DType) { return a / b; },
       [](Rng& g, DType out) {
         return with_bounds(g, out, signed_log_uniform(g, 1e-3, 1e3), signed_log_uniform(g, 1e-3, 1e2));
       },
       true},
      {"pow", [](double a, double b, DType) { return std::pow(a, b); },
       [](Rng& g, DType out) {
         // A positive base; 1 in 10 a negative base with an exact integer exponent and exact
         // operands (the only perturbation-free use of a negative base).
         if (one_in(g, 10)) return BinarySample{-log_uniform(g, 0.1, 10), 0, std::floor(uniform(g, -4, 5)), 0};
         return with_bounds(g, out, log_uniform(g, 1e-2, 1e2), uniform(g, -4, 4));
       }},
      {"maximum", [](double a, double b, DType) { return std::max(a, b); },
       [](Rng& g, DType out) {
         const double a = signed_log_uniform(g, 1e-3, 1e3);
         return with_bounds(g, out, a,
                            one_in(g, 2) ? a * (1 + uniform(g, -1e-2, 1e-2)) : signed_log_uniform(g, 1e-3, 1e3));
       }},
      {"minimum", [](double a, double b, DType) { return std::min(a, b); },
       [](Rng& g, DType out) {
         const double a = signed_log_uniform(g, 1e-3, 1e3);
         return with_bounds(g, out, a,
                            one_in(g, 2) ? a * (1 + uniform(g, -1e-2, 1e-2)) : signed_log_uniform(g, 1e-3, 1e3));
       }},
      {"atan2", [](double a, double b, DType) { return std::atan2(a, b); },
       [](Rng& g, DType out) {
         // Some points just above or below the negative b axis, where the angle jumps by 2 pi.
         if (one_in(g, 4)) return with_bounds(g, out, signed_log_uniform(g, 1e-6, 1e-1), -uniform(g, 0.1, 10));
         return with_bounds(g, out, uniform(g, -10, 10), uniform(g, -10, 10));
       }},
      {"floor_divide", [](double a, double b, DType out) { return std::floor(round_to_float_dtype(a / b, out)); },
       [](Rng& g, DType out) {
         return with_bounds(g, out, uniform(g, -100, 100), (g() & 1 ? -1 : 1) * uniform(g, 0.5, 10));
       },
       false, false},
      {"floor_mod", [](double a, double b, DType) { return floor_mod(a, b); },
       [](Rng& g, DType out) {
         return with_bounds(g, out, uniform(g, -100, 100), (g() & 1 ? -1 : 1) * uniform(g, 0.5, 10));
       }},
  };
}

Tally run_binary(const BinaryCase& c, DType out, uint64_t seed) {
  Rng g(seed);
  Tally t;
  for (int n = 0; n < kOperandsPerCase; ++n) {
    const BinarySample s = c.sample(g, out);
    const double r = c.f(s.a, s.b, out);
    const ScalarBound bound = binary_bound(c.op, s.a, s.ea, s.b, s.eb, r, out);
    ++t.operands;
    const std::string where =
        fmt::format("{}({:.17g} +- {:.6g}, {:.17g} +- {:.6g}) in {}", c.op, s.a, s.ea, s.b, s.eb, dtype_name(out));
    if (bound.uncertain) {
      if (c.zero_divisor_witness && !within(0, s.b, s.eb)) t.unwitnessed(where);
      continue;
    }
    ++t.certain;
    std::vector<std::pair<double, double>> points;
    for (const double ta : {-1.0, 1.0}) {
      for (const double tb : {-1.0, 1.0}) points.emplace_back(inside(s.a, s.ea, ta), inside(s.b, s.eb, tb));
    }
    for (int i = 0; i < kInteriorPoints; ++i) {
      points.emplace_back(inside(s.a, s.ea, uniform(g, -1, 1)), inside(s.b, s.eb, uniform(g, -1, 1)));
    }
    for (const auto& [a, b] : points) {
      t.check(std::fabs(c.f(a, b, out) - r), bound.err, fmt::format("{} at ({:.17g}, {:.17g})", where, a, b));
    }
  }
  return t;
}

// ----------------------------------------------------------------------------- parameterized tests

constexpr DType kOutDTypes[] = {DType::f32, DType::f16, DType::bf16};

struct UnaryParam {
  UnaryCase c;
  DType out;
};

std::vector<UnaryParam> unary_params() {
  std::vector<UnaryParam> v;
  for (const auto& c : unary_cases()) {
    for (const DType t : kOutDTypes) v.push_back({c, t});
  }
  return v;
}

void PrintTo(const UnaryParam& p, std::ostream* os) { *os << p.c.name << " in " << dtype_name(p.out); }

class UnaryRule : public ::testing::TestWithParam<UnaryParam> {};

TEST_P(UnaryRule, PerturbedOperandStaysWithinTheBound) {
  const UnaryCase& c = GetParam().c;
  const Tally t =
      run_unary(c, GetParam().out, std::hash<std::string>{}(c.name) ^ static_cast<uint64_t>(GetParam().out));
  RecordProperty("samples", summary(t));
  SCOPED_TRACE(summary(t));
  EXPECT_EQ(t.violations, 0) << t.first_violation;
  EXPECT_EQ(t.uncertain_without_witness, 0) << "uncertain without a witness: " << t.first_unwitnessed;
  // Enough certain operands that the check means something.
  EXPECT_GE(t.certain, kOperandsPerCase / 2);
  if (c.propagates) {
    EXPECT_GT(t.worst_ratio, 0.5) << "no sample comes within 2x of the bound";
  } else {
    EXPECT_GT(t.operands - t.certain, 0) << "no sample crosses a step: the uncertainty logic is untested";
  }
}

INSTANTIATE_TEST_SUITE_P(Elementwise, UnaryRule, ::testing::ValuesIn(unary_params()),
                         [](const ::testing::TestParamInfo<UnaryParam>& p) {
                           return p.param.c.name + "_" + dtype_name(p.param.out);
                         });

struct BinaryParam {
  BinaryCase c;
  DType out;
};

std::vector<BinaryParam> binary_params() {
  std::vector<BinaryParam> v;
  for (const auto& c : binary_cases()) {
    for (const DType t : kOutDTypes) v.push_back({c, t});
  }
  return v;
}

void PrintTo(const BinaryParam& p, std::ostream* os) { *os << p.c.op << " in " << dtype_name(p.out); }

class BinaryRule : public ::testing::TestWithParam<BinaryParam> {};

TEST_P(BinaryRule, PerturbedOperandsStayWithinTheBound) {
  const BinaryCase& c = GetParam().c;
  const Tally t = run_binary(c, GetParam().out, std::hash<std::string>{}(c.op) ^ static_cast<uint64_t>(GetParam().out));
  RecordProperty("samples", summary(t));
  SCOPED_TRACE(summary(t));
  EXPECT_EQ(t.violations, 0) << t.first_violation;
  EXPECT_EQ(t.uncertain_without_witness, 0) << "uncertain without a zero divisor: " << t.first_unwitnessed;
  EXPECT_GE(t.certain, kOperandsPerCase / 2);
  if (c.propagates) {
    EXPECT_GT(t.worst_ratio, 0.5) << "no sample comes within 2x of the bound";
  } else {
    EXPECT_GT(t.operands - t.certain, 0) << "no sample crosses a step: the uncertainty logic is untested";
  }
}

INSTANTIATE_TEST_SUITE_P(Elementwise, BinaryRule, ::testing::ValuesIn(binary_params()),
                         [](const ::testing::TestParamInfo<BinaryParam>& p) {
                           return p.param.c.op + "_" + dtype_name(p.param.out);
                         });

// The neighbour of the normal dtype value x in direction dir (+1 or -1).
double adjacent(double x, DType t, double dir) {
  const int precision = t == DType::f32 ? 24 : t == DType::f16 ? 11 : 8;
  const double m = std::fabs(x);
  const int e = std::ilogb(m);
  const double above = std::ldexp(1.0, e - precision + 1);           // spacing within |x|'s binade
  const double below = m == std::ldexp(1.0, e) ? above / 2 : above;  // spacing just under |x|
  const bool grows = (dir > 0) == (x > 0);
  return x + dir * (grows ? above : below);
}

// floor_divide rounds the quotient to the dtype before the floor (docs/ops.md). Directed case,
// with the implementation's operands a', b values of the dtype: q = n - 1/4 exactly
// representable, a = q b, and a' the dtype value just below n b (b > 0; above for b < 0) whose
// quotient a'/b lies within half an ulp of n, so it rounds to n. The interval of exact
// quotients [q - eq, q + eq] (eq = |a' - a| / |b|) stays below n, so floor is n - 1 all over
// it, but the implementation's floor(round(a'/b)) is n: the element must be uncertain (or its
// bound cover 1). The rule exempts exactly representable quotients from its rounding margin,
// which is right only when the quotient is not perturbed (ea = eb = 0).
TEST(ElementwiseFloorDivide, PerturbedQuotientRoundingUpToAnIntegerIsUncertain) {
  for (const DType out : kOutDTypes) {
    SCOPED_TRACE(dtype_name(out));
    Rng g(17);
    int constructed = 0, violations = 0;
    std::string first;
    for (int attempt = 0; attempt < 5000 && constructed < 200; ++attempt) {
      const double b = (g() & 1 ? -1 : 1) * round_to_float_dtype(uniform(g, 1, 2), out);
      if (std::fabs(b) == 1 || std::fabs(b) == 2) continue;  // a power of two divides exactly
      const auto n = static_cast<double>(std::uniform_int_distribution<int>(-60, 60)(g));
      if (n == 0) continue;
      // The dtype value next to n b on the side where a'/b < n.
      const double nb = n * b;  // exact: 6 by 24 significant bits
      double a_prime = round_to_float_dtype(nb, out);
      if (a_prime / b >= n) a_prime = adjacent(a_prime, out, b > 0 ? -1 : 1);
      if (round_to_float_dtype(a_prime / b, out) != n) continue;  // does not round up to n
      const double q = n - 0.25, a = q * b;                       // exact: q has at most 8 significant bits
      double ea = std::fabs(a_prime - a);
      while (!within(a_prime, a, ea)) ea = std::nextafter(ea, INFINITY);
      ++constructed;
      const double r = std::floor(round_to_float_dtype(a / b, out));
      const double got = std::floor(round_to_float_dtype(a_prime / b, out));
      const ScalarBound bound = binary_bound("floor_divide", a, ea, b, 0, r, out);
      if (!bound.uncertain && std::fabs(got - r) > bound.err) {
        if (violations++ == 0) {
          first = fmt::format(
              "floor_divide(a = {:.17g} +- {:.9g}, b = {:.9g}) in {}: certain with bound {}, but a' = "
              "{:.9g} (a {} value in the interval) gives floor(round(a'/b)) = {} != {}",
              a, ea, b, dtype_name(out), bound.err, a_prime, dtype_name(out), got, r);
        }
      }
    }
    EXPECT_GE(constructed, 50);
    EXPECT_EQ(violations, 0) << violations << " of " << constructed << " constructed cases; first: " << first;
  }
}

// atan2(+0, b) = pi and atan2(-0, b) = -pi for b < 0 (and 0 against pi for b = +-0): an exact
// zero operand, whose sign a correct implementation may have either way (round of a value within
// its error of zero), is uncertain there, and certain where its sign does not move the result.
TEST(ElementwiseAtan2, AZeroWhoseSignDecidesBetweenPiAndMinusPiIsUncertain) {
  for (const DType out : kOutDTypes) {
    SCOPED_TRACE(dtype_name(out));
    for (const double a : {0.0, -0.0}) {
      for (const double b : {-1.5, -0.0, 0.0}) {
        const double r = std::atan2(a, b);
        // The witness: the other zero (of a, or of b when b is one) moves the result by pi or more.
        EXPECT_GT(std::fabs((b == 0 ? std::atan2(a, -b) : std::atan2(-a, b)) - r), 3) << a << ", " << b;
        EXPECT_TRUE(binary_bound("atan2", a, 0, b, 0, r, out).uncertain) << a << ", " << b;
      }
      EXPECT_FALSE(binary_bound("atan2", a, 0, 1.5, 0, std::atan2(a, 1.5), out).uncertain) << a;
    }
  }
}

// ----------------------------------------------------------------------------- comparisons

// Hand-derived: the intervals [a - ea, a + ea] and [b - eb, b + eb] (dyadic values, so every
// sum below is exact) either touch or not.
TEST(ElementwiseComparison, UncertainExactlyWhenTheIntervalsTouch) {
  // 1 +- 0.25 and 1.5 +- 0.125: [0.75, 1.25] and [1.375, 1.625] are apart, so a < b for every
  // perturbation.
  EXPECT_FALSE(comparison_uncertain(1, 0.25, 1.5, 0.125));
  // 1 +- 0.25 and 1.5 +- 0.25: both reach 1.25, where a == b (less flips to false).
  EXPECT_TRUE(comparison_uncertain(1, 0.25, 1.5, 0.25));
  // Overlapping intervals, in either order of the operands.
  EXPECT_TRUE(comparison_uncertain(2, 1, 1, 0.5));
  EXPECT_TRUE(comparison_uncertain(1, 0.5, 2, 1));
  // Equal exact operands: equal is decided (no perturbation), not uncertain.
  EXPECT_FALSE(comparison_uncertain(3, 0, 3, 0));
  // Equal operands with any slack: a + e > b - e makes greater true somewhere, equal elsewhere.
  EXPECT_TRUE(comparison_uncertain(3, 0x1p-30, 3, 0));
  EXPECT_TRUE(comparison_uncertain(3, 0, 3, 0x1p-30));
  // Distinct exact operands: certain however close.
  EXPECT_FALSE(comparison_uncertain(1, 0, std::nextafter(1.0, 2.0), 0));
  // One exact operand next to an uncertain one: -0.5 +- 0.5 reaches 0 = b.
  EXPECT_TRUE(comparison_uncertain(-0.5, 0.5, 0, 0));
  EXPECT_FALSE(comparison_uncertain(-0.5, 0.25, 0, 0));
}

// Sampled: when certain, every comparison gives the same answer at every perturbation; when
// uncertain, the facing ends of the two intervals reverse (or tie) the operands' order.
TEST(ElementwiseComparison, CertainMeansNoPerturbationFlipsAComparison) {
  Rng g(99);
  int certain = 0, uncertain = 0;
  for (int n = 0; n < 4000; ++n) {
    const double a = signed_log_uniform(g, 1e-3, 1e3);
    const double b = one_in(g, 2) ? a * (1 + uniform(g, -1e-2, 1e-2)) : signed_log_uniform(g, 1e-3, 1e3);
    const double ea = bound_for(g, a, DType::f32), eb = bound_for(g, b, DType::f32);
    const auto outcome = [](double x, double y) { return (x < y ? 1 : 0) | (x == y ? 2 : 0) | (x > y ? 4 : 0); };
    const int want = outcome(a, b);
    if (comparison_uncertain(a, ea, b, eb)) {
      ++uncertain;
      // The ends of the intervals facing each other cross (or meet), so the order of a' and b'
      // there differs from that of a and b. (Equal operands: any slack separates them.)
      bool flips = true;
      if (a < b) flips = inside(a, ea, 1) >= inside(b, eb, -1);
      if (a > b) flips = inside(a, ea, -1) <= inside(b, eb, 1);
      EXPECT_TRUE(flips) << fmt::format("{:.17g} +- {:.6g} vs {:.17g} +- {:.6g}", a, ea, b, eb);
      continue;
    }
    ++certain;
    for (int i = 0; i < 8; ++i) {
      const double ta = i < 4 ? (i & 1 ? 1.0 : -1.0) : uniform(g, -1, 1);
      const double tb = i < 4 ? (i & 2 ? 1.0 : -1.0) : uniform(g, -1, 1);
      const double x = inside(a, ea, ta), y = inside(b, eb, tb);
      ASSERT_EQ(outcome(x, y), want) << fmt::format("{:.17g} +- {:.6g} vs {:.17g} +- {:.6g} at ({:.17g}, {:.17g})", a,
                                                    ea, b, eb, x, y);
    }
  }
  EXPECT_GT(certain, 1000);
  EXPECT_GT(uncertain, 100);
}

}  // namespace
}  // namespace difftest::tolerance

namespace difftest::tolerance {
namespace {

// erf by Abramowitz and Stegun 7.1.26 (max absolute error 1.5e-7; OpenVINO's CPU plugin
// answered erf(0.0458) 25 f32 ulps from the correctly rounded value, as this form does), rounded
// to f32, is within erf's f32 bound everywhere: a legitimate implementation, not a finding.
TEST(ElementwiseErf, TheAbramowitzStegunApproximationIsWithinTheBound) {
  const auto approximated = [](double x) {
    const double t = 1 / (1 + 0.3275911 * std::fabs(x));
    const double poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
    return std::copysign(1 - poly * std::exp(-x * x), x);
  };
  double worst = 0;
  for (int i = -4000; i <= 4000; ++i) {
    const double x = static_cast<float>(i / 1000.0);
    const double r = std::erf(x);
    const double got = static_cast<float>(approximated(x));
    const double bound = unary_bound("erf", x, 0, r, DType::f32).err;
    ASSERT_LE(std::fabs(got - r), bound) << "x = " << x;
    worst = std::max(worst, std::fabs(got - r) / bound);
  }
  EXPECT_GT(worst, 0.1) << "the form's error should be a real share of the bound, or the test says nothing";
}

}  // namespace
}  // namespace difftest::tolerance
