// Codegen numerics, checked by calling JIT-compiled kernels directly on many values: f16/bf16
// results are rounded after every operation exactly as float_format.h rounds, casts follow the
// IR's conversion rules, integer floor division/modulo follow the floor semantics (with /0 -> 0
// and wrapping), min/max propagate NaN; allocations work; symbols are per module.
//
// Expected values come from float_format.h, checked.h and plain C++ arithmetic on doubles,
// never from the code under test. Numeric tests run at LLVM levels 0 and 2, since the
// optimizer must not change any result.
#include "compiler/codegen/codegen.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "compiler/codegen/jit.h"
#include "compiler/support/checked.h"
#include "compiler/support/diagnostics.h"
#include "compiler/loop/parser.h"
#include "compiler/tensor/float_format.h"
#include "compiler/tensor/tensor.h"
#include "tests/support/jit_util.h"

namespace difftest::codegen {
namespace {

constexpr int kLevels[] = {0, 2};
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Same value, or both NaN; signed zeros differ.
bool same_value(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

Tensor from_bits16(DType t, const std::vector<uint16_t>& bits) {
  Tensor out(t, {static_cast<int64_t>(bits.size())});
  std::memcpy(out.data(), bits.data(), bits.size() * 2);
  return out;
}

double value16(DType t, uint16_t bits) { return t == DType::f16 ? f16_value(bits) : bf16_value(bits); }
uint16_t bits16(DType t, double v) { return t == DType::f16 ? f16_bits(v) : bf16_bits(v); }

// Operand triples for the narrow float tests: random bit patterns (every class: NaN, inf,
// subnormals, normals) plus ties, subnormal results and overflow crafted for each format.
struct Operands {
  std::vector<uint16_t> x, y, z;
  void add(DType t, double a, double b, double c) {
    x.push_back(bits16(t, a));
    y.push_back(bits16(t, b));
    z.push_back(bits16(t, c));
  }
};

Operands narrow_operands(DType t) {
  Operands o;
  const double ulp1 = t == DType::f16 ? std::ldexp(1, -10) : std::ldexp(1, -7);  // ulp of 1
  const double tiny = t == DType::f16 ? std::ldexp(1, -24) : std::ldexp(1, -133);  // smallest subnormal
  const double big = t == DType::f16 ? 65504 : std::ldexp(255, 120);             // largest finite
  const double big_half_ulp = t == DType::f16 ? 16 : std::ldexp(1, 119);
  o.add(t, 1, ulp1 / 2, ulp1 / 2);                // ties to even twice: ((1 + h) + h) == 1, not 1 + ulp
  o.add(t, 1 + ulp1, ulp1 / 2, 0);                // tie rounds up to the even 1 + 2 ulp
  o.add(t, 3 * tiny, 0.5, tiny);                  // 1.5 tiny (product) ties to 2 tiny
  o.add(t, 5 * tiny, 0.5, -tiny);                 // 2.5 tiny ties to 2 tiny
  o.add(t, big, big_half_ulp, big);               // overflow: the tie above the max goes to inf
  o.add(t, big, big_half_ulp / 2, 0);             // below the tie: stays at the max
  o.add(t, kInf, -kInf, 1);                       // NaN from inf - inf, and 0 * inf below
  o.add(t, 0, kInf, kNaN);
  o.add(t, -0.0, 0.0, -0.0);                      // signed zeros
  o.add(t, kNaN, 1, 2);
  std::mt19937 rng(t == DType::f16 ? 1 : 2);
  for (int i = 0; i < 30000; ++i) {
    o.x.push_back(static_cast<uint16_t>(rng()));
    o.y.push_back(static_cast<uint16_t>(rng()));
    o.z.push_back(static_cast<uint16_t>(rng()));
  }
  // Close exponents, where additions produce ties most often.
  for (int i = 0; i < 10000; ++i) {
    const auto base = static_cast<uint16_t>(rng() & 0xBFFF);
    o.x.push_back(base);
    o.y.push_back(static_cast<uint16_t>(base ^ (rng() & 0x83FF)));
    o.z.push_back(static_cast<uint16_t>(rng()));
  }
  return o;
}

constexpr const char* kNarrowOps = R"(func @ops(X: {0}[n], Y: {0}[n], Z: {0}[n], Add: {0}[n], Sub: {0}[n], Mul: {0}[n], Div: {0}[n], Chain: {0}[n], Fma: {0}[n], Sqrt: {0}[n], Rnd: {0}[n], Min: {0}[n], Max: {0}[n]) dims(n) {{
  for (i, 0, n) serial {{
    Add[i] = (X[i] + Y[i])
    Sub[i] = (X[i] - Y[i])
    Mul[i] = (X[i] * Y[i])
    Div[i] = (X[i] / Y[i])
    Chain[i] = ((X[i] + Y[i]) + Z[i])
    Fma[i] = ((X[i] * Y[i]) + Z[i])
    Sqrt[i] = sqrt(X[i])
    Rnd[i] = (round(X[i]) + (floor(Y[i]) - ceil(fabs(Z[i]))))
    Min[i] = min(X[i], Y[i])
    Max[i] = max(X[i], Y[i])
  }}
}}
)";

