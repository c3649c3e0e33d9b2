// Element types of the graph IR.
//   f64 f32          IEEE binary64 / binary32
//   f16              IEEE binary16 (u = 2^-11)
//   bf16             bfloat16: binary32 with the low 16 mantissa bits dropped (u = 2^-8)
//   i64 i32 i8       two's complement; integer arithmetic in ops wraps modulo 2^bits
//   u8 u32           unsigned; also the storage of packed 4-bit weights
//   bool             true / false
// Every conversion to f16/bf16 rounds to nearest, ties to even.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace difftest {

enum class DType : uint8_t { f64, f32, f16, bf16, i64, i32, i8, u8, u32, boolean };

constexpr std::array<DType, 10> kAllDTypes = {DType::f64, DType::f32, DType::f16, DType::bf16, DType::i64,
                                              DType::i32, DType::i8,  DType::u8,  DType::u32,  DType::boolean};

const char* dtype_name(DType t);
std::optional<DType> parse_dtype(std::string_view name);

int dtype_bits(DType t);           // bool counts as 8 (one byte per element in memory)
inline int dtype_bytes(DType t) { return dtype_bits(t) / 8; }
bool is_float(DType t);
bool is_int(DType t);              // signed or unsigned integer, not bool
bool is_signed_int(DType t);
bool is_unsigned_int(DType t);
inline bool is_bool(DType t) { return t == DType::boolean; }

// Range of an integer dtype (bool: 0..1). Not for float dtypes.
int64_t int_min(DType t);
int64_t int_max(DType t);

// Unit roundoff for float dtypes (2^-53, 2^-24, 2^-11, 2^-8); 0 for exact dtypes.
double unit_roundoff(DType t);
// The smallest positive normal value of a float dtype (2^-1022, 2^-126, 2^-14, 2^-126); 0 otherwise.
double smallest_normal(DType t);
// The largest finite value of f16, bf16 and f32; inf for f64 and integers (not range-checked).
double largest_finite(DType t);

}  // namespace difftest
