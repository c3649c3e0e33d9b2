#include "tolerance/error_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>

#include "compiler/support/diagnostics.h"
#include "compiler/tensor/float_format.h"

namespace difftest::tolerance {

const char* bound_mode_name(BoundMode m) {
  switch (m) {
    case BoundMode::Deterministic: return "deterministic";
    case BoundMode::Probabilistic: return "probabilistic";
    case BoundMode::Pairwise: return "pairwise";
  }
  return "?";
}

std::string describe_bound(const Options& o) {
  switch (o.mode) {
    case BoundMode::Deterministic:
      return "a rigorous first-order error bound of a correct implementation in the program's dtypes (any "
             "summation order, with or without FMA)";
    case BoundMode::Pairwise:
      return "a rigorous first-order error bound of an implementation in the program's dtypes that sums pairwise";
    case BoundMode::Probabilistic:
      break;
  }
  return fmt::format(
      "a probabilistic error bound of a correct implementation in the program's dtypes (independent mean-zero "
      "roundings at lambda = {:g}: a correct result exceeds it with probability about {:.0e} per element)",
      o.lambda, 2 * std::exp(-o.lambda * o.lambda / 2));
}

BoundMode parse_bound_mode(const std::string& name) {
  for (BoundMode m : {BoundMode::Deterministic, BoundMode::Probabilistic, BoundMode::Pairwise}) {
    if (name == bound_mode_name(m)) return m;
  }
  throw UserError(ErrorKind::Usage,
                  fmt::format("bound mode must be deterministic, probabilistic or pairwise, got '{}'", name));
}

double summation_factor(int64_t k, DType acc, const Options& o) {
  const double u = unit_roundoff(acc);
  if (u == 0 || k <= 1) return k == 1 ? u : 0;  // one term: just the product's rounding
  const double deterministic = std::expm1(static_cast<double>(k) * std::log1p(u));
  switch (o.mode) {
    case BoundMode::Deterministic: return deterministic;
    case BoundMode::Pairwise: {
      const double depth = std::ceil(std::log2(static_cast<double>(k))) + 1;  // + the product rounding
      return std::expm1(depth * std::log1p(u));
    }
    case BoundMode::Probabilistic:
      if (acc == DType::f16 || acc == DType::bf16) return deterministic;  // stalls are systematic
      return std::min(deterministic, o.lambda * std::sqrt(static_cast<double>(k)) * u);
  }
  return deterministic;
}

double summation_error(int64_t k, DType acc, const Options& o, double abs_sum, double abs_value) {
  const double bound = summation_factor(k, acc, o) * abs_sum;
  if (o.mode != BoundMode::Probabilistic || (acc != DType::f16 && acc != DType::bf16) || k <= 1) return bound;
  const double u = unit_roundoff(acc);
  const double kd = static_cast<double>(k);
  return std::min(bound, u * (o.lambda * std::sqrt(kd) * abs_sum + kd * abs_value));
}

namespace {

double half_subnormal(DType t) {
  switch (t) {
    case DType::f64: return std::ldexp(1.0, -1075);
    case DType::f32: return std::ldexp(1.0, -150);
    case DType::f16: return std::ldexp(1.0, -25);
    case DType::bf16: return std::ldexp(1.0, -134);
    default: return 0;
  }
}

// A libm-grade function: a few ulps in the precision it is computed in (f32 for f16/bf16
// data, which no implementation evaluates in 11 or 8 bits), then one rounding to the dtype.
double libm(double r, DType out) {
  const DType compute = (out == DType::f16 || out == DType::bf16) ? DType::f32 : out;
  return kLibmUnits * rounding_error(r, compute) + (compute != out ? rounding_error(r, out) : 0);
}

// The same budget relative to max(|r|, magnitude), for a function whose legitimate forms cancel
// terms of that size: sigmoid as 0.5 + 0.5 tanh(x / 2) (an absolute error of a few u, which ONNX
// Runtime's f32 Sigmoid shows) and silu as x times that.
double libm_cancelling(double r, double magnitude, DType out) {
  const DType compute = (out == DType::f16 || out == DType::bf16) ? DType::f32 : out;
  return kLibmUnits * rounding_error(std::max(std::fabs(r), magnitude), compute) +
         (compute != out ? rounding_error(r, out) : 0);
}

template <typename F>
double endpoint_spread(F f, double a, double ea, double r) {
  if (ea == 0) return 0;
  return std::max(std::fabs(f(a + ea) - r), std::fabs(f(a - ea) - r));
}

// value(k) in `out` for every integer k from k_lo to k_hi: the outcomes of a decision on an
// integer (floor, round, a quotient's floor), or none when there are more than kMaxChoices.
template <typename F>
std::vector<double> integer_choices(double k_lo, double k_hi, F value, DType out) {
  std::vector<double> v;
  constexpr double kExactIntegers = 4503599627370496.0;  // 2^52: k + 1 is exact below it
  if (!(k_hi - k_lo < static_cast<double>(kMaxChoices)) || !(std::fabs(k_lo) < kExactIntegers) ||
      !(std::fabs(k_hi) < kExactIntegers)) {
    return v;
  }
  for (double k = k_lo; k <= k_hi; k += 1) v.push_back(round_to_float_dtype(value(k), out));
  return v;
}

}  // namespace

double rounding_error(double r, DType t) {
  if (!is_float(t)) return 0;
  return unit_roundoff(t) * std::fabs(r) + half_subnormal(t);
}

double libm_error(double r, DType out) { return libm(r, out); }

std::optional<UnaryRule> unary_rule(const std::string& op) {
  static const std::map<std::string, UnaryRule> rules = {
      {"exp", UnaryRule::Exp},         {"log", UnaryRule::Log},       {"sqrt", UnaryRule::Sqrt},
      {"rsqrt", UnaryRule::Rsqrt},     {"tanh", UnaryRule::Tanh},     {"sigmoid", UnaryRule::Sigmoid},
      {"erf", UnaryRule::Erf},         {"silu", UnaryRule::Silu},     {"gelu", UnaryRule::Gelu},
      {"sin", UnaryRule::Sin},         {"cos", UnaryRule::Cos},       {"floor", UnaryRule::Floor},
      {"round", UnaryRule::Round},     {"neg", UnaryRule::Neg},       {"abs", UnaryRule::Abs},
      {"relu", UnaryRule::Relu},       {"leaky_relu", UnaryRule::LeakyRelu}, {"clip", UnaryRule::Clip}};
  const auto found = rules.find(op);
  return found == rules.end() ? std::nullopt : std::optional<UnaryRule>(found->second);
}

std::optional<BinaryRule> binary_rule(const std::string& op) {
  static const std::map<std::string, BinaryRule> rules = {
      {"add", BinaryRule::Add},         {"sub", BinaryRule::Sub},         {"mul", BinaryRule::Mul},
      {"div", BinaryRule::Div},         {"pow", BinaryRule::Pow},         {"maximum", BinaryRule::Maximum},
      {"minimum", BinaryRule::Minimum}, {"atan2", BinaryRule::Atan2},     {"floor_divide", BinaryRule::FloorDivide},
      {"floor_mod", BinaryRule::FloorMod}};
  const auto found = rules.find(op);
  return found == rules.end() ? std::nullopt : std::optional<BinaryRule>(found->second);
}

ScalarBound unary_bound(const std::string& op, double a, double ea, double r, DType out, double alpha, double lo,
                        double hi) {
  const std::optional<UnaryRule> rule = unary_rule(op);
  DT_CHECK(rule.has_value(), fmt::format("no unary error rule for '{}'", op));
  return unary_bound(*rule, a, ea, r, out, alpha, lo, hi);
}

ScalarBound binary_bound(const std::string& op, double a, double ea, double b, double eb, double r, DType out) {
  const std::optional<BinaryRule> rule = binary_rule(op);
  DT_CHECK(rule.has_value(), fmt::format("no binary error rule for '{}'", op));
  return binary_bound(*rule, a, ea, b, eb, r, out);
}

ScalarBound unary_bound(UnaryRule op, double a, double ea, double r, DType out, double alpha, double lo, double hi) {
  ScalarBound b;
  const double u = unit_roundoff(out);
  if (op == UnaryRule::Exp) {
    b.err = endpoint_spread([](double x) { return std::exp(x); }, a, ea, r) + libm(r, out);
  } else if (op == UnaryRule::Log) {
    b.uncertain = a - ea <= 0;
    if (!b.uncertain) b.err = endpoint_spread([](double x) { return std::log(x); }, a, ea, r) + libm(r, out);
  } else if (op == UnaryRule::Sqrt) {
    b.uncertain = a - ea < 0;
    if (!b.uncertain) b.err = endpoint_spread([](double x) { return std::sqrt(x); }, a, ea, r) + 2 * rounding_error(r, out);
  } else if (op == UnaryRule::Rsqrt) {
    b.uncertain = a - ea <= 0;
    if (!b.uncertain) {
      b.err = endpoint_spread([](double x) { return 1 / std::sqrt(x); }, a, ea, r) + 4 * rounding_error(r, out);
    }
  } else if (op == UnaryRule::Tanh) {
    b.err = endpoint_spread([](double x) { return std::tanh(x); }, a, ea, r) + libm(r, out);
  } else if (op == UnaryRule::Sigmoid) {
    b.err = endpoint_spread([](double x) { return 1 / (1 + std::exp(-x)); }, a, ea, r) +
            libm_cancelling(r, kSigmoidCancels, out);
  } else if (op == UnaryRule::Erf) {
    b.err = endpoint_spread([](double x) { return std::erf(x); }, a, ea, r) + libm_cancelling(r, kErfApproximated, out);
  } else if (op == UnaryRule::Silu) {
    // silu' is within [-0.1, 1.1]
    b.err = 1.1 * ea + libm_cancelling(r, kSigmoidCancels * std::fabs(a), out) + 2 * u * std::fabs(a);
  } else if (op == UnaryRule::Gelu) {
    b.err = 1.13 * ea + 2 * libm(r, out) + 2 * u * std::fabs(a);  // gelu' is within [-0.13, 1.13]
  } else if (op == UnaryRule::Sin || op == UnaryRule::Cos) {
    b.err = std::min(ea, 2.0) + libm(r, out) + 4 * u;  // argument reduction: absolute, not relative
  } else if (op == UnaryRule::Floor || op == UnaryRule::Round) {
    const auto step = [&op](double x) { return op == UnaryRule::Floor ? std::floor(x) : std::nearbyint(x); };
    b.uncertain = step(a - ea) != step(a + ea);
    if (b.uncertain) b.choices = integer_choices(step(a - ea), step(a + ea), [](double k) { return k; }, out);
  } else if (op == UnaryRule::Neg || op == UnaryRule::Abs) {
    b.err = ea;
  } else if (op == UnaryRule::Relu) {  // monotone: the operand's interval maps onto an interval, 0 below zero
    b.err = endpoint_spread([](double x) { return std::max(x, 0.0); }, a, ea, r);
  } else if (op == UnaryRule::LeakyRelu) {
    b.err = std::max(1.0, std::fabs(alpha)) * ea + 2 * rounding_error(r, out);
  } else if (op == UnaryRule::Clip) {
    // Monotone: the operand's interval clipped, never wider than [lo, hi]; the limits
    // themselves are rounded to the dtype (one rounding of r, which lies between them).
    b.err = endpoint_spread([lo, hi](double x) { return std::min(std::max(x, lo), hi); }, a, ea, r) +
            rounding_error(r, out);
    // Wholly beyond a limit the result is that limit in the dtype: exact where the dtype holds it
    // (values clipped to 1 tie exactly, so an argmax over them is certain).
    const bool clipped = a + ea < lo || a - ea > hi;
    if (clipped && round_to_float_dtype(r, out) == r) b.err = 0;
  } else {
    DT_CHECK(false, "a unary rule without a bound");
  }
  return b;
}

ScalarBound binary_bound(BinaryRule op, double a, double ea, double b, double eb, double r, DType out) {
  ScalarBound s;
  if (op == BinaryRule::Add || op == BinaryRule::Sub) {
    s.err = ea + eb + rounding_error(std::fabs(r) + ea + eb, out);
  } else if (op == BinaryRule::Mul) {
    const double p = std::fabs(b) * ea + std::fabs(a) * eb + ea * eb;
    s.err = p + rounding_error(std::fabs(r) + p, out);
  } else if (op == BinaryRule::Div) {
    s.uncertain = std::fabs(b) <= eb;
    if (!s.uncertain) {
      const double q = (ea + std::fabs(r) * eb) / (std::fabs(b) - eb);
      // Two roundings: x * (1 / y), the reciprocal form kernel libraries and fast-math use.
      s.err = q + 2 * rounding_error(std::fabs(r) + q, out);
    }
  } else if (op == BinaryRule::Pow) {
    const bool perturbed = ea > 0 || eb > 0;
    s.uncertain = perturbed && a - ea <= 0;
    if (!s.uncertain) {
      double spread = 0;
      if (perturbed) {
        for (double x : {a - ea, a + ea}) {
          for (double y : {b - eb, b + eb}) spread = std::max(spread, std::fabs(std::pow(x, y) - r));
        }
      }
      s.err = spread + libm(r, out);
    }
  } else if (op == BinaryRule::Maximum || op == BinaryRule::Minimum) {
    // Monotone in both operands: the extremes are at the corners where both move together.
    const auto f = [&op](double x, double y) { return op == BinaryRule::Maximum ? std::max(x, y) : std::min(x, y); };
    s.err = std::max(std::fabs(f(a - ea, b - eb) - r), std::fabs(f(a + ea, b + eb) - r));
  } else if (op == BinaryRule::Atan2) {
    const double e = ea + eb, rho = std::hypot(a, b);
    // A zero's sign is not in the bounds: round(x) of an x within its error of zero, or a product
    // with an exact zero, is +0 in one correct implementation and -0 in another, and atan2(+-0, b)
    // is +-pi for b < 0 (0 or pi for b = +-0).
    const bool zero_sign_decides = a == 0 && b <= 0;
    s.uncertain = zero_sign_decides || (e > 0 && (rho <= 2 * e || (b < 0 && std::fabs(a) <= ea)));
    if (!s.uncertain) s.err = (e > 0 ? e / (rho - e) : 0) + libm(r, out) + 4 * unit_roundoff(out);
    if (s.uncertain && b < 0 && -b > eb && std::fabs(a) <= ea) {
      // On the branch cut with b certainly negative: +-pi, each within the angle a point with
      // |a'| <= |a| + ea and |b'| >= |b| - eb makes with the negative axis.
      s.err = std::atan((std::fabs(a) + ea) / (-b - eb)) + libm(std::numbers::pi, out) + 4 * unit_roundoff(out);
      s.choices = {round_to_float_dtype(std::numbers::pi, out), round_to_float_dtype(-std::numbers::pi, out)};
    }
  } else if (op == BinaryRule::FloorDivide || op == BinaryRule::FloorMod) {
    s.uncertain = std::fabs(b) <= eb;
    if (!s.uncertain) {
      const double q = a / b;
      // The quotient is rounded to the dtype before the floor: a perturbed quotient just below an
      // integer can round up to it. Even an exact operand pair whose quotient is representable
      // moves: division by the reciprocal, a * (1 / b), rounds twice (1.5 * (1 / 1.5) is 1 - ulp).
      const double eq = (ea + std::fabs(q) * eb) / (std::fabs(b) - eb) + 2 * rounding_error(q, out);
      const double k_lo = std::floor(q - eq), k_hi = std::floor(q + eq);
      s.uncertain = k_lo != k_hi;
      const double k_max = std::max(std::fabs(k_lo), std::fabs(k_hi));
      if (op == BinaryRule::FloorMod) {
        // a - k b for each quotient k the floor may take: a remainder in [0, b) or, for a
        // quotient rounded up to an integer, just outside it.
        s.err = ea + k_max * eb + eb + rounding_error(std::fabs(a) + k_max * std::fabs(b), out);
        if (s.uncertain) s.choices = integer_choices(k_lo, k_hi, [a, b](double k) { return a - k * b; }, out);
      } else if (s.uncertain) {
        s.choices = integer_choices(k_lo, k_hi, [](double k) { return k; }, out);
      }
    }
  } else {
    DT_CHECK(false, "a binary rule without a bound");
  }
  return s;
}

bool comparison_uncertain(double a, double ea, double b, double eb) {
  return ea + eb > 0 && std::fabs(a - b) <= ea + eb;
}

}  // namespace difftest::tolerance
