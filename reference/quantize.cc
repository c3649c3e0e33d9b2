#include "reference/quantize.h"

#include <cmath>

#include "compiler/tensor/float_format.h"

namespace difftest::reference {

namespace {

bool is_ggml(const std::string& format) { return format == "q4_0"; }

double f32(double x) { return round_to_float_dtype(x, DType::f32); }

// GGML quantize_row_q4_0: the scale comes from the element of largest magnitude (first on
// ties), codes use the unrounded f32 scale, the stored scale is its f16 rounding.
double block_scale_q4_0(const double* x, int64_t n) {
  double amax = 0, m = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double v = f32(x[i]);
    if (std::fabs(v) > amax) {
      amax = std::fabs(v);
      m = v;
    }
  }
  return f32(m / -8);
}

void quantize_block_q4_0(const double* x, int64_t n, int64_t* codes, double* scale) {
  const double d = block_scale_q4_0(x, n);
  const double id = d != 0 ? f32(1 / d) : 0;
  for (int64_t i = 0; i < n; ++i) {
    const double q = std::trunc(f32(f32(f32(x[i]) * id) + 8.5));
    codes[i] = std::min<int64_t>(15, std::max<int64_t>(0, static_cast<int64_t>(q)));
  }
  *scale = round_to_float_dtype(d, DType::f16);
}

// MLC GroupQuantize: scale = max|w| / 7 and the codes computed in the scale dtype.
void quantize_group_mlc(const double* x, int64_t n, DType t, int64_t* codes, double* scale) {
  auto fl = [t](double v) { return round_to_float_dtype(v, t); };
  double max_abs = 0;
  for (int64_t i = 0; i < n; ++i) max_abs = std::max(max_abs, std::fabs(fl(x[i])));
  *scale = fl(max_abs / 7);
  for (int64_t i = 0; i < n; ++i) {
    codes[i] = 7;
    if (*scale != 0) codes[i] = mlc_code(x[i], *scale, t);
  }
}

}  // namespace

int64_t mlc_code(double x, double s, DType t) {
  auto fl = [t](double v) { return round_to_float_dtype(v, t); };
  const double u = fl(fl(fl(x) / s) + 7);
  return std::min<int64_t>(14, std::max<int64_t>(0, static_cast<int64_t>(std::nearbyint(u))));
}

double q4_0_inverse_scale(const double* x, int64_t n) {
  const double d = block_scale_q4_0(x, n);
  return d != 0 ? f32(1 / d) : 0;
}

DType format_storage_dtype(const std::string& format) { return is_ggml(format) ? DType::u8 : DType::u32; }
DType format_scale_dtype(const std::string& format) { return format == "q4f32_1" ? DType::f32 : DType::f16; }

Quantized quantize_rows(const std::vector<double>& w, int64_t rows, int64_t k, const std::string& format,
                        int64_t group) {
  Quantized q;
  q.groups = (k + group - 1) / group;
  std::vector<int64_t> codes(static_cast<size_t>(rows * q.groups * group), 0);  // rows padded to whole groups
  q.scales.resize(static_cast<size_t>(rows * q.groups));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t g = 0; g < q.groups; ++g) {
      const int64_t lo = g * group, n = std::min(k, lo + group) - lo;
      int64_t* out = codes.data() + r * q.groups * group + lo;
      double* scale = &q.scales[static_cast<size_t>(r * q.groups + g)];
      if (is_ggml(format)) {
        quantize_block_q4_0(w.data() + r * k + lo, n, out, scale);
      } else {
        quantize_group_mlc(w.data() + r * k + lo, n, format_scale_dtype(format), out, scale);
      }
    }
  }
  const int64_t* c = codes.data();
  if (is_ggml(format)) {  // byte j of a block: element j in the low nibble, j + 16 in the high
    q.per_row = q.groups * 16;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t b = 0; b < q.groups; ++b) {
        const int64_t* blk = c + (r * q.groups + b) * 32;
        for (int64_t j = 0; j < 16; ++j) q.packed.push_back(blk[j] | (blk[j + 16] << 4));
      }
    }
  } else {  // element e of a u32 word in bits [4e, 4e + 4)
    q.per_row = q.groups * group / 8;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t wd = 0; wd < q.per_row; ++wd) {
        int64_t word = 0;
        for (int64_t e = 0; e < 8; ++e) word |= c[r * q.groups * group + wd * 8 + e] << (4 * e);
        q.packed.push_back(word);
      }
    }
  }
  return q;
}

double dequantize_element(const std::vector<int64_t>& packed, const std::vector<double>& scales, int64_t per_row,
                          int64_t groups, int64_t r, int64_t i, const std::string& format, int64_t group) {
  if (is_ggml(format)) {
    const int64_t byte = packed[static_cast<size_t>(r * per_row + (i / 32) * 16 + (i % 32) % 16)];
    const int64_t q = (i % 32) < 16 ? (byte & 15) : (byte >> 4);
    return static_cast<double>(q - 8) * scales[static_cast<size_t>(r * groups + i / 32)];
  }
  const int64_t word = packed[static_cast<size_t>(r * per_row + i / 8)];
  const int64_t q = (word >> (4 * (i % 8))) & 15;
  return static_cast<double>(q - 7) * scales[static_cast<size_t>(r * groups + i / group)];
}

}  // namespace difftest::reference
