#include "compiler/tensor/tensor.h"

#include <fmt/format.h>

#include <cstring>

#include "compiler/support/checked.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/hash.h"
#include "compiler/ir/ir.h"
#include "compiler/tensor/float_format.h"

namespace difftest {

int64_t shape_numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) throw UserError(ErrorKind::Shape, fmt::format("negative dim in shape {}", shape_str(shape)));
    auto m = checked::try_mul(n, d);
    if (!m || *m > kMaxTensorElements) {
      throw UserError(ErrorKind::Limit, fmt::format("shape {} has more than 2^40 elements", shape_str(shape)));
    }
    n = *m;
  }
  return n;
}

std::string shape_str(const std::vector<int64_t>& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

std::vector<int64_t> row_major_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

Tensor::Tensor(DType dtype, std::vector<int64_t> shape) : dtype_(dtype), shape_(std::move(shape)) {
  numel_ = shape_numel(shape_);
  bytes_.assign(static_cast<size_t>(numel_) * static_cast<size_t>(dtype_bytes(dtype_)), 0);
}

namespace {

template <typename T>
T load(const uint8_t* p, int64_t i) {
  T v;
  std::memcpy(&v, p + static_cast<size_t>(i) * sizeof(T), sizeof(T));
  return v;
}

template <typename T>
void store(uint8_t* p, int64_t i, T v) {
  std::memcpy(p + static_cast<size_t>(i) * sizeof(T), &v, sizeof(T));
}

}  // namespace

double Tensor::get(int64_t i) const {
  const uint8_t* p = bytes_.data();
  switch (dtype_) {
    case DType::f64: return load<double>(p, i);
    case DType::f32: return load<float>(p, i);
    case DType::f16: return f16_value(load<uint16_t>(p, i));
    case DType::bf16: return bf16_value(load<uint16_t>(p, i));
    default: return static_cast<double>(get_int(i));
  }
}

int64_t Tensor::get_int(int64_t i) const {
  const uint8_t* p = bytes_.data();
  switch (dtype_) {
    case DType::i64: return load<int64_t>(p, i);
    case DType::i32: return load<int32_t>(p, i);
    case DType::i8: return load<int8_t>(p, i);
    case DType::u8: return load<uint8_t>(p, i);
    case DType::u32: return load<uint32_t>(p, i);
    case DType::boolean: return load<uint8_t>(p, i) != 0;
    default: break;
  }
  DT_CHECK(false, fmt::format("get_int on a {} tensor", dtype_name(dtype_)));
  return 0;
}

void Tensor::set(int64_t i, double v) {
  uint8_t* p = bytes_.data();
  switch (dtype_) {
    case DType::f64: store<double>(p, i, v); return;
    case DType::f32: store<float>(p, i, static_cast<float>(round_to_float_dtype(v, DType::f32))); return;
    case DType::f16: store<uint16_t>(p, i, f16_bits(v)); return;
    case DType::bf16: store<uint16_t>(p, i, bf16_bits(v)); return;
    default: set_int(i, float_to_int_dtype(v, dtype_)); return;
  }
}

void Tensor::set_int(int64_t i, int64_t v) {
  uint8_t* p = bytes_.data();
  switch (dtype_) {
    case DType::i64: store<int64_t>(p, i, v); return;
    case DType::i32: store<int32_t>(p, i, static_cast<int32_t>(wrap_to_int_dtype(v, dtype_))); return;
    case DType::i8: store<int8_t>(p, i, static_cast<int8_t>(wrap_to_int_dtype(v, dtype_))); return;
    case DType::u8: store<uint8_t>(p, i, static_cast<uint8_t>(wrap_to_int_dtype(v, dtype_))); return;
    case DType::u32: store<uint32_t>(p, i, static_cast<uint32_t>(wrap_to_int_dtype(v, dtype_))); return;
    case DType::boolean: store<uint8_t>(p, i, v != 0 ? 1 : 0); return;
    default: break;
  }
  const double r = round_int_to_float_dtype(v, dtype_);
  switch (dtype_) {
    case DType::f64: store<double>(p, i, r); return;
    case DType::f32: store<float>(p, i, static_cast<float>(r)); return;
    case DType::f16: store<uint16_t>(p, i, f16_bits(r)); return;
    default: store<uint16_t>(p, i, bf16_bits(r)); return;
  }
}

Tensor Tensor::from_doubles(DType dtype, std::vector<int64_t> shape, const std::vector<double>& values) {
  Tensor t(dtype, std::move(shape));
  DT_CHECK(static_cast<int64_t>(values.size()) == t.numel(), "from_doubles: value count differs from the shape");
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, values[static_cast<size_t>(i)]);
  return t;
}

Tensor Tensor::from_ints(DType dtype, std::vector<int64_t> shape, const std::vector<int64_t>& values) {
  Tensor t(dtype, std::move(shape));
  DT_CHECK(static_cast<int64_t>(values.size()) == t.numel(), "from_ints: value count differs from the shape");
  for (int64_t i = 0; i < t.numel(); ++i) t.set_int(i, values[static_cast<size_t>(i)]);
  return t;
}

std::vector<double> Tensor::to_doubles() const {
  std::vector<double> out(static_cast<size_t>(numel_));
  for (int64_t i = 0; i < numel_; ++i) out[static_cast<size_t>(i)] = get(i);
  return out;
}

std::vector<int64_t> Tensor::to_ints() const {
  std::vector<int64_t> out(static_cast<size_t>(numel_));
  for (int64_t i = 0; i < numel_; ++i) out[static_cast<size_t>(i)] = get_int(i);
  return out;
}

std::string Tensor::type_str() const { return fmt::format("{}{}", dtype_name(dtype_), shape_str(shape_)); }

uint64_t Tensor::hash() const {
  const auto code = static_cast<uint8_t>(dtype_);
  uint64_t h = fnv1a64(&code, 1, kFnv1aOffsetBasis);
  for (int64_t d : shape_) h = fnv1a64(&d, sizeof d, h);
  return fnv1a64(bytes_.data(), bytes_.size(), h);
}

}  // namespace difftest
