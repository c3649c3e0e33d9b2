// Reference softmax and normalization layers, from compiler/ops/normalization.cc. Every
// intermediate step is rounded to the accumulator dtype in Native mode; the result tensor
// rounds once more to the operand dtype.
#include <cmath>
#include <limits>

#include "reference/kernel.h"

namespace difftest::reference {

namespace {

struct Moments {
  double mean, var;
};

// Mean and biased variance of n values at x[0], x[stride], ... (two passes, rounded steps).
Moments moments(const double* x, int64_t n, int64_t stride, const Rounder& rd) {
  const double mean = rd(rounded_sum(x, n, stride, rd) / static_cast<double>(n));
  double ss = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double d = rd(x[i * stride] - mean);
    ss = rd(ss + rd(d * d));
  }
  return {mean, rd(ss / static_cast<double>(n))};
}

double inv_std(double var, double eps, const Rounder& rd) { return rd(1 / rd(std::sqrt(rd(var + eps)))); }

// The affine step normed * g + b: one rounding in a member that contracts multiply-adds (as a
// compiler that contracts emits it: an FMA), two otherwise.
double affine(double normed, double g, double b, const KernelContext& c, const Rounder& rd) {
  const bool fused = c.perturbation != nullptr && c.perturbation->fused();
  return fused ? rd(normed * g + b) : rd(rd(normed * g) + b);
}

template <bool Log>
std::vector<Tensor> softmax(const KernelContext& c) {
  const Tensor& x = c.arg(0);
  const AxisSplit s = split_at(x.shape(), normalize_axis(c.attrs().get_int("axis"), x.rank()));
  const Rounder rd = c.rounder(c.acc(c.declared()));
  const std::vector<double> v = x.to_doubles();
  std::vector<double> out(v.size());
  std::vector<double> e(static_cast<size_t>(s.extent));
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t in = 0; in < s.inner; ++in) {
      const int64_t base = o * s.extent * s.inner + in;
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < s.extent; ++k) m = std::max(m, v[static_cast<size_t>(base + k * s.inner)]);
      for (int64_t k = 0; k < s.extent; ++k) {
        e[static_cast<size_t>(k)] = rd.function(std::exp(rd(v[static_cast<size_t>(base + k * s.inner)] - m)));
      }
      const double sum = rounded_sum(e.data(), s.extent, 1, rd);
      const double log_sum = rd.function(std::log(sum));
      for (int64_t k = 0; k < s.extent; ++k) {
        const auto i = static_cast<size_t>(base + k * s.inner);
        out[i] = Log ? rd(rd(v[i] - m) - log_sum) : rd(e[static_cast<size_t>(k)] / sum);
      }
    }
  }
  return {c.floats(0, x.shape(), out)};
}

// rms_norm and layer_norm along one axis.
template <bool Rms>
std::vector<Tensor> axis_norm(const KernelContext& c) {
  const Tensor& x = c.arg(0);
  const AxisSplit s = split_at(x.shape(), normalize_axis(c.attrs().get_int("axis"), x.rank()));
  const Rounder rd = c.rounder(c.acc(c.declared()));
  const double eps = c.attrs().get_float("eps");
  const std::vector<double> v = x.to_doubles(), g = c.arg(1).to_doubles();
  const std::vector<double> b = Rms ? std::vector<double>{} : c.arg(2).to_doubles();
  const double offset = Rms ? c.attrs().get_float("weight_offset") : 0.0;
  std::vector<double> out(v.size());
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t in = 0; in < s.inner; ++in) {
      const int64_t base = o * s.extent * s.inner + in;
      const double* row = v.data() + base;
      double mean = 0, scale;
      if (Rms) {
        double ss = 0;
        for (int64_t k = 0; k < s.extent; ++k) ss = rd(ss + rd(row[k * s.inner] * row[k * s.inner]));
        scale = inv_std(rd(ss / static_cast<double>(s.extent)), eps, rd);
      } else {
        const Moments mv = moments(row, s.extent, s.inner, rd);
        mean = mv.mean;
        scale = inv_std(mv.var, eps, rd);
      }
      for (int64_t k = 0; k < s.extent; ++k) {
        const auto i = static_cast<size_t>(base + k * s.inner);
        const double normed = rd(rd(v[i] - mean) * scale);
        out[i] = Rms ? rd(normed * rd(g[static_cast<size_t>(k)] + offset))
                     : affine(normed, g[static_cast<size_t>(k)], b[static_cast<size_t>(k)], c, rd);
      }
    }
  }
  return {c.floats(0, x.shape(), out)};
}

// group_norm (Grouped) and instance_norm: x is [N, C, spatial...]; each (n, group) or (n, c)
// is a contiguous block of the buffer.
template <bool Grouped>
std::vector<Tensor> channel_norm(const KernelContext& c) {
  const Tensor& x = c.arg(0);
  const int64_t n = x.shape()[0], channels = x.shape()[1];
  const int64_t spatial = x.numel() / (n * channels);
  const int64_t groups = Grouped ? c.attrs().get_int("num_groups") : channels;
  const int64_t block = (channels / groups) * spatial;
  const Rounder rd = c.rounder(c.acc(c.declared()));
  const double eps = c.attrs().get_float("eps");
  const std::vector<double> v = x.to_doubles(), g = c.arg(1).to_doubles(), b = c.arg(2).to_doubles();
  std::vector<double> out(v.size());
  for (int64_t blk = 0; blk < n * groups; ++blk) {
    const int64_t base = blk * block;
    const Moments mv = moments(v.data() + base, block, 1, rd);
    const double scale = inv_std(mv.var, eps, rd);
    for (int64_t k = 0; k < block; ++k) {
      const auto i = static_cast<size_t>(base + k);
      const auto ch = static_cast<size_t>((blk % groups) * (channels / groups) + k / spatial);
      out[i] = affine(rd(rd(v[i] - mv.mean) * scale), g[ch], b[ch], c, rd);
    }
  }
  return {c.floats(0, x.shape(), out)};
}

}  // namespace

void register_normalization_kernels(KernelTable& t) {
  t.add("softmax", softmax<false>);
  t.add("log_softmax", softmax<true>);
  t.add("rms_norm", axis_norm<true>);
  t.add("layer_norm", axis_norm<false>);
  t.add("group_norm", channel_norm<true>);
  t.add("instance_norm", channel_norm<false>);
}

}  // namespace difftest::reference
