#include "reference/perturbation.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "compiler/tensor/float_format.h"

namespace difftest::reference {

double float_neighbour(double r, double x, DType t) {
  const double towards = x > r ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  switch (t) {
    case DType::f64:
      return std::nextafter(r, towards);
    case DType::f32:
      return std::nextafter(static_cast<float>(r), static_cast<float>(towards));
    case DType::f16:
    case DType::bf16: {
      const bool f16 = t == DType::f16;
      const uint16_t bits = f16 ? f16_bits(r) : bf16_bits(r);
      // Sign-magnitude patterns: one step up the magnitude moves away from zero. From zero,
      // the neighbour is the smallest subnormal on the side of x.
      uint16_t n;
      if (r == 0) {
        n = x > r ? 0x0001 : 0x8001;
      } else {
        const bool away_from_zero = (x > r) == (r > 0);
        n = static_cast<uint16_t>(away_from_zero ? bits + 1 : bits - 1);
      }
      return f16 ? f16_value(n) : bf16_value(n);
    }
    default:
      return r;
  }
}

uint64_t Perturbation::next() {
  // splitmix64: a counter-based generator, so a member's draws depend on its seed alone.
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double Perturbation::round(double x, DType t) {
  if (t == DType::f64 || !std::isfinite(x)) return x;
  const double nearest = round_to_float_dtype(x, t);
  if (nearest == x || !std::isfinite(nearest)) return nearest;
  const double other = float_neighbour(nearest, x, t);
  if (!std::isfinite(other)) return nearest;
  const double draw = static_cast<double>(next() >> 11) * 0x1.0p-53;
  return draw < 0.5 ? other : nearest;
}

double Perturbation::function_error(double x, DType t, double magnitude) {
  if (t == DType::f64 || !std::isfinite(x)) return x;
  // The budget of tolerance/error_model.h's libm_error: 8 u of f32 (4 ulps).
  constexpr double kBudget = 8 * 0x1.0p-24;
  const double draw = static_cast<double>(next() >> 11) * 0x1.0p-53;
  return x + (2 * draw - 1) * kBudget * std::max(std::fabs(x), magnitude);
}

double Perturbation::jitter(double x, DType t) {
  if (t == DType::f64 || !std::isfinite(x)) return x;
  const uint64_t draw = next() & 3;
  if (draw < 2) return x;
  const double neighbour = float_neighbour(x, draw == 2 ? INFINITY : -INFINITY, t);
  return std::isfinite(neighbour) ? neighbour : x;
}

std::vector<int64_t> Perturbation::summation_order(int64_t k) {
  if (sum_order() == SumOrder::Random) return permutation(k);
  std::vector<int64_t> p(static_cast<size_t>(k));
  for (int64_t i = 0; i < k; ++i) p[static_cast<size_t>(i)] = sum_order() == SumOrder::Reversed ? k - 1 - i : i;
  return p;
}

std::vector<int64_t> Perturbation::permutation(int64_t n) {
  std::vector<int64_t> p(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) p[static_cast<size_t>(i)] = i;
  for (int64_t i = n - 1; i > 0; --i) {
    const auto j = static_cast<int64_t>(next() % static_cast<uint64_t>(i + 1));
    std::swap(p[static_cast<size_t>(i)], p[static_cast<size_t>(j)]);
  }
  return p;
}

}  // namespace difftest::reference
