// Soundness of the summation factor g(K) (tolerance/error_model.h): a dot product or a sum of K
// terms accumulated in dtype `acc`, in any order and with or without FMA, must satisfy
//   |computed - exact| <= g(K) * sum |terms|.
//
// Model of the simulated implementations (what a kernel in the accumulator dtype does):
//   - f32: real float arithmetic; a product is rounded to float, then added (one rounding
//     each); the FMA orders use std::fma on floats (one rounding for product + add).
//   - f16 / bf16: every operation's exact result is rounded once to the format with
//     round_to_float_dtype (RNE). A product is rounded to the accumulator dtype and then
//     added (two roundings); the FMA orders form product + partial sum exactly and round once.
//     The operands are drawn so that every such exact result fits in a double (checked at run
//     time below), so the simulation never rounds twice.
// A dot product of K terms therefore pays at most K roundings on its first product (its own
// rounding plus K - 1 additions), which is what summation_factor(K) = (1 + u)^K - 1 counts; the
// matmul rule (dot_product_bound) uses the same K = contraction length. A plain sum is the
// dot product with b = 1 (exact products), i.e. at most K - 1 roundings.
//
// The exact value is accumulated in __float128. Products of the operands are exact there (at
// most 48 significant bits); the sum of K <= 8192 of them is exact except when the terms span
// more than ~113 - 48 binary orders, and even then its error is below K * 2^-113 * sum|terms|
// <= 2^-100 sum|terms|, negligible against the smallest factor tested (2^-24 at K = 1 in f32).
//
// Underflow: the operands are drawn so that no product or partial sum can be subnormal with a
// nonzero rounding error (f16 operands sit on a 2^-12 grid, so every exact intermediate is a
// multiple of 2^-24, f16's smallest subnormal; bf16 and f32 operands stay far above the
// subnormal range). The relative model then holds for every operation and no absolute term is
// added to the bound.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/tensor/float_format.h"
#include "tests/support/eval_util.h"
#include "tolerance/bounds.h"
#include "tolerance/compare.h"
#include "tolerance/error_model.h"

namespace difftest::tolerance {
namespace {

using Quad = __float128;

// ----------------------------------------------------------------------------- arithmetic

// a * b, which must be exact in double (checked: the FMA residual is zero).
double exact_product(double a, double b) {
  const double p = a * b;
  if (std::fma(a, b, -p) != 0) throw std::logic_error(fmt::format("{} * {} is not exact in double", a, b));
  return p;
}

// x + y, which must be exact in double (checked with Knuth's TwoSum).
double exact_sum(double x, double y) {
  const double s = x + y;
  const double yy = s - x;
  const double residual = (x - (s - yy)) + (y - yy);
  if (residual != 0) throw std::logic_error(fmt::format("{} + {} is not exact in double", x, y));
  return s;
}

// Arithmetic in one accumulator dtype: every operation rounds its exact result once.
class Accumulator {
 public:
  explicit Accumulator(DType t) : t_(t) {}
  DType dtype() const { return t_; }

  double mul(double a, double b) const {
    if (t_ == DType::f32) return static_cast<double>(static_cast<float>(a) * static_cast<float>(b));
    return round_to_float_dtype(exact_product(a, b), t_);
  }
  double add(double x, double y) const {
    if (t_ == DType::f32) return static_cast<double>(static_cast<float>(x) + static_cast<float>(y));
    return round_to_float_dtype(exact_sum(x, y), t_);
  }
  // a * b + c with a single rounding.
  double fma(double a, double b, double c) const {
    if (t_ == DType::f32) {
      return static_cast<double>(std::fma(static_cast<float>(a), static_cast<float>(b), static_cast<float>(c)));
    }
    return round_to_float_dtype(exact_sum(exact_product(a, b), c), t_);
  }

