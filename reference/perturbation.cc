#include "reference/perturbation.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "compiler/tensor/float_format.h"

namespace difftest::reference {

namespace {

// The neighbour of `value`, whose float pattern is `bits`, one step toward `x`. Sign-magnitude
// patterns: one step up the magnitude moves away from zero; from zero, the neighbour is the
// smallest subnormal on the side of x.
template <typename Bits>
Bits step_toward(Bits bits, double value, double x) {
  constexpr Bits kSign = Bits{1} << (8 * sizeof(Bits) - 1);
  if (value == 0) return x > 0 ? Bits{1} : static_cast<Bits>(kSign | 1);
  return static_cast<Bits>((x > value) == (value > 0) ? bits + 1 : bits - 1);
}

// Every member rounds every intermediate result through here (a profile of an ONNX Runtime
// campaign put a fifth of its CPU in round_to_float_dtype, float_neighbour and nextafterf), so
// each dtype rounds once, in its own bits, and steps there. `nearest` is x rounded to nearest in
// dtype `t`; `other`, set only when x is inexact and nearest finite, is the value on x's other
// side.
void bracket(double x, DType t, double& nearest, double& other) {
  switch (t) {
    case DType::f32:
      if (std::fabs(x) <= std::numeric_limits<float>::max()) {
        const float n = static_cast<float>(x);  // one rounding, to nearest even
        nearest = n;
        if (nearest == x) return;
        other = std::bit_cast<float>(step_toward(std::bit_cast<uint32_t>(n), nearest, x));
        return;
      }
      break;
    case DType::f16:
    case DType::bf16: {
      const bool f16 = t == DType::f16;
      const uint16_t bits = f16 ? f16_bits(x) : bf16_bits(x);
      nearest = f16 ? f16_value(bits) : bf16_value(bits);
      if (nearest == x || !std::isfinite(nearest)) return;
      const uint16_t toward = step_toward(bits, nearest, x);
      other = f16 ? f16_value(toward) : bf16_value(toward);
      return;
    }
    default:
      break;
  }
  nearest = round_to_float_dtype(x, t);
  if (nearest != x && std::isfinite(nearest)) other = float_neighbour(nearest, x, t);
}

}  // namespace

double float_neighbour(double r, double x, DType t) {
  const double towards = x > r ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  switch (t) {
    case DType::f64:
      return std::nextafter(r, towards);
    case DType::f32:
      return std::nextafter(static_cast<float>(r), static_cast<float>(towards));
    case DType::f16:
      return f16_value(step_toward(f16_bits(r), r, x));
    case DType::bf16:
      return bf16_value(step_toward(bf16_bits(r), r, x));
    default:
      return r;
  }
}

uint64_t Perturbation::mix(uint64_t z) {
  // splitmix64's finalizer.
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// splitmix64: a counter-based generator, so a member's draws depend on its seed alone.
uint64_t Perturbation::next() { return mix(state_ += 0x9e3779b97f4a7c15ULL); }

double Perturbation::round(double x, DType t) {
  if (t == DType::f64 || !std::isfinite(x)) return x;
  double nearest = 0, other = 0;
  bracket(x, t, nearest, other);
  if (nearest == x || !std::isfinite(nearest) || !std::isfinite(other)) return nearest;
  // The coin is a hash of the member and the interval [nearest, other], not a fresh draw: every
  // value of one interval rounds the same way within a member, as a deterministic implementation
  // rounds alike the many elements an output can share (a norm over two elements is +-1 x gamma
  // + beta everywhere), so the members' errors are as coherent across elements as a compiled
  // result's (the bias check's null spread). Across members each interval is still a fair coin.
  // Selected with a mask, not a branch: a coin flip is mispredicted half the time.
  const uint64_t lower = std::bit_cast<uint64_t>(std::min(nearest, other));
  const uint64_t upper = std::bit_cast<uint64_t>(std::max(nearest, other));
  const uint64_t down = uint64_t{0} - (mix(seed_ ^ (lower * 0x9e3779b97f4a7c15ULL) ^ static_cast<uint64_t>(t)) >> 63);
  return std::bit_cast<double>((lower & down) | (upper & ~down));
}

double Perturbation::function_error(double x, DType t, double magnitude) {
  if (t == DType::f64 || !std::isfinite(x)) return x;
  // The budget of tolerance/error_model.h's libm_error: 8 u of f32 (4 ulps).
  constexpr double kBudget = 8 * 0x1.0p-24;
  // Keyed by the member and the exact result, not a fresh draw: a deterministic libm errs alike
  // on equal arguments, so an output of many equal values (tanh of a clip's saturated 6,
  // thousands of times) carries one error many times, and a product over them multiplies it.
  // Independent draws would shrink the members' spread there by sqrt(N) (an ORT outlier at
  // `disabled`, issue 45).
  const uint64_t key = std::bit_cast<uint64_t>(x) * 0xd6e8feb86659fd93ULL;
  const double draw = static_cast<double>(mix(seed_ ^ key ^ (static_cast<uint64_t>(t) << 56)) >> 11) * 0x1.0p-53;
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