double nan_min(double a, double b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::min(a, b); }
double nan_max(double a, double b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::max(a, b); }

void check_narrow_float_ops(DType t, int level, codegen::MachineCode effort) {
  SCOPED_TRACE(fmt::format("{} at LLVM level {}, {} machine code", dtype_name(t), level,
                           effort == codegen::MachineCode::Fast ? "fast" : "optimized"));
  const Operands o = narrow_operands(t);
  const auto n = static_cast<int64_t>(o.x.size());
  Tensor x = from_bits16(t, o.x), y = from_bits16(t, o.y), z = from_bits16(t, o.z);
  std::vector<Tensor> out(10, Tensor(t, {n}));
  std::vector<Tensor*> buffers = {&x, &y, &z};
  for (auto& r : out) buffers.push_back(&r);
  testing::run_kernel(fmt::format(kNarrowOps, dtype_name(t)), "ops", buffers, {n}, level, effort);

  auto r = [t](double v) { return round_to_float_dtype(v, t); };
  const char* names[] = {"+", "-", "*", "/", "(x + y) + z", "x * y + z", "sqrt", "round etc", "min", "max"};
  int failures = 0;
  for (int64_t i = 0; i < n && failures < 20; ++i) {
    const double a = value16(t, o.x[i]), b = value16(t, o.y[i]), c = value16(t, o.z[i]);
    const double want[] = {r(a + b),        r(a - b),       r(a * b),         r(a / b),
                           r(r(a + b) + c), r(r(a * b) + c), r(std::sqrt(a)), r(std::nearbyint(a) + r(std::floor(b) - std::ceil(std::fabs(c)))),
                           nan_min(a, b),   nan_max(a, b)};
    for (size_t k = 0; k < out.size(); ++k) {
      const double got = value16(t, static_cast<const uint16_t*>(static_cast<const void*>(out[k].data()))[i]);
      if (!same_value(got, want[k])) {
        ADD_FAILURE() << names[k] << " of " << a << ", " << b << ", " << c << ": got " << got << ", want " << want[k];
        ++failures;
      }
    }
  }
}

// The fast machine code selects scalar f16 as bits and F16C conversions (scalar_halves_as_bits.h),
// after the IR passes have narrowed some of its arithmetic to LLVM's half.
TEST(Codegen, F16RoundsAfterEveryOperation) {
  for (const codegen::MachineCode effort : {codegen::MachineCode::Optimized, codegen::MachineCode::Fast}) {
    for (int level : kLevels) check_narrow_float_ops(DType::f16, level, effort);
  }
}

TEST(Codegen, Bf16RoundsAfterEveryOperation) {
  for (const codegen::MachineCode effort : {codegen::MachineCode::Optimized, codegen::MachineCode::Fast}) {
    for (int level : kLevels) check_narrow_float_ops(DType::bf16, level, effort);
  }
}

