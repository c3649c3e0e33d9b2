// The error model: how much a correct implementation in the program's dtypes may differ from
// the exact (f64 reference) value. See docs/tolerance.md for the derivations.
//
// Model: fl(x op y) = (x op y)(1 + d), |d| <= u (round to nearest; an FMA rounds once), plus
// an absolute half-spacing for results in the subnormal range. A sum or dot product of K terms
// accumulated in dtype `acc`, in any order and with or without FMA, satisfies
//   |fl(sum) - sum| <= g(K) * sum |terms|,
// with g(K) = (1 + u)^K - 1 (deterministic: Higham's gamma_K without its K u < 1 condition),
// lambda * sqrt(K) * u (probabilistic, Higham & Mary 2019; f16/bf16 accumulation stalls
// systematically, so for them see summation_error),
// or (1 + u)^ceil(log2 K) - 1 for implementations declared pairwise.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/types/dtype.h"

namespace difftest::tolerance {

enum class BoundMode { Deterministic, Probabilistic, Pairwise };
const char* bound_mode_name(BoundMode m);
BoundMode parse_bound_mode(const std::string& name);  // UserError(Usage) otherwise

struct Options {
  BoundMode mode = BoundMode::Deterministic;
  double lambda = 6;   // probabilistic mode's confidence multiplier
  double safety = 2;   // a candidate fails when |got - ref| > safety * bound + tiny
  // Integer arithmetic wraps in difftest's IR (docs/ops.md). ONNX leaves overflow undefined, so
  // for a compiler under test that runs an exported model this is false: an integer element
  // whose exact result leaves its dtype's range (add, sub, mul, neg, abs, sum, prod, a narrowing
  // integer cast) is uncertain, and so is everything computed from it.
  bool integer_overflow_wraps = true;
  // Whether f16 arithmetic may run in f32 and round to f16 only where the graph casts or ends,
  // as ONNX Runtime's CPU provider runs f16 nodes it has no kernel for (behind casts whose
  // f32 -> f16 -> f32 pairs it then removes). Bounds already hold for that form (it rounds less);
  // what it changes is a rounding the op defines as part of its result: q4f16_1's codes, whose
  // f16 steps of w / s + 7 the export writes as f16 nodes, are uncertain where those steps
  // decide the code.
  bool half_may_compute_in_f32 = false;
};

// What a bound of `o` claims, for reports: "a rigorous first-order error bound ..." in
// deterministic mode, "a probabilistic error bound ... exceeded with probability about P per
// element" in probabilistic mode.
std::string describe_bound(const Options& o);

// The factor g(K) above for K terms accumulated in `acc`.
double summation_factor(int64_t k, DType acc, const Options& o);

// The bound of a sum of K terms whose magnitudes add to `abs_sum` and whose value is at most
// `abs_value` in magnitude: g(K) * abs_sum, except for an f16/bf16 accumulator in probabilistic
// mode: min(g(K) abs_sum, u (lambda sqrt(K) abs_sum + K abs_value)). The first term is the
// random part of the rounding errors; the second the drift of stalls, which drop terms of at
// most u times a partial sum: at most K u max|partial sum|, which |value| stands for on data
// that do not cancel and the first term covers on data that do (random-sign partial sums stay
// near sum|t| / sqrt(K)). Same-sign data keep the deterministic factor; cancelling data of
// K >= 256 gain about sqrt(K) / (lambda + 1). Probabilistic like the mode: an adversarial order
// (a large term, dropped small ones, its negation) can exceed it.
double summation_error(int64_t k, DType acc, const Options& o, double abs_sum, double abs_value);

// The error of rounding a value of magnitude |r| to `t`: u_t |r| plus half the smallest
// subnormal spacing (0 for exact dtypes).
double rounding_error(double r, DType t);

// largest_finite and smallest_normal of a dtype are in compiler/types/dtype.h.
// The comparison's absolute slack is smallest_normal of the output dtype.

// Budget of a libm-grade function in units of u (4 ulps = 8 u): exp, log, tanh, ...
constexpr double kLibmUnits = 8;
// sigmoid(x) = 0.5 + 0.5 tanh(x / 2) is a legitimate form (ONNX Runtime's f32 Sigmoid errs as it
// does: about 6e-8 absolute, so sigmoid(-3.5) 20 ulps off): its budget is relative to
// max(|sigmoid x|, 0.5), silu's to max(|silu x|, 0.5 |x|).
constexpr double kSigmoidCancels = 0.5;
// erf by Abramowitz and Stegun 7.1.26, 1 - (a1 t + ... + a5 t^5) exp(-x^2), is a legitimate form
// (OpenVINO's CPU plugin and Graphcore's PopART compute it: an absolute error up to 1.5e-7, 25
// f32 ulps at erf(0.046)): its budget is relative to max(|erf x|, 1), kLibmUnits u of 1 (4.8e-7
// in f32) and the approximation's 1.5e-7 with room.
constexpr double kErfApproximated = 1;
// The error of a libm-grade result r in dtype `out`: kLibmUnits u in the precision the function
// is computed in (f32 for f16/bf16 results), plus the rounding to `out`.
double libm_error(double r, DType out);

// Per-element bound of a scalar operation whose operands carry errors.
struct ScalarBound {
  double err = 0;
  bool uncertain = false;
  // Where uncertain because a decision may go either way: every result a correct
  // implementation may give, each within err (Bounded::choices); empty when unknown.
  std::vector<double> choices;
};

// At most this many outcomes make a decision's choices; beyond it the element stays uncertain.
inline constexpr size_t kMaxChoices = 4;

// The ops with a scalar rule, resolved from their names once per op, not once per element (a
// campaign's profile put a tenth of the bounds' time in comparing op names).
enum class UnaryRule { Exp, Log, Sqrt, Rsqrt, Tanh, Sigmoid, Erf, Silu, Gelu, Sin, Cos, Floor, Round, Neg, Abs,
                       Relu, LeakyRelu, Clip };
enum class BinaryRule { Add, Sub, Mul, Div, Pow, Maximum, Minimum, Atan2, FloorDivide, FloorMod };
// The rule of op `op`; nullopt for an op without one.
std::optional<UnaryRule> unary_rule(const std::string& op);
std::optional<BinaryRule> binary_rule(const std::string& op);

// Unary float ops (exp ... round, neg, abs, relu, leaky_relu, clip): `a` is the exact operand,
// `ea` its bound, `r` the exact result, `out` the result dtype.
// `alpha` is leaky_relu's slope, `lo` and `hi` clip's limits.
ScalarBound unary_bound(UnaryRule op, double a, double ea, double r, DType out, double alpha = 0,
                        double lo = -INFINITY, double hi = INFINITY);
// The same by the op's name: an internal error for an op without a rule.
ScalarBound unary_bound(const std::string& op, double a, double ea, double r, DType out, double alpha = 0,
                        double lo = -INFINITY, double hi = INFINITY);

// Binary float ops (add sub mul div pow maximum minimum floor_divide floor_mod atan2).
ScalarBound binary_bound(BinaryRule op, double a, double ea, double b, double eb, double r, DType out);
ScalarBound binary_bound(const std::string& op, double a, double ea, double b, double eb, double r, DType out);

// Comparisons of float operands: uncertain when the operands' intervals touch.
bool comparison_uncertain(double a, double ea, double b, double eb);

}  // namespace difftest::tolerance
