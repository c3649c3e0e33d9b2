#include "compiler/tensor/float_format.h"

#include <bit>
#include <cmath>
#include <limits>

#include "compiler/support/diagnostics.h"

namespace difftest {

namespace {

struct Format {
  int precision;  // significand bits, the implicit one included
  int emin;       // exponent of the smallest normal: 2^emin
  int emax;       // exponent of the largest finite: < 2^(emax + 1)
};

constexpr Format kF16{11, -14, 15};
constexpr Format kBf16{8, -126, 127};
constexpr Format kF32{24, -126, 127};

uint64_t bits_of(double v) { return std::bit_cast<uint64_t>(v); }

// 2^k for a normal double's exponent k, built from its bits: ldexp costs a libm call per
// value, and the ensemble rounds every intermediate of every member.
double power_of_two(int k) { return std::bit_cast<double>(static_cast<uint64_t>(k + 1023) << 52); }

// The exponent of a positive double (floor(log2(a))); below the normal range, a value less
// than every format's smallest normal.
int exponent_of(double a) {
  const auto biased = static_cast<int>(bits_of(a) >> 52);
  return biased == 0 ? -1023 : biased - 1023;
}

// Rounds a finite, non-negative double to the format (ties to even). Adding c = 2^52 * quantum
// leaves a sum whose ulp is the quantum, so the addition does the only rounding, in the
// default mode (ties to even), and subtracting c again is exact.
double round_magnitude(double a, const Format& f) {
  if (a == 0) return 0;
  const int exponent = std::max(exponent_of(a), f.emin);
  if (exponent > f.emax) return std::numeric_limits<double>::infinity();
  const double c = power_of_two(exponent - (f.precision - 1) + 52);
  const double r = (a + c) - c;
  const double max_finite = (2.0 - power_of_two(1 - f.precision)) * power_of_two(f.emax);
  if (r > max_finite) return std::numeric_limits<double>::infinity();
  return r;
}

double round_to(double v, const Format& f) {
  if (std::isnan(v) || std::isinf(v)) return v;
  const double r = round_magnitude(std::fabs(v), f);
  return std::signbit(v) ? -r : r;
}

}  // namespace

double round_to_float_dtype(double v, DType t) {
  switch (t) {
    case DType::f64: return v;
    case DType::f32:
      // In range the hardware conversion rounds once (RNE); beyond it C++ leaves it undefined.
      if (std::fabs(v) <= std::numeric_limits<float>::max()) return static_cast<double>(static_cast<float>(v));
      return round_to(v, kF32);
    case DType::f16: return round_to(v, kF16);
    case DType::bf16: return round_to(v, kBf16);
    default: break;
  }
  DT_CHECK(false, "round_to_float_dtype with a non-float dtype");
  return v;
}

double round_int_to_float_dtype(int64_t x, DType t) {
  if (t == DType::f64 || (x > -(int64_t{1} << 53) && x < (int64_t{1} << 53))) {
    if (t == DType::f64) {
      return static_cast<double>(x);  // one rounding to 53 bits
    }
    return round_to_float_dtype(static_cast<double>(x), t);  // exact in double, then one rounding
  }
  // |x| >= 2^53: round the magnitude to the target precision with integer arithmetic.
  const int precision = t == DType::f32 ? kF32.precision : t == DType::f16 ? kF16.precision : kBf16.precision;
  const bool negative = x < 0;
  uint64_t m = negative ? uint64_t{0} - static_cast<uint64_t>(x) : static_cast<uint64_t>(x);
  const int bits = 64 - __builtin_clzll(m);
  const int drop = bits - precision;
  uint64_t kept = m >> drop;
  const uint64_t rest = m & ((uint64_t{1} << drop) - 1);
  const uint64_t half = uint64_t{1} << (drop - 1);
  if (rest > half || (rest == half && (kept & 1))) ++kept;
  double r = std::ldexp(static_cast<double>(kept), drop);  // exact: kept has <= 25 bits
  if (t == DType::f16) r = std::numeric_limits<double>::infinity();  // far above 65504
  return negative ? -r : r;
}

uint16_t f16_bits(double v) {
  const double r = round_to(v, kF16);
  const uint16_t sign = std::signbit(r) ? 0x8000 : 0;
  if (std::isnan(r)) return sign | 0x7e00;
  const double a = std::fabs(r);
  if (std::isinf(a)) return sign | 0x7c00;
  if (a < power_of_two(kF16.emin)) {
    return sign | static_cast<uint16_t>(a * power_of_two(24));  // subnormal: multiples of 2^-24
  }
  // r has 11 significant bits: the top 10 of the double's 52-bit fraction.
  const auto mantissa = static_cast<uint16_t>((bits_of(a) >> 42) & 0x3ff);
  return sign | static_cast<uint16_t>((exponent_of(a) + 15) << 10) | mantissa;
}

double f16_value(uint16_t bits) {
  const int exponent = (bits >> 10) & 0x1f;
  const uint64_t mantissa = bits & 0x3ff;
  double magnitude;
  if (exponent == 0x1f) {
    if (mantissa) return std::numeric_limits<double>::quiet_NaN();
    magnitude = std::numeric_limits<double>::infinity();
  } else if (exponent == 0) {
    magnitude = static_cast<double>(mantissa) * power_of_two(-24);  // subnormal
  } else {
    magnitude = std::bit_cast<double>(static_cast<uint64_t>(exponent - 15 + 1023) << 52 | mantissa << 42);
  }
  return (bits & 0x8000) ? -magnitude : magnitude;
}

uint16_t bf16_bits(double v) {
  const double r = round_to(v, kBf16);
  if (std::isnan(r)) return std::signbit(r) ? 0xffc0 : 0x7fc0;
  // Exact: r is representable in bf16, hence in f32.
  return static_cast<uint16_t>(std::bit_cast<uint32_t>(static_cast<float>(r)) >> 16);
}

double bf16_value(uint16_t bits) {
  return static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(bits) << 16));
}

int64_t float_to_int_dtype(double v, DType t) {
  if (t == DType::boolean) return v != 0 ? 1 : 0;
  if (std::isnan(v)) return 0;
  const double lo = static_cast<double>(int_min(t));
  const double hi = static_cast<double>(int_max(t));
  const double truncated = std::trunc(v);
  if (truncated <= lo) return int_min(t);
  if (truncated >= hi) return int_max(t);  // for i64, hi rounds up to 2^63: saturate before converting
  return static_cast<int64_t>(truncated);
}

int64_t wrap_to_int_dtype(int64_t x, DType t) {
  switch (t) {
    case DType::boolean: return x != 0 ? 1 : 0;
    case DType::i64: return x;
    case DType::i32: return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(x)));
    case DType::i8: return static_cast<int8_t>(static_cast<uint8_t>(static_cast<uint64_t>(x)));
    case DType::u8: return static_cast<uint8_t>(static_cast<uint64_t>(x));
    case DType::u32: return static_cast<uint32_t>(static_cast<uint64_t>(x));
    default: break;
  }
  DT_CHECK(false, "wrap_to_int_dtype with a float dtype");
  return 0;
}

}  // namespace difftest