TEST(Codegen, WideFloatMinMaxPropagateNaN) {
  const std::vector<double> values = {kNaN, -kInf, -2.5, -0.0, 0.0, 1.0, 3.0, kInf};
  for (DType t : {DType::f32, DType::f64}) {
    for (int level : kLevels) {
      std::vector<double> xs, ys;
      for (double a : values) {
        for (double b : values) {
          xs.push_back(a);
          ys.push_back(b);
        }
      }
      const auto n = static_cast<int64_t>(xs.size());
      Tensor x = Tensor::from_doubles(t, {n}, xs), y = Tensor::from_doubles(t, {n}, ys);
      Tensor lo(t, {n}), hi(t, {n});
      testing::run_kernel(fmt::format(R"(func @mm(X: {0}[n], Y: {0}[n], Lo: {0}[n], Hi: {0}[n]) dims(n) {{
  for (i, 0, n) serial {{
    Lo[i] = min(X[i], Y[i])
    Hi[i] = max(X[i], Y[i])
  }}
}}
)",
                                      dtype_name(t)),
                          "mm", {&x, &y, &lo, &hi}, {n}, level);
      for (int64_t i = 0; i < n; ++i) {
        EXPECT_TRUE(same_value(lo.get(i), nan_min(xs[i], ys[i]))) << "min(" << xs[i] << ", " << ys[i] << ") = " << lo.get(i);
        EXPECT_TRUE(same_value(hi.get(i), nan_max(xs[i], ys[i]))) << "max(" << xs[i] << ", " << ys[i] << ") = " << hi.get(i);
      }
    }
  }
}

// ------------------------------------------------------------------------------- casts

constexpr const char* kCast = R"(func @cast(X: {0}[n], Y: {1}[n]) dims(n) {{
  for (i, 0, n) serial {{
    Y[i] = cast<{1}>(X[i])
  }}
}}
)";

// Casts every element of `x` to `to` and returns the result.
Tensor cast_all(const Tensor& x, DType to, int level) {
  Tensor in = x;
  Tensor out(to, {x.numel()});
  testing::run_kernel(fmt::format(kCast, dtype_name(x.dtype()), dtype_name(to)), "cast", {&in, &out}, {x.numel()},
                      level);
  return out;
}

std::vector<double> random_doubles(uint32_t seed, int count, int min_exp, int max_exp) {
  std::mt19937_64 rng(seed);
  std::vector<double> v;
  for (int i = 0; i < count; ++i) {
    const double mantissa = 1 + static_cast<double>(rng() >> 11) * std::ldexp(1, -53);
    const int e = min_exp + static_cast<int>(rng() % static_cast<uint64_t>(max_exp - min_exp + 1));
    v.push_back((rng() & 1 ? -1 : 1) * std::ldexp(mantissa, e));
  }
  return v;
}

TEST(Codegen, FloatToNarrowFloatCastsRoundOnce) {
  for (DType to : {DType::f16, DType::bf16}) {
    const double ulp1 = to == DType::f16 ? std::ldexp(1, -10) : std::ldexp(1, -7);
    // Just above a tie by less than an f32 ulp: rounding through f32 would tie to even instead.
    std::vector<double> xs = {1 + ulp1 / 2 + std::ldexp(1, -40), 1 + ulp1 / 2 - std::ldexp(1, -40), 1 + ulp1 / 2,
                              1 + 1.5 * ulp1, 65520, 65520 - std::ldexp(1, -20), std::ldexp(1, -25),
                              std::ldexp(1, -25) + std::ldexp(1, -60), std::ldexp(1, -134) + std::ldexp(1, -170),
                              std::ldexp(1, -134), 3.5e38, -3.5e38, kInf, -kInf, kNaN, -0.0, 1e300, 1e-300};
    const auto random = random_doubles(3, 20000, to == DType::f16 ? -27 : -136, to == DType::f16 ? 17 : 129);
    xs.insert(xs.end(), random.begin(), random.end());
    for (DType from : {DType::f64, DType::f32}) {
      const Tensor x = Tensor::from_doubles(from, {static_cast<int64_t>(xs.size())}, xs);
      for (int level : kLevels) {
        const Tensor y = cast_all(x, to, level);
        for (int64_t i = 0, bad = 0; i < x.numel() && bad < 10; ++i) {
          const double want = round_to_float_dtype(x.get(i), to);
          if (!same_value(y.get(i), want)) {
            ++bad;
            ADD_FAILURE() << fmt::format("cast<{}>({}: {:.17g}) = {:.17g}, want {:.17g} (level {})", dtype_name(to),
                                         dtype_name(from), x.get(i), y.get(i), want, level);
          }
        }
      }
    }
  }
}

