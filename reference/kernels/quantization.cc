// Reference quantize / dequantize (the format arithmetic lives in reference/quantize.cc).
#include "reference/kernel.h"
#include "reference/quantize.h"

namespace difftest::reference {

namespace {

std::vector<Tensor> quantize(const KernelContext& c) {
  const Tensor& w = c.arg(0);
  const int64_t k = w.shape().back();
  const Quantized q =
      quantize_rows(w.to_doubles(), w.numel() / k, k, c.attrs().get_string("format"), c.attrs().get_int("group"));
  std::vector<int64_t> packed_shape(w.shape().begin(), w.shape().end() - 1), scale_shape = packed_shape;
  packed_shape.push_back(q.per_row);
  scale_shape.push_back(q.groups);
  return {c.ints(0, packed_shape, q.packed), c.floats(1, scale_shape, q.scales)};
}

std::vector<Tensor> dequantize(const KernelContext& c) {
  const Tensor &packed = c.arg(0), &scales = c.arg(1);
  const std::string format = c.attrs().get_string("format");
  const int64_t group = c.attrs().get_int("group");
  const int64_t groups = scales.shape().back(), rows = scales.numel() / groups;
  const int64_t per_row = packed.shape().back();
  int64_t k = format == "q4_0" ? groups * 32 : per_row * 8;
  if (const int64_t attr_k = c.eval(c.attrs().get_sym("k")); attr_k != 0) k = attr_k;
  const std::vector<int64_t> bits = packed.to_ints();
  const std::vector<double> s = scales.to_doubles();
  std::vector<double> out(static_cast<size_t>(rows * k));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < k; ++i) {
      out[static_cast<size_t>(r * k + i)] = dequantize_element(bits, s, per_row, groups, r, i, format, group);
    }
  }
  std::vector<int64_t> shape(packed.shape().begin(), packed.shape().end() - 1);
  shape.push_back(k);
  return {c.floats(0, shape, out)};  // exact decoding; the result storage rounds once
}

}  // namespace

void register_quantization_kernels(KernelTable& t) {
  t.add("quantize", quantize);
  t.add("dequantize", dequantize);
}

}  // namespace difftest::reference
