#include "compiler/types/dtype.h"

#include <cmath>
#include <limits>

#include "compiler/support/diagnostics.h"

namespace difftest {

const char* dtype_name(DType t) {
  switch (t) {
    case DType::f64: return "f64";
    case DType::f32: return "f32";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    case DType::i64: return "i64";
    case DType::i32: return "i32";
    case DType::i8: return "i8";
    case DType::u8: return "u8";
    case DType::u32: return "u32";
    case DType::boolean: return "bool";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (DType t : kAllDTypes) {
    if (name == dtype_name(t)) return t;
  }
  return std::nullopt;
}

int dtype_bits(DType t) {
  switch (t) {
    case DType::f64:
    case DType::i64: return 64;
    case DType::f32:
    case DType::i32:
    case DType::u32: return 32;
    case DType::f16:
    case DType::bf16: return 16;
    case DType::i8:
    case DType::u8:
    case DType::boolean: return 8;
  }
  return 0;
}

bool is_float(DType t) { return t == DType::f64 || t == DType::f32 || t == DType::f16 || t == DType::bf16; }
bool is_signed_int(DType t) { return t == DType::i64 || t == DType::i32 || t == DType::i8; }
bool is_unsigned_int(DType t) { return t == DType::u8 || t == DType::u32; }
bool is_int(DType t) { return is_signed_int(t) || is_unsigned_int(t); }

int64_t int_min(DType t) {
  switch (t) {
    case DType::i64: return std::numeric_limits<int64_t>::min();
    case DType::i32: return std::numeric_limits<int32_t>::min();
    case DType::i8: return std::numeric_limits<int8_t>::min();
    case DType::u8:
    case DType::u32:
    case DType::boolean: return 0;
    default: break;
  }
  DT_CHECK(false, "int_min of a float dtype");
  return 0;
}

int64_t int_max(DType t) {
  switch (t) {
    case DType::i64: return std::numeric_limits<int64_t>::max();
    case DType::i32: return std::numeric_limits<int32_t>::max();
    case DType::i8: return std::numeric_limits<int8_t>::max();
    case DType::u8: return std::numeric_limits<uint8_t>::max();
    case DType::u32: return std::numeric_limits<uint32_t>::max();
    case DType::boolean: return 1;
    default: break;
  }
  DT_CHECK(false, "int_max of a float dtype");
  return 0;
}

double unit_roundoff(DType t) {
  switch (t) {
    case DType::f64: return std::ldexp(1.0, -53);
    case DType::f32: return std::ldexp(1.0, -24);
    case DType::f16: return std::ldexp(1.0, -11);
    case DType::bf16: return std::ldexp(1.0, -8);
    default: return 0.0;
  }
}

double smallest_normal(DType t) {
  switch (t) {
    case DType::f64: return std::ldexp(1.0, -1022);
    case DType::f32: return std::ldexp(1.0, -126);
    case DType::f16: return std::ldexp(1.0, -14);
    case DType::bf16: return std::ldexp(1.0, -126);
    default: return 0;
  }
}

double largest_finite(DType t) {
  switch (t) {
    case DType::f16: return 65504.0;
    case DType::bf16: return 3.3895313892515355e38;
    case DType::f32: return 3.4028234663852886e38;
    default: return INFINITY;
  }
}

}  // namespace difftest