TEST(Codegen, NarrowFloatToNarrowFloatCasts) {
  std::vector<uint16_t> bits;
  for (uint32_t b = 0; b < 65536; ++b) bits.push_back(static_cast<uint16_t>(b));
  for (DType from : {DType::f16, DType::bf16}) {
    const DType to = from == DType::f16 ? DType::bf16 : DType::f16;
    const Tensor x = from_bits16(from, bits);
    for (DType target : {to, DType::f32, DType::f64}) {
      const Tensor y = cast_all(x, target, 0);
      for (int64_t i = 0, bad = 0; i < x.numel() && bad < 10; ++i) {
        const double want = round_to_float_dtype(x.get(i), target);
        if (!same_value(y.get(i), want)) {
          ++bad;
          ADD_FAILURE() << fmt::format("cast<{}>({}: {:.9g}) = {:.9g}", dtype_name(target), dtype_name(from), x.get(i), y.get(i));
        }
      }
    }
  }
}

std::vector<int64_t> interesting_ints(uint32_t seed) {
  std::vector<int64_t> v = {0, 1, -1, 2, 255, 256, -129, 65504, 65519, 65520, 65536, -65520, INT32_MAX, INT32_MIN,
                            int64_t{1} << 53, (int64_t{1} << 53) + 1, (int64_t{1} << 62) + (int64_t{1} << 54),
                            (int64_t{1} << 60) + (int64_t{1} << 52) + (int64_t{1} << 20), INT64_MAX, INT64_MIN,
                            INT64_MIN + 1};
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 20000; ++i) {
    const int shift = static_cast<int>(rng() % 64);
    v.push_back(static_cast<int64_t>(rng() >> shift) * (rng() & 1 ? -1 : 1));
  }
  return v;
}

TEST(Codegen, IntegerToFloatCastsRoundOnce) {
  const std::vector<int64_t> xs = interesting_ints(4);
  const auto n = static_cast<int64_t>(xs.size());
  for (DType from : {DType::i64, DType::i32, DType::u32, DType::i8, DType::u8}) {
    const Tensor x = Tensor::from_ints(from, {n}, xs);  // wraps into `from`
    for (DType to : {DType::bf16, DType::f16, DType::f32, DType::f64}) {
      for (int level : kLevels) {
        const Tensor y = cast_all(x, to, level);
        for (int64_t i = 0, bad = 0; i < n && bad < 5; ++i) {
          const double want = round_int_to_float_dtype(x.get_int(i), to);
          if (!same_value(y.get(i), want)) {
            ++bad;
            ADD_FAILURE() << fmt::format("cast<{}>({}: {}) = {:.17g}, want {:.17g} (level {})", dtype_name(to),
                                         dtype_name(from), x.get_int(i), y.get(i), want, level);
          }
        }
      }
    }
  }
}

// Integers beyond 2^53 just above a tie of the target format, by less than half an f64 ulp:
// converting through f64 first turns them into exact ties, which round to even (down).
TEST(Codegen, LargeI64ToNarrowFloatCastsRoundOnce) {
  std::vector<int64_t> xs;
  for (DType to : {DType::bf16, DType::f32}) {
    const int precision = to == DType::bf16 ? 8 : 24;
    for (int top = 54 + precision - 8; top <= 62; ++top) {
      for (int64_t above : {int64_t{1}, int64_t{3}, int64_t{1} << 8}) {
        const int64_t tie = (int64_t{1} << top) + (int64_t{1} << (top - precision));
        xs.push_back(tie + above);
        xs.push_back(-(tie + above));
      }
    }
  }
  const auto n = static_cast<int64_t>(xs.size());
  const Tensor x = Tensor::from_ints(DType::i64, {n}, xs);
  for (DType to : {DType::bf16, DType::f32}) {
    const Tensor y = cast_all(x, to, 0);
    for (int64_t i = 0; i < n; ++i) {
      const double want = round_int_to_float_dtype(xs[i], to);
      EXPECT_TRUE(same_value(y.get(i), want))
          << fmt::format("cast<{}>(i64: {}) = {:.17g}, want {:.17g}", dtype_name(to), xs[i], y.get(i), want);
    }
  }
}