 private:
  DType t_;
};

// ----------------------------------------------------------------------------- orders

enum class Order { Sequential, Reversed, Pairwise, Blocked4, Blocked8, Blocked16, SplitK4, Fma, FmaBlocked8 };
constexpr std::array<Order, 9> kOrders = {Order::Sequential, Order::Reversed, Order::Pairwise,
                                          Order::Blocked4,   Order::Blocked8, Order::Blocked16,
                                          Order::SplitK4,    Order::Fma,      Order::FmaBlocked8};

const char* order_name(Order o) {
  switch (o) {
    case Order::Sequential: return "sequential";
    case Order::Reversed: return "reversed";
    case Order::Pairwise: return "pairwise";
    case Order::Blocked4: return "blocked-4-lanes";
    case Order::Blocked8: return "blocked-8-lanes";
    case Order::Blocked16: return "blocked-16-lanes";
    case Order::SplitK4: return "split-k-4-chunks";
    case Order::Fma: return "fma-sequential";
    case Order::FmaBlocked8: return "fma-blocked-8-lanes";
  }
  return "?";
}

using Vec = std::vector<double>;

double sequential(const Accumulator& acc, const Vec& a, const Vec& b, size_t lo, size_t hi, bool reversed, bool fused) {
  double s = 0;  // adding the first term to 0 is exact, so only the term's own rounding counts
  for (size_t n = lo; n < hi; ++n) {
    const size_t i = reversed ? hi - 1 - (n - lo) : n;
    s = fused ? acc.fma(a[i], b[i], s) : acc.add(s, acc.mul(a[i], b[i]));
  }
  return s;
}

// Recursive halving: the partial sums of the two halves are added.
double pairwise(const Accumulator& acc, const Vec& a, const Vec& b, size_t lo, size_t hi) {
  if (hi - lo == 1) return acc.mul(a[lo], b[lo]);
  const size_t mid = lo + (hi - lo) / 2;
  return acc.add(pairwise(acc, a, b, lo, mid), pairwise(acc, a, b, mid, hi));
}

// SIMD-style: lane l accumulates the terms i with i % lanes == l, then the lanes are reduced
// by a halving tree (a horizontal add).
double blocked(const Accumulator& acc, const Vec& a, const Vec& b, size_t lanes, bool fused) {
  Vec lane(lanes, 0.0);
  for (size_t i = 0; i < a.size(); ++i) {
    double& s = lane[i % lanes];
    s = fused ? acc.fma(a[i], b[i], s) : acc.add(s, acc.mul(a[i], b[i]));
  }
  for (size_t h = lanes / 2; h >= 1; h /= 2) {
    for (size_t l = 0; l < h; ++l) lane[l] = acc.add(lane[l], lane[l + h]);
  }
  return lane[0];
}

// Split-K as in GPU GEMMs: contiguous chunks summed independently, the partials added in order.
double split_k(const Accumulator& acc, const Vec& a, const Vec& b, size_t chunks) {
  const size_t len = (a.size() + chunks - 1) / chunks;
  double s = 0;
  for (size_t lo = 0; lo < a.size(); lo += len) {
    s = acc.add(s, sequential(acc, a, b, lo, std::min(a.size(), lo + len), false, false));
  }
  return s;
}

double evaluate(const Accumulator& acc, Order o, const Vec& a, const Vec& b) {
  switch (o) {
    case Order::Sequential: return sequential(acc, a, b, 0, a.size(), false, false);
    case Order::Reversed: return sequential(acc, a, b, 0, a.size(), true, false);
    case Order::Pairwise: return pairwise(acc, a, b, 0, a.size());
    case Order::Blocked4: return blocked(acc, a, b, 4, false);
    case Order::Blocked8: return blocked(acc, a, b, 8, false);
    case Order::Blocked16: return blocked(acc, a, b, 16, false);
    case Order::SplitK4: return split_k(acc, a, b, 4);
    case Order::Fma: return sequential(acc, a, b, 0, a.size(), false, true);
    case Order::FmaBlocked8: return blocked(acc, a, b, 8, true);
  }
  return NAN;
}

struct Exact {
  double value;    // sum a_i b_i
  double abs_sum;  // sum |a_i b_i|
  Quad quad;       // the value before rounding to double, for the error
};

Exact exact_dot(const Vec& a, const Vec& b) {
  Quad s = 0, m = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const Quad t = static_cast<Quad>(a[i]) * static_cast<Quad>(b[i]);
    s += t;
    m += t < 0 ? -t : t;
  }
  return Exact{static_cast<double>(s), static_cast<double>(m), s};
}

double error_of(double computed, const Exact& e) {
  const Quad d = static_cast<Quad>(computed) - e.quad;
  return static_cast<double>(d < 0 ? -d : d);
}

// ----------------------------------------------------------------------------- data

enum class Signs { Random, Positive, Cancelling };

const char* signs_name(Signs s) {
  switch (s) {
    case Signs::Random: return "random-signs";
    case Signs::Positive: return "all-positive";
    case Signs::Cancelling: return "cancelling-pairs";
  }
  return "?";
}

// A positive operand exactly representable in `t`, with a random 1.x significand and a binary
// exponent spread over up to `spread` octaves, in the range where the simulation is exact and
// nothing overflows at K = 8192 (see the header comment):
//   f32   [2^-16, 2^17)     products >= 2^-32, far from f32's subnormals (2^-126)
//   bf16  [2^-5, 2^6]       multiples of 2^-12; every product, partial sum and FMA result is a
//                           multiple of 2^-24 below 2^25, so exact in double
//   f16   [2^-12, 2]        on a 2^-12 grid (so small values have fewer significant bits);
//                           products <= 4 are multiples of 2^-24, and 8192 of them stay below
//                           f16's largest finite value 65504
double magnitude(std::mt19937_64& rng, DType t, int spread) {
  std::uniform_real_distribution<double> significand(1, 2);
  const double m = significand(rng);
  if (t == DType::f32) {
    const int s = std::min(spread, 16);
    return round_to_float_dtype(std::ldexp(m, std::uniform_int_distribution<int>(-s, s)(rng)), t);
  }
  if (t == DType::bf16) {
    const int s = std::min(spread, 5);
    return round_to_float_dtype(std::ldexp(m, std::uniform_int_distribution<int>(-s, s)(rng)), t);
  }
  const int s = std::min(spread, 11);
  const double x = std::ldexp(m, std::uniform_int_distribution<int>(-s, 0)(rng));
  return std::max(0x1p-12, round_to_float_dtype(std::nearbyint(x * 4096) / 4096, DType::f16));
}

struct Terms {
  Vec a, b;
};

// K terms a_i * b_i (b = 1 for a plain sum, so that its products are exact).
Terms make_terms(uint64_t seed, int64_t k, DType t, int spread, Signs signs, bool dot) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution coin(0.5);
  Terms x;
  const auto n = static_cast<size_t>(k);
  x.a.resize(n);
  x.b.assign(n, 1.0);
  for (size_t i = 0; i < n; ++i) {
    x.a[i] = magnitude(rng, t, spread);
    if (dot) x.b[i] = magnitude(rng, t, spread);
    if (signs == Signs::Random && coin(rng)) x.a[i] = -x.a[i];
    if (coin(rng) && dot && signs != Signs::Positive) {  // sign on either factor; the product's sign is what counts
      x.a[i] = -x.a[i];
      x.b[i] = -x.b[i];
    }
  }
  if (signs == Signs::Cancelling) {
    // The second half repeats the first with the product negated (the exact sum is 0 for even
    // K: the worst case relative to |sum|), then everything is shuffled.
    for (size_t i = 0; i < n / 2; ++i) {
      x.a[n / 2 + i] = -x.a[i];
      x.b[n / 2 + i] = x.b[i];
    }
    std::vector<size_t> perm(n);
    for (size_t i = 0; i < n; ++i) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    Terms y = x;
    for (size_t i = 0; i < n; ++i) {
      y.a[i] = x.a[perm[i]];
      y.b[i] = x.b[perm[i]];
    }
    return y;
  }
  return x;
}

