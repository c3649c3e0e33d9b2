#include "compiler/tensor/constant.h"

#include <cmath>

#include "compiler/support/diagnostics.h"

namespace difftest {

uint64_t splitmix64(uint64_t seed, uint64_t counter) {
  uint64_t z = seed + (counter + 1) * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

namespace {

double unit(uint64_t seed, uint64_t k) { return static_cast<double>(splitmix64(seed, k) >> 11) * 0x1.0p-53; }

}  // namespace

Tensor materialize_constant(const ConstantInit& c, DType dtype, const std::vector<int64_t>& shape) {
  Tensor t(dtype, shape);
  const auto n = static_cast<uint64_t>(t.numel());
  switch (c.kind) {
    case ConstantInit::Kind::Literal:
      if (is_float(dtype)) {
        DT_CHECK(c.float_values.size() == n, "literal constant size differs from its shape");
        for (uint64_t i = 0; i < n; ++i) t.set(static_cast<int64_t>(i), c.float_values[i]);
      } else {
        DT_CHECK(c.int_values.size() == n, "literal constant size differs from its shape");
        for (uint64_t i = 0; i < n; ++i) t.set_int(static_cast<int64_t>(i), c.int_values[i]);
      }
      return t;
    case ConstantInit::Kind::Uniform:
      for (uint64_t i = 0; i < n; ++i) {
        const double u = unit(c.seed, i);
        if (is_float(dtype)) {
          t.set(static_cast<int64_t>(i), c.p0 + (c.p1 - c.p0) * u);
        } else {
          const double span = c.p1 - c.p0 + 1;
          t.set_int(static_cast<int64_t>(i), static_cast<int64_t>(c.p0 + std::floor(u * span)));
        }
      }
      return t;
    case ConstantInit::Kind::Normal:
      for (uint64_t i = 0; i < n; ++i) {
        double s = -6;
        for (uint64_t k = 0; k < 12; ++k) s += unit(c.seed, 12 * i + k);
        t.set(static_cast<int64_t>(i), c.p0 + c.p1 * s);
      }
      return t;
  }
  return t;
}

}  // namespace difftest