TEST(Codegen, FloatToIntegerCastsTruncateSaturateAndMapNaNToZero) {
  std::vector<double> xs = {0.5,   -0.5,   1.7,    -1.7,   2.5,    127.9,  128,    -128.5, -129,  255.9,  256,
                            -0.0,  1e10,   -1e10,  3e9,    4.3e9,  -3e9,   9.3e18, 1e19,   -1e19, 65504,  -65504,
                            kInf,  -kInf,  kNaN,   2147483647.5, -2147483648.7, 4294967295.9};
  const auto random = random_doubles(5, 5000, -2, 66);
  xs.insert(xs.end(), random.begin(), random.end());
  const auto n = static_cast<int64_t>(xs.size());
  for (DType from : {DType::f64, DType::f32, DType::f16, DType::bf16}) {
    const Tensor x = Tensor::from_doubles(from, {n}, xs);  // rounds into `from`
    for (DType to : {DType::i64, DType::i32, DType::i8, DType::u8, DType::u32, DType::boolean}) {
      for (int level : kLevels) {
        const Tensor y = cast_all(x, to, level);
        for (int64_t i = 0, bad = 0; i < n && bad < 5; ++i) {
          const int64_t want = float_to_int_dtype(x.get(i), to);
          if (y.get_int(i) != want) {
            ++bad;
            ADD_FAILURE() << fmt::format("cast<{}>({}: {:.17g}) = {}, want {} (level {})", dtype_name(to),
                                         dtype_name(from), x.get(i), y.get_int(i), want, level);
          }
        }
      }
    }
  }
}

TEST(Codegen, IntegerToIntegerCastsWrap) {
  const std::vector<int64_t> xs = interesting_ints(6);
  const auto n = static_cast<int64_t>(xs.size());
  const DType ints[] = {DType::i64, DType::i32, DType::i8, DType::u8, DType::u32, DType::boolean};
  for (DType from : ints) {
    const Tensor x = Tensor::from_ints(from, {n}, xs);
    for (DType to : ints) {
      if (to == from) continue;
      const Tensor y = cast_all(x, to, 0);
      for (int64_t i = 0, bad = 0; i < n && bad < 5; ++i) {
        const int64_t want = wrap_to_int_dtype(x.get_int(i), to);
        if (y.get_int(i) != want) {
          ++bad;
          ADD_FAILURE() << fmt::format("cast<{}>({}: {}) = {}, want {}", dtype_name(to), dtype_name(from), x.get_int(i),
                                       y.get_int(i), want);
        }
      }
    }
  }
}

// ------------------------------------------------------------------------------ integers

constexpr const char* kIntOps = R"(func @iops(A: {0}[n], B: {0}[n], Q: {0}[n], R: {0}[n], Lo: {0}[n], Hi: {0}[n]) dims(n) {{
  for (i, 0, n) serial {{
    Q[i] = (A[i] // B[i])
    R[i] = (A[i] % B[i])
    Lo[i] = min(A[i], B[i])
    Hi[i] = max(A[i], B[i])
  }}
}}
)";

// Floor division and modulo with the IR's definitions: x // 0 == x % 0 == 0, and the one
// overflowing quotient (MIN // -1) wraps to MIN.
int64_t want_floordiv(int64_t a, int64_t b, DType t) {
  if (b == 0) return 0;
  if (const auto q = checked::try_floordiv(a, b)) return wrap_to_int_dtype(*q, t);
  return INT64_MIN;  // INT64_MIN // -1 == 2^63 wraps
}
int64_t want_floormod(int64_t a, int64_t b) { return b == 0 ? 0 : *checked::try_floormod(a, b); }

