// Exact conversions between doubles, integers and the narrow float formats.
//
// Every rounding here is IEEE round-to-nearest, ties-to-even, done once from the exact value
// (never double -> float -> half, which can round twice). f16 is IEEE binary16 (11-bit
// significand, subnormals, max 65504); bf16 is the top half of a binary32 (8-bit significand,
// f32's exponent range).
#pragma once

#include <cstdint>

#include "compiler/types/dtype.h"

namespace difftest {

// The value of `v` rounded to the float dtype `t` (f64: v itself). NaN stays NaN; overflow
// gives +-inf. Not for integer dtypes.
double round_to_float_dtype(double v, DType t);

// The integer `x` rounded to the float dtype `t`, with a single rounding.
double round_int_to_float_dtype(int64_t x, DType t);

uint16_t f16_bits(double v);   // rounds
double f16_value(uint16_t bits);
uint16_t bf16_bits(double v);  // rounds
double bf16_value(uint16_t bits);

// float -> integer cast semantics of the IR: round toward zero, saturate at the dtype's range,
// NaN -> 0. bool: v != 0.
int64_t float_to_int_dtype(double v, DType t);
// integer -> integer cast semantics: keep the low bits (two's complement wrap). bool: x != 0.
int64_t wrap_to_int_dtype(int64_t x, DType t);

}  // namespace difftest
