// A dense tensor: dtype, shape and a contiguous row-major buffer (no strides). Shared by the
// reference interpreter, the compiler's runtime, the tolerance module and the oracle.
// Elements are stored in their dtype: f16 and bf16 as their 16-bit patterns, bool as one byte
// (0 or 1).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/types/dtype.h"

namespace difftest {

class Tensor {
 public:
  Tensor() = default;
  Tensor(DType dtype, std::vector<int64_t> shape);  // zero-filled

  // Bulk construction with the IR's conversion rules: doubles are rounded to a float dtype
  // (RNE) or cast to an integer dtype (toward zero, saturating, NaN -> 0); integers wrap into
  // an integer dtype or are rounded once into a float dtype.
  static Tensor from_doubles(DType dtype, std::vector<int64_t> shape, const std::vector<double>& values);
  static Tensor from_ints(DType dtype, std::vector<int64_t> shape, const std::vector<int64_t>& values);

  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t numel() const { return numel_; }
  size_t nbytes() const { return bytes_.size(); }
  uint8_t* data() { return bytes_.data(); }
  const uint8_t* data() const { return bytes_.data(); }

  // Element i as a double (exact for every dtype but i64 beyond 2^53) or as an integer
  // (integer and bool dtypes only).
  double get(int64_t i) const;
  int64_t get_int(int64_t i) const;
  void set(int64_t i, double v);       // rounds / casts as from_doubles
  void set_int(int64_t i, int64_t v);  // wraps / rounds as from_ints

  std::vector<double> to_doubles() const;
  std::vector<int64_t> to_ints() const;

  std::string type_str() const;  // "f16[2, 3]"
  bool same_bytes(const Tensor& o) const { return dtype_ == o.dtype_ && shape_ == o.shape_ && bytes_ == o.bytes_; }
  uint64_t hash() const;         // FNV-1a 64 over dtype, shape and bytes

 private:
  DType dtype_ = DType::f32;
  std::vector<int64_t> shape_;
  int64_t numel_ = 0;
  std::vector<uint8_t> bytes_;
};

// Row-major strides (in elements) of a shape.
std::vector<int64_t> row_major_strides(const std::vector<int64_t>& shape);
int64_t shape_numel(const std::vector<int64_t>& shape);  // throws UserError(Limit) beyond 2^40
std::string shape_str(const std::vector<int64_t>& shape);

}  // namespace difftest