TEST(Codegen, IntegerFloorDivisionModuloAndMinMax) {
  for (DType t : {DType::i64, DType::i32, DType::i8, DType::u8, DType::u32}) {
    const int64_t lo = int_min(t), hi = int_max(t);
    std::vector<int64_t> values = {lo, lo + 1, -7, -3, -2, -1, 0, 1, 2, 3, 7, hi - 1, hi};
    std::vector<int64_t> as, bs;
    for (int64_t a : values) {
      for (int64_t b : values) {
        if (a < lo || b < lo) continue;  // negative values of unsigned dtypes
        as.push_back(a);
        bs.push_back(b);
      }
    }
    const auto n = static_cast<int64_t>(as.size());
    for (int level : kLevels) {
      Tensor a = Tensor::from_ints(t, {n}, as), b = Tensor::from_ints(t, {n}, bs);
      Tensor q(t, {n}), r(t, {n}), mn(t, {n}), mx(t, {n});
      testing::run_kernel(fmt::format(kIntOps, dtype_name(t)), "iops", {&a, &b, &q, &r, &mn, &mx}, {n}, level);
      for (int64_t i = 0; i < n; ++i) {
        const std::string what = fmt::format("{} {} and {} (level {})", dtype_name(t), as[i], bs[i], level);
        EXPECT_EQ(q.get_int(i), want_floordiv(as[i], bs[i], t)) << "// of " << what;
        EXPECT_EQ(r.get_int(i), want_floormod(as[i], bs[i])) << "% of " << what;
        EXPECT_EQ(mn.get_int(i), std::min(as[i], bs[i])) << "min of " << what;
        EXPECT_EQ(mx.get_int(i), std::max(as[i], bs[i])) << "max of " << what;
      }
    }
  }
}

TEST(Codegen, IntegerArithmeticWraps) {
  const std::vector<int64_t> as = {INT64_MAX, INT64_MIN, 3, -5}, bs = {1, -1, INT64_MAX, INT64_MIN};
  Tensor a = Tensor::from_ints(DType::i64, {4}, as), b = Tensor::from_ints(DType::i64, {4}, bs);
  Tensor sum(DType::i64, {4}), prod(DType::i64, {4}), narrow(DType::i8, {4});
  testing::run_kernel(R"(func @wrap(A: i64[n], B: i64[n], S: i64[n], P: i64[n], N: i8[n]) dims(n) {
  for (i, 0, n) serial {
    S[i] = (A[i] + B[i])
    P[i] = (A[i] * B[i])
    N[i] = (cast<i8>(A[i]) * 100:i8)
  }
}
)",
                      "wrap", {&a, &b, &sum, &prod, &narrow}, {4}, 0);
  for (size_t i = 0; i < as.size(); ++i) {
    const auto ua = static_cast<uint64_t>(as[i]), ub = static_cast<uint64_t>(bs[i]);
    EXPECT_EQ(sum.get_int(static_cast<int64_t>(i)), static_cast<int64_t>(ua + ub));
    EXPECT_EQ(prod.get_int(static_cast<int64_t>(i)), static_cast<int64_t>(ua * ub));
    EXPECT_EQ(narrow.get_int(static_cast<int64_t>(i)), wrap_to_int_dtype(wrap_to_int_dtype(as[i], DType::i8) * 100, DType::i8));
  }
}

// ---------------------------------------------------------------------------- allocations

TEST(Codegen, LocalAndGlobalAllocations) {
  const char* text = R"(func @allocs(X: f32[n], Sum: f32[1], Rev: f32[n], Cnt: i64[1]) dims(n) {
  alloc acc: f32[1] local {
    acc[0] = 0.0:f32
    for (i, 0, n) serial {
      acc[0] = (acc[0] + X[i])
    }
    Sum[0] = acc[0]
  }
  alloc tmp: f32[n] global {
    for (i, 0, n) serial {
      tmp[((n - 1) - i)] = X[i]
    }
    for (j, 0, n) serial {
      Rev[j] = tmp[j]
    }
  }
  Cnt[0] = 0
  for (k, 0, 200000) serial {
    alloc big: f64[512] local {
      big[511] = cast<f64>(k)
      alloc per_n: i64[n] local {
        per_n[(n - 1)] = 1
        Cnt[0] = (Cnt[0] + per_n[(n - 1)])
      }
      Cnt[0] = (Cnt[0] + (cast<i64>(big[511]) - k))
    }
  }
}
)";
  for (int level : kLevels) {
    const int64_t n = 37;
    std::vector<double> xs;
    for (int64_t i = 0; i < n; ++i) xs.push_back(0.1 * static_cast<double>(i * i) - 7);
    Tensor x = Tensor::from_doubles(DType::f32, {n}, xs);
    Tensor sum(DType::f32, {1}), rev(DType::f32, {n}), count(DType::i64, {1});
    // 200000 iterations of a 4 KiB local allocation: only works if the allocation is not
    // repeated on the stack per iteration.
    testing::run_kernel(text, "allocs", {&x, &sum, &rev, &count}, {n}, level);
    float want = 0;
    for (int64_t i = 0; i < n; ++i) want += static_cast<float>(x.get(i));
    EXPECT_EQ(sum.get(0), static_cast<double>(want));
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(rev.get(i), x.get(n - 1 - i));
    EXPECT_EQ(count.get_int(0), 200000);
  }
}

