// Inputs for evaluating a program: generated deterministically from a seed, or read from a
// directory of .npy files; and the binding of the dim variables.
//
// A generated float is a multiple of 1/8 of small magnitude plus an offset in [-1/16, 1/16)
// with 24 random bits, rounded to the parameter's dtype: exact there, but not in narrower
// dtypes, and sums and products of such values round (on the grid alone, much f16 arithmetic
// was exact, which hid a wrong rounding mode). Values are chosen per parameter from how the
// program uses it:
//   default        floats k/8 in [-2, 2] (+ offset); signed ints in [-8, 8]; unsigned in
//                  [0, 15]; bool 0/1
//   positive       operand of log, sqrt, rsqrt, or the base of pow: k/8 in [1/4, 2] (+ offset)
//   nonzero        divisor of div, floor_divide, floor_mod: +-k/8 in [1/2, 2] (+ offset)
//   index          take's indices: integers in [0, d) for the gathered dim d
//   quantized      dequantize's packed weights and scales, when both are parameters: produced
//                  by quantizing generated float weights with the op's format (so they are the
//                  codes a real model would hold)
// On top of the domain, each float parameter draws a profile (its own stream, name + "/profile"):
//   grid           the values above (half of the default-domain parameters)
//   specials       a quarter of the elements replaced by -0, a tie of round-half-to-even
//                  (+-0.5, +-1.5), a value halfway between neighbours of a narrower float dtype,
//                  a subnormal of the parameter's dtype, or an exact grid value (1/4)
//   magnitude      the whole tensor scaled by 2^-20, 2^-10, 2^6 or 2^12 (f16: 2^-8 .. 2^4) (3/16;
//                  a quarter of positive and nonzero parameters)
//   weights        the weight of linear, matmul or a convolution (half of them): roughly normal,
//                  spread ~1/sqrt(fan-in), sometimes one output channel 8x larger
//   non-finite     an eighth of the elements -inf, +inf or NaN, only those that every direct use
//                  maps to finite values (docs/ops.md "Special values": exp(-inf) = 0, softmax
//                  gives -inf weight 0, comparisons with NaN are false, ...) (1/16)
// The program is evaluated (f64) under the result: where some value would be non-finite or
// beyond a sixteenth of its dtype's range, the non-finite profiles fall back to the grid, then
// all of them, so a valid program stays valid. Same seed, same program: same bytes.
// Each parameter draws from its own streams: splitmix64(seed ^ fnv1a(name [+ suffix]), element).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "compiler/ir/ir.h"
#include "compiler/tensor/tensor.h"

namespace difftest::reference {

std::map<std::string, Tensor> generate_inputs(const Program& p, const sym::Env& env, uint64_t seed);

// Reads DIR/in_<name>.npy for every parameter (UserError naming the missing or bad file).
std::map<std::string, Tensor> load_inputs(const Program& p, const std::string& dir);

// "n=5,m=3" -> {n: 5, m: 3}; UserError(Usage) naming `flag` on malformed text.
sym::Env parse_binding(const std::string& text, const std::string& flag);

// Completes `given` for every dim variable: from parameter shapes in `inputs` where a dim is a
// bare variable, otherwise the variable's lower bound. UserError when values conflict or fall
// outside a range.
sym::Env resolve_binding(const Program& p, const sym::Env& given, const std::map<std::string, Tensor>* inputs);

// The standard bindings to evaluate a program under: all variables at their lower bounds
// (usually 1); then each variable in turn at an odd middle value and at its maximum, the
// others at their lower bounds; then all at their maxima. Deterministic, duplicate-free.
std::vector<sym::Env> standard_bindings(const Program& p);

}  // namespace difftest::reference