Options with_mode(BoundMode m, double lambda = 6) {
  Options o;
  o.mode = m;
  o.lambda = lambda;
  return o;
}

// ----------------------------------------------------------------------------- deterministic

// RapidCheck scales its ranges with the run's size (small in the first runs); the lengths must
// be able to reach 8192 in every run, so the generators are fixed at the nominal size.
template <typename T>
rc::Gen<T> full_range(rc::Gen<T> g) {
  return rc::gen::resize(100, std::move(g));
}

// Lengths: an octave 0..13 uniformly, then a length within it, so K from 1 to 8192 are all
// represented (a uniform length would almost never be small; this way ~1 run in 7 has
// K >= 4096). Each run checks a dot product and a plain sum, in f32, f16 and bf16, with each sign
// pattern, in all nine orders.
RC_GTEST_PROP(SummationSoundness, DeterministicFactorBoundsEveryOrderAndAccumulator, ()) {
  const int octave = *full_range(rc::gen::inRange(0, 14));
  const int64_t k =
      *full_range(rc::gen::inRange<int64_t>(int64_t{1} << octave, std::min<int64_t>(int64_t{2} << octave, 8193)));
  const int spread = *full_range(rc::gen::inRange(0, 17));
  const auto seed = *full_range(rc::gen::arbitrary<uint64_t>());
  for (const bool dot : {true, false}) {
    for (const DType t : {DType::f32, DType::f16, DType::bf16}) {
      for (const Signs signs : {Signs::Random, Signs::Positive, Signs::Cancelling}) {
        const Accumulator acc(t);
        const Terms x = make_terms(seed, k, t, spread, signs, dot);
        const Exact exact = exact_dot(x.a, x.b);
        const double bound = summation_factor(k, t, with_mode(BoundMode::Deterministic)) * exact.abs_sum;
        for (const Order o : kOrders) {
          const double got = evaluate(acc, o, x.a, x.b);
          const double err = error_of(got, exact);
          if (!(err <= bound)) {
            RC_FAIL(
                fmt::format("{} of K={} {} terms (spread {}, seed {}) accumulated in {} ({}): |got - exact| = "
                            "{:.6g} (got {:.17g}, exact {:.17g}) > g(K) sum|terms| = {:.6g}",
                            dot ? "dot product" : "sum", k, signs_name(signs), spread, seed, dtype_name(t),
                            order_name(o), err, got, exact.value, bound));
          }
          // An implementation declared pairwise is promised the shallower factor.
          if (o == Order::Pairwise) {
            const double pair_bound = summation_factor(k, t, with_mode(BoundMode::Pairwise)) * exact.abs_sum;
            RC_ASSERT(err <= pair_bound);
          }
        }
      }
    }
  }
}