// ------------------------------------------------------------------------------- symbols

constexpr const char* kConstant = R"(func @k(Y: i64[1]) dims() {{
  Y[0] = {}
}}

func @twice(Y: i64[1]) dims() {{
  Y[0] = (Y[0] * 2)
}}
)";

TEST(Codegen, LlvmTextUsesTheModulePrefix) {
  const loop::Module m = loop::parse_module(fmt::format(kConstant, 5));
  const std::string text = emit_llvm_text(m, "pfx42_");
  EXPECT_NE(text.find("define void @pfx42_k("), std::string::npos) << text;
  EXPECT_NE(text.find("define void @pfx42_twice("), std::string::npos) << text;
  EXPECT_EQ(text.find("@k("), std::string::npos) << text;
  EXPECT_NE(emit_llvm_text(m, "other_").find("define void @other_k("), std::string::npos);
}

// Whatever x86 model the host is, LLVM tunes for the generic one: the host's model decided how
// far loops unroll, and with it the compile time and the code (see emit_module).
TEST(Codegen, EveryFunctionIsTunedForTheGenericModel) {
  const loop::Module m = loop::parse_module(fmt::format(kConstant, 5));
  const std::string text = emit_llvm_text(m, "t_");
  EXPECT_NE(text.find(R"("tune-cpu"="generic")"), std::string::npos) << text;
  EXPECT_EQ(text.find("attributes #1"), std::string::npos) << "both functions share the one attribute set\n" << text;
}

TEST(Codegen, DuplicateFunctionNamesAreRefused) {
  loop::Module m = loop::parse_module(fmt::format(kConstant, 5));
  m.funcs.push_back(m.funcs[0]);
  EXPECT_THROW(emit_llvm_text(m, "dup_"), InternalError);
}

TEST(Codegen, ModulesWithTheSameFunctionNamesCoexist) {
  const loop::Module m1 = testing::for_this_host(loop::parse_module(fmt::format(kConstant, 111)));
  const loop::Module m2 = testing::for_this_host(loop::parse_module(fmt::format(kConstant, -222)));
  const JitModule a(m1, JitOptions{0});
  const JitModule b(m2, JitOptions{2});
  EXPECT_NE(a.kernel("k"), b.kernel("k"));
  int64_t ya = 0, yb = 0;
  void* pa[] = {&ya};
  void* pb[] = {&yb};
  b.kernel("k")(pb, nullptr);
  a.kernel("k")(pa, nullptr);
  EXPECT_EQ(ya, 111);
  EXPECT_EQ(yb, -222);
  a.kernel("twice")(pa, nullptr);
  b.kernel("twice")(pb, nullptr);
  EXPECT_EQ(ya, 222);
  EXPECT_EQ(yb, -444);
  {
    // A third module created and destroyed in between leaves the others intact.
    const JitModule c(testing::for_this_host(loop::parse_module(fmt::format(kConstant, 7))), JitOptions{0});
    int64_t yc = 0;
    void* pc[] = {&yc};
    c.kernel("k")(pc, nullptr);
    EXPECT_EQ(yc, 7);
  }
  a.kernel("k")(pa, nullptr);
  EXPECT_EQ(ya, 111);
  EXPECT_THROW(a.kernel("missing"), InternalError);
}

}  // namespace
}  // namespace difftest::codegen
