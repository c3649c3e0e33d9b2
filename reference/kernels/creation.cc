// Reference arange / full / zeros / ones, from compiler/ops/creation.cc.
#include "reference/kernel.h"

namespace difftest::reference {

namespace {

std::vector<Tensor> arange(const KernelContext& c) {
  const int64_t start = c.eval(c.attrs().get_sym("start")), end = c.eval(c.attrs().get_sym("end"));
  const int64_t step = c.attrs().get_int("step");
  const int64_t span = step > 0 ? end - start : start - end, s = step > 0 ? step : -step;
  const int64_t len = std::max<int64_t>(0, (span + s - 1) / s);
  std::vector<int64_t> v(static_cast<size_t>(len));
  for (int64_t i = 0; i < len; ++i) v[static_cast<size_t>(i)] = start + i * step;
  if (!is_float(c.declared())) return {c.ints(0, {len}, v)};
  Tensor out(c.storage(c.declared()), {len});
  for (int64_t i = 0; i < len; ++i) out.set_int(i, v[static_cast<size_t>(i)]);  // exact in f64, one rounding otherwise
  return {out};
}

// full: the value converted to the dtype, like a literal constant (so in both modes).
std::vector<Tensor> filled(const KernelContext& c, double value) {
  std::vector<int64_t> shape;
  for (const auto& d : c.attrs().get_syms("shape")) shape.push_back(c.eval(d));
  const DType t = c.declared();
  const int64_t n = shape_numel(shape);
  if (is_float(t)) return {c.floats(0, shape, std::vector<double>(static_cast<size_t>(n), round_to_float_dtype(value, t)))};
  return {c.ints(0, shape, std::vector<int64_t>(static_cast<size_t>(n), static_cast<int64_t>(value)))};
}

std::vector<Tensor> full(const KernelContext& c) { return filled(c, c.attrs().get_float("value")); }
std::vector<Tensor> zeros(const KernelContext& c) { return filled(c, 0); }
std::vector<Tensor> ones(const KernelContext& c) { return filled(c, 1); }

}  // namespace

void register_creation_kernels(KernelTable& t) {
  t.add("arange", arange);
  t.add("full", full);
  t.add("zeros", zeros);
  t.add("ones", ones);
}

}  // namespace difftest::reference