// The check above can fail: f16 accumulation of many positive terms stalls (the partial sum's
// half-ulp outgrows the terms), which the f16 factor allows but the f32 factor must not. This
// is the catalog fault "accumulates in f16 where acc=f32 was declared".
TEST(SummationSoundness, F16AccumulationExceedsTheF32Factor) {
  const int64_t k = 4096;
  const Terms x = make_terms(7, k, DType::f16, 4, Signs::Positive, true);
  const Exact exact = exact_dot(x.a, x.b);
  const double err = error_of(evaluate(Accumulator(DType::f16), Order::Sequential, x.a, x.b), exact);
  const double f32_bound = summation_factor(k, DType::f32, with_mode(BoundMode::Deterministic)) * exact.abs_sum;
  const double f16_bound = summation_factor(k, DType::f16, with_mode(BoundMode::Deterministic)) * exact.abs_sum;
  EXPECT_GT(err, f32_bound);
  EXPECT_LE(err, f16_bound);
}

// ----------------------------------------------------------------------------- probabilistic

// 2000 random f32 dot products with K log-uniform in 64..4096, each in a random one of the nine
// orders, sign patterns and spreads. Probabilistic mode (lambda = 6) states a failure rate of
// about 2 exp(-18) = 3e-8 per element, so 2000 trials must see no exceedance. Measured with this
// seed: the worst error is 0.18 of the lambda = 6 bound (about 1.1 sqrt(K) u sum|t|); with
// smaller lambdas 1 trial exceeds lambda = 1, 19 (0.95%) exceed lambda = 0.5 and 76 (3.8%) exceed
// lambda = 0.25, all of them all-positive data in the sequential, reversed or FMA-sequential
// order (partial sums growing like i |t| make the error about sqrt(K) u sum|t| / 3 at random;
// cancelling data and pairwise or blocked orders stay far lower). The test asserts more than
// 0.5% exceedances at lambda = 0.5, half the measured rate: the counting does detect bounds
// that are too small.
TEST(SummationProbabilistic, F32DotProductsStayWithinLambda6AndExceedLambdaHalf) {
  std::mt19937_64 rng(20240611);
  std::uniform_real_distribution<double> unit(0, 1);
  const int trials = 2000;
  int over_6 = 0, over_half = 0;
  double worst_6 = 0;
  for (int trial = 0; trial < trials; ++trial) {
    const auto k = static_cast<int64_t>(std::llround(64 * std::exp2(6 * unit(rng))));
    const Order o = kOrders[std::uniform_int_distribution<size_t>(0, kOrders.size() - 1)(rng)];
    const Signs signs = std::array{Signs::Random, Signs::Positive, Signs::Cancelling}[rng() % 3];
    const int spread = std::uniform_int_distribution<int>(0, 8)(rng);
    const Terms x = make_terms(rng(), k, DType::f32, spread, signs, true);
    const Exact exact = exact_dot(x.a, x.b);
    const double err = error_of(evaluate(Accumulator(DType::f32), o, x.a, x.b), exact);
    const double b6 = summation_factor(k, DType::f32, with_mode(BoundMode::Probabilistic, 6)) * exact.abs_sum;
    const double bh = summation_factor(k, DType::f32, with_mode(BoundMode::Probabilistic, 0.5)) * exact.abs_sum;
    over_6 += err > b6;
    over_half += err > bh;
    worst_6 = std::max(worst_6, err / b6);
  }
  std::cout << fmt::format(
      "probabilistic f32: {} of {} exceed lambda=6 (worst err/bound {:.3g}), {} exceed lambda=0.5\n", over_6, trials,
      worst_6, over_half);
  EXPECT_EQ(over_6, 0);
  EXPECT_GT(over_half, trials / 200);
}

