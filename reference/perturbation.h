// Perturbed native evaluation: one member of the ensemble of legitimate results.
//
// A correct implementation of a program in its dtypes is not one result but a family: it may
// sum in any order, contract multiply-adds, and round each intermediate result up or down by
// its own sequence of operations. Native mode computes one member of that family (sequential
// sums, round to nearest after every operation). A Perturbation draws others, as Monte Carlo
// arithmetic does for numerical codes (CADNA, Verificarlo):
//   - every inexact rounding of a float result (an op's result, and every step inside a
//     kernel) goes to either neighbour with probability 1/2 (CADNA's random rounding), one coin
//     per member and pair of neighbours: values between the same two neighbours round alike, as
//     equal values do in any deterministic implementation. A
//     correct implementation may land on the far neighbour of any value, wherever the exact
//     value lies between them (a different order before it moves that value); a rounding
//     weighted by the distance (stochastic rounding) would rarely sample that, and a
//     cancellation downstream (x + y with x near -y) turns that one ulp into many of the result;
//   - matrix products and attention's inner products sum in the member's order (SumOrder):
//     the index order, its reverse, OpenBLAS's blocks, or a random permutation, each product
//     rounded before its sum or fused with it (an FMA, as a contracting compiler emits; a
//     fused member contracts the norms' affine steps x_hat * g + b too). The
//     orders a compiler emits are sampled on purpose, not only random ones: data with structure
//     along the reduced index (LLM activations have fixed outlier channels; generated rows can
//     drift) gives the plain index-order loop an error beyond every one of 1000 random
//     permutations;
//   - a libm-grade function's result (exp, log, tanh, erf, sin, ...: not correctly rounded in
//     any implementation) first takes a random relative error within the budget the sound
//     bounds allow it, 4 ulps of the precision it is computed in (f32 for f16/bf16 results).
// The quantize op's arithmetic is part of its format's definition and is never perturbed.
// Draws come from a counter-based generator seeded per member, so a member is reproducible.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/types/dtype.h"

namespace difftest::reference {

// How a member sums a matrix product's K terms: sequentially in index order, sequentially in
// reverse, in OpenBLAS's blocks (sgemm; for narrow accumulators, which have no sgemm, index
// order), or sequentially in a random permutation.
enum class SumOrder { Sequential, Reversed, Blocked, Random };

// How a member sums: the order, and whether each product is fused with its sum (one rounding,
// an FMA) rather than rounded first. Blocked sums are sgemm's whatever `fused` says.
// `rewritten`: the member computes ops in the rewritten forms kernel libraries and optimizing
// compilers use instead of the textbook ones (docs/tolerance.md, "Legitimate forms"):
//   - centered normalizations as ONNX Runtime's CPU kernels and PyTorch's CPU batch norm do: the variance
//     in one pass (E[x^2] - E[x]^2) and the affine step folded into a scale and a shift,
//     s = g / sqrt(var + eps), y = x * s + (b - mean * s), whose roundings do not cancel where
//     x - mean does (over one element y is not exactly b);
//   - division as multiplication by the reciprocal, x * (1 / y) (two roundings);
//   - a float floor_mod as a - floor(a / b) * b (TVM's lowering), where fmod is exact;
//   - softmax without the row's max subtracted (where exp stays in range), log_softmax as
//     x - (max + log(sum)) (PyTorch's CPU kernel).
struct Summation {
  Summation(SumOrder order = SumOrder::Random, bool fused = false, bool rewritten = false)  // NOLINT
      : order(order), fused(fused), rewritten(rewritten) {}
  SumOrder order;
  bool fused;
  bool rewritten;
};

class Perturbation {
 public:
  explicit Perturbation(uint64_t seed, Summation summation = {})
      : seed_(mix(seed)), state_(seed), summation_(summation) {}

  SumOrder sum_order() const { return summation_.order; }
  bool fused() const { return summation_.fused; }
  bool rewritten_forms() const { return summation_.rewritten; }
  // The order of the K terms under sum_order() (Blocked: the index order).
  std::vector<int64_t> summation_order(int64_t k);

  // `x` rounded to the float dtype `t`, to either neighbour with probability 1/2, the same one for
  // every x between them (f64: x itself; representable values, NaN and inf unchanged).
  double round(double x, DType t);
  // `x`, a libm-grade function's exact value, with a random error within the budget of a result
  // of dtype `t` (f64: x itself), before its rounding: relative to max(|x|, magnitude), where
  // `magnitude` is the size of the terms a composite function cancels (gelu's |operand|).
  double function_error(double x, DType t, double magnitude = 0);
  // `x`, a value of dtype `t` that some computation rounded to nearest, or one of its two
  // neighbours (each with probability 1/4): the last rounding of that computation done the
  // other way, which a result already in its dtype (an f32 sgemm's) cannot show otherwise.
  double jitter(double x, DType t);
  // A uniformly random permutation of 0..n-1.
  std::vector<int64_t> permutation(int64_t n);

 private:
  static uint64_t mix(uint64_t z);
  uint64_t next();
  uint64_t seed_;
  uint64_t state_;
  Summation summation_;
};

// The representable neighbour of `r` (a value of float dtype `t`) on the side of `x`.
double float_neighbour(double r, double x, DType t);

}  // namespace difftest::reference
