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

// Mean and biased variance in one pass, E[x^2] - E[x]^2 (clamped at 0: the difference of two
// rounded moments can fall below it).
Moments one_pass_moments(const double* x, int64_t n, int64_t stride, const Rounder& rd) {
  const double mean = rd(rounded_sum(x, n, stride, rd) / static_cast<double>(n));
  double sq = 0;
  for (int64_t i = 0; i < n; ++i) sq = rd(sq + rd(x[i * stride] * x[i * stride]));
  const double mean_sq = rd(sq / static_cast<double>(n));
  return {mean, std::max(0.0, rd(mean_sq - rd(mean * mean)))};
}

double inv_std(double var, double eps, const Rounder& rd) { return rd(1 / rd(std::sqrt(rd(var + eps)))); }

bool rewritten(const KernelContext& c) { return c.perturbation != nullptr && c.perturbation->rewritten_forms(); }

// One pass only in an f32 or f64 accumulator, where implementations compute it (a declared
// f16/bf16 accumulator keeps two passes: tolerance/rules/normalization.cc says why).
Moments centered_moments(const double* x, int64_t n, int64_t stride, const KernelContext& c, const Rounder& rd) {
  const bool wide = rd.dtype == DType::f32 || rd.dtype == DType::f64;
  return rewritten(c) && wide ? one_pass_moments(x, n, stride, rd) : moments(x, n, stride, rd);
}

// A centered norm's element, normalized and affine: ((x - mean) * inv) * g + b, or in a folded
// member x * s + (b - mean * s) with s = inv * g (multiply-adds contracted in a fused member).
double centered_affine(double x, const Moments& m, double inv, double g, double b, const KernelContext& c,
                       const Rounder& rd);

// The affine step normed * g + b: one rounding in a member that contracts multiply-adds (as a
// compiler that contracts emits it: an FMA), two otherwise.
double affine(double normed, double g, double b, const KernelContext& c, const Rounder& rd) {
  const bool fused = c.perturbation != nullptr && c.perturbation->fused();
  return fused ? rd(normed * g + b) : rd(rd(normed * g) + b);
}

double centered_affine(double x, const Moments& m, double inv, double g, double b, const KernelContext& c,
                       const Rounder& rd) {
  if (!rewritten(c)) return affine(rd(rd(x - m.mean) * inv), g, b, c, rd);
  const bool fused = c.perturbation->fused();
  const double s = rd(inv * g);
  const double shift = fused ? rd(b - m.mean * s) : rd(b - rd(m.mean * s));
  return fused ? rd(x * s + shift) : rd(rd(x * s) + shift);
}

// Whether exp of every score (at most max) summed over n terms stays finite in `acc`, with the
// largest term well above the least normal (e^8 times it: underflow would flush the row).
bool unshifted_softmax_in_range(double max, int64_t n, DType acc) {
  const bool half = acc == DType::f16, wide = acc == DType::f64;
  const double largest = half ? 65504.0 : wide ? std::numeric_limits<double>::max() : std::numeric_limits<float>::max();
  const double least = half ? 6.103515625e-05 : wide ? std::numeric_limits<double>::min() : std::numeric_limits<float>::min();
  const double top = std::log(largest / static_cast<double>(n)) - 1;
  const double bottom = std::log(least) + 8;
  return std::isfinite(max) && max < top && max > bottom;
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
      // A member in rewritten forms: softmax without the max subtracted where exp(max) times
      // the row stays in the accumulator's range (and far from its underflow), log_softmax as
      // x - (max + log(sum)) (PyTorch's CPU kernel).
      const bool unshifted = !Log && rewritten(c) && unshifted_softmax_in_range(m, s.extent, rd.dtype);
      const double shift = unshifted ? 0.0 : m;
      for (int64_t k = 0; k < s.extent; ++k) {
        e[static_cast<size_t>(k)] = rd.function(std::exp(rd(v[static_cast<size_t>(base + k * s.inner)] - shift)));
      }
      const double sum = rounded_sum(e.data(), s.extent, 1, rd);
      const double log_sum = rd.function(std::log(sum));
      const double log_normalizer = Log && rewritten(c) ? rd(m + log_sum) : 0.0;
      for (int64_t k = 0; k < s.extent; ++k) {
        const auto i = static_cast<size_t>(base + k * s.inner);
        if (Log) {
          out[i] = rewritten(c) ? rd(v[i] - log_normalizer) : rd(rd(v[i] - m) - log_sum);
        } else {
          out[i] = rd(e[static_cast<size_t>(k)] / sum);
        }
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
      Moments mv{0, 0};
      if (Rms) {
        double ss = 0;
        for (int64_t k = 0; k < s.extent; ++k) ss = rd(ss + rd(row[k * s.inner] * row[k * s.inner]));
        mv.var = rd(ss / static_cast<double>(s.extent));
      } else {
        mv = centered_moments(row, s.extent, s.inner, c, rd);
      }
      const double scale = inv_std(mv.var, eps, rd);
      for (int64_t k = 0; k < s.extent; ++k) {
        const auto i = static_cast<size_t>(base + k * s.inner);
        const auto ch = static_cast<size_t>(k);
        // rms_norm stays unfolded in every member: folded, x * (inv * w), it rounds once per
        // element where the plain form rounds twice, so a member drawing it samples less of the
        // error compilers show (a clean program became a false outlier: docs/tolerance.md).
        out[i] = Rms ? rd(rd(v[i] * scale) * rd(g[ch] + offset))
                     : centered_affine(v[i], mv, scale, g[ch], b[ch], c, rd);
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
    const Moments mv = centered_moments(v.data() + base, block, 1, c, rd);
    const double scale = inv_std(mv.var, eps, rd);
    for (int64_t k = 0; k < block; ++k) {
      const auto i = static_cast<size_t>(base + k);
      const auto ch = static_cast<size_t>((blk % groups) * (channels / groups) + k / spatial);
      out[i] = centered_affine(v[i], mv, scale, g[ch], b[ch], c, rd);
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