// f16 and bf16 accumulators in probabilistic mode: 2000 random dot products and sums with K
// log-uniform in 16..8192, in every order, sign pattern and spread, must stay within
// summation_error (lambda = 6), whose drift term K u |sum| carries the systematic stalls of
// same-sign data; without it (lambda sqrt(K) u sum|t| alone, as for f32) the all-positive data
// exceed the bound, which the test asserts too so that it can tell the two apart. On cancelling
// data the bound must be below the deterministic one once K >= 1024 (the gain it exists for).
TEST(SummationProbabilistic, NarrowAccumulatorsStayWithinTheBoundWithDrift) {
  std::mt19937_64 rng(20261126);
  std::uniform_real_distribution<double> unit(0, 1);
  const Options o = with_mode(BoundMode::Probabilistic, 6);
  const int trials = 2000;
  int over = 0, over_without_drift = 0, tighter = 0, cancelling_large = 0;
  double worst = 0;
  for (int trial = 0; trial < trials; ++trial) {
    const auto k = static_cast<int64_t>(std::llround(16 * std::exp2(9 * unit(rng))));
    const DType t = rng() % 2 ? DType::f16 : DType::bf16;
    const Signs signs = std::array{Signs::Random, Signs::Positive, Signs::Cancelling}[rng() % 3];
    const int spread = std::uniform_int_distribution<int>(0, 8)(rng);
    const Terms x = make_terms(rng(), k, t, spread, signs, rng() % 2 == 0);
    const Exact exact = exact_dot(x.a, x.b);
    const double bound = summation_error(k, t, o, exact.abs_sum, std::fabs(exact.value));
    const double without_drift = o.lambda * std::sqrt(static_cast<double>(k)) * unit_roundoff(t) * exact.abs_sum;
    for (const Order order : kOrders) {
      const double err = error_of(evaluate(Accumulator(t), order, x.a, x.b), exact);
      over += err > bound;
      over_without_drift += err > without_drift;
      worst = std::max(worst, err / bound);
    }
    if (signs != Signs::Positive && k >= 1024) {
      ++cancelling_large;
      tighter += bound < summation_factor(k, t, o) * exact.abs_sum;
    }
  }
  std::cout << fmt::format(
      "probabilistic f16/bf16: {} of {} sums exceed the bound (worst err/bound {:.3g}), {} exceed it without the "
      "drift term; the bound is tighter than the deterministic one on {} of {} cancelling sums of K >= 1024\n",
      over, trials * kOrders.size(), worst, over_without_drift, tighter, cancelling_large);
  EXPECT_EQ(over, 0);
  EXPECT_GT(over_without_drift, 0);
  EXPECT_EQ(tighter, cancelling_large);
  EXPECT_GT(cancelling_large, 0);
}

// ----------------------------------------------------------------------------- K scaling

