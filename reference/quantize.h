// Quantization as the formats define it (compiler/ops/quantization.cc), shared by the
// quantize kernel and by input generation (valid packed weights come from real quantization).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "compiler/tensor/tensor.h"

namespace difftest::reference {

struct Quantized {
  std::vector<int64_t> packed;  // u32 words or u8 bytes, row-major over [..., N, per_row]
  std::vector<double> scales;   // values of the scale dtype, row-major over [..., N, groups]
  int64_t per_row = 0;
  int64_t groups = 0;
};

// Quantizes `rows` rows of `k` weights each.
Quantized quantize_rows(const std::vector<double>& w, int64_t rows, int64_t k, const std::string& format,
                        int64_t group);

// Decodes row r, element i, to its exact (unrounded) value.
double dequantize_element(const std::vector<int64_t>& packed, const std::vector<double>& scales, int64_t per_row,
                          int64_t groups, int64_t r, int64_t i, const std::string& format, int64_t group);

// GGML q4_0's reciprocal scale id = 1 / d of a block of n weights, in f32, d unrounded (the
// codes are trunc(x * id + 8.5)); 0 for an all-zero block.
double q4_0_inverse_scale(const double* x, int64_t n);
// MLC's code of weight x under scale s != 0, computed in the scale dtype t as the format defines:
// round(fl(fl(fl(x) / s) + 7)), clamped to 0..14.
int64_t mlc_code(double x, double s, DType t);

DType format_storage_dtype(const std::string& format);  // u32 or u8
DType format_scale_dtype(const std::string& format);    // f16 or f32

}  // namespace difftest::reference