// A K = 4096 f32 matmul computed in an 8-lane blocked order (as a SIMD kernel does) is a correct
// implementation; our K-scaled bound accepts it, while tvm.testing.assert_allclose's fixed
// rtol = atol = 1e-7 rejects it: the legal reordering moves results by far more than 1e-7
// relative once partial sums of 4096 terms are rounded. Measured with this seed: worst ratio
// |got - ref| / bound 5e-4 (deterministic) and 5.3e-3 (probabilistic), against a failing
// threshold of 2 (the safety factor); worst |got - ref| / (1e-7 + 1e-7 |ref|) = 2.0, with 12 of
// the 32 elements failing the fixed rule.
TEST(KScaling, F32Matmul4096BlockedPassesOurBoundButFailsTvmFixed1e7) {
  const int64_t m = 4, k = 4096, n = 8;
  const Program p = testing::program_of("", fmt::format("  %a: f32[{0}, {1}] = param\n"
                                                        "  %b: f32[{1}, {2}] = param\n"
                                                        "  %y: f32[{0}, {2}] = matmul(%a, %b, acc=f32)",
                                                        m, k, n));
  // Activations in [0, 1) (post-ReLU / softmax-like), weights in [-0.5, 1), biased positive so
  // that the outputs do not cancel to near zero: magnitudes of an MLP layer.
  std::mt19937_64 rng(4096);
  std::uniform_real_distribution<double> act(0, 1), weight(-0.5, 1);
  Vec a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n));
  for (auto& v : a) v = round_to_float_dtype(act(rng), DType::f32);
  for (auto& v : b) v = round_to_float_dtype(weight(rng), DType::f32);
  const std::map<std::string, Tensor> inputs = {{"a", testing::tensor(DType::f32, {m, k}, a)},
                                                {"b", testing::tensor(DType::f32, {k, n}, b)}};
  // Row i of a and column j of b.
  const auto operands = [&](int64_t i, int64_t j) {
    Terms t;
    for (int64_t q = 0; q < k; ++q) {
      t.a.push_back(a[static_cast<size_t>(i * k + q)]);
      t.b.push_back(b[static_cast<size_t>(q * n + j)]);
    }
    return t;
  };

  // The candidate: each output element an 8-lane blocked f32 dot product.
  const Accumulator f32(DType::f32);
  Vec got(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const Terms t = operands(i, j);
      got[static_cast<size_t>(i * n + j)] = evaluate(f32, Order::Blocked8, t.a, t.b);
    }
  }
  const Tensor candidate = testing::tensor(DType::f32, {m, n}, got);

  std::string report;
  for (const BoundMode mode : {BoundMode::Deterministic, BoundMode::Probabilistic}) {
    const Options opt = with_mode(mode);
    const BoundedProgram bp = bound_program(p, {}, inputs, opt);
    ASSERT_FALSE(bp.invalid) << bp.invalid_reason;
    const Comparison c = compare_outputs(p, bp, {candidate}, opt);
    EXPECT_TRUE(c.passed()) << c.to_json().dump();
    EXPECT_EQ(c.outputs.at(0).uncertain, 0);
    report += fmt::format("our worst ratio ({}) = {:.3g}; ", bound_mode_name(mode), c.worst_ratio());
    RecordProperty(std::string("worst_ratio_") + bound_mode_name(mode), fmt::format("{:.3g}", c.worst_ratio()));
  }

  // tvm.testing.assert_allclose(rtol=1e-7, atol=1e-7) against the exact product.
  int64_t tvm_failing = 0;
  double tvm_worst = 0;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const Terms t = operands(i, j);
      const double ref = exact_dot(t.a, t.b).value;
      const double ratio = std::fabs(got[static_cast<size_t>(i * n + j)] - ref) / (1e-7 + 1e-7 * std::fabs(ref));
      tvm_failing += ratio > 1;
      tvm_worst = std::max(tvm_worst, ratio);
    }
  }
  report += fmt::format("worst |got - ref| / (1e-7 + 1e-7 |ref|) = {:.3g} ({} of {} elements fail rtol=atol=1e-7)",
                        tvm_worst, tvm_failing, m * n);
  RecordProperty("worst_ratio_tvm_1e-7", fmt::format("{:.3g}", tvm_worst));
  std::cout << report << "\n";
  EXPECT_GT(tvm_failing, 0);
}

}  // namespace
}  // namespace difftest::tolerance
