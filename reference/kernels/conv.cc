// Reference convolutions and upsampling, from compiler/ops/conv.cc: direct loops in the
// semantics' own index form, accumulating sequentially in `acc`, the bias added last. An
// ensemble member sums each output's products and its bias in the member's order instead (the
// bias one more term: first in the reversed order, anywhere in a random one), each product
// contracted with its sum in a fused member: convolution kernels (MLAS, oneDNN, im2col and
// GEMM) take every such order, and two ONNX Runtime results at `disabled` were a fused
// index-order sum that members summing in index order alone, unfused, did not cover.
#include <utility>
#include <vector>

#include "reference/kernel.h"
#include "reference/perturbation.h"

namespace difftest::reference {

namespace {

// One output element's products and bias, summed as the evaluation's mode says.
class ConvSum {
 public:
  ConvSum(const KernelContext& c, const Rounder& rd) : member_(c.perturbation), rd_(rd) {}

  void add(double x, double w) {
    if (member_ == nullptr) {
      s_ = rd_(s_ + rd_(x * w));  // x * w of f32 or narrower operands is exact in f64
    } else {
      terms_.push_back({x, w});
    }
  }

  double finish(const std::vector<double>& bias, int64_t o) {
    if (!bias.empty()) add_bias(bias[static_cast<size_t>(o)]);
    if (member_ == nullptr) return std::exchange(s_, 0.0);
    const std::vector<int64_t> order = member_->summation_order(static_cast<int64_t>(terms_.size()));
    double s = 0;
    for (const int64_t t : order) {
      const auto [x, w] = terms_[static_cast<size_t>(t)];
      s = member_->fused() ? rd_(s + x * w) : rd_(s + rd_(x * w));
    }
    terms_.clear();
    return s;
  }

 private:
  void add_bias(double b) {
    if (member_ == nullptr) {
      s_ = rd_(s_ + b);
    } else {
      terms_.push_back({b, 1.0});
    }
  }

  Perturbation* member_;
  const Rounder& rd_;
  double s_ = 0;
  std::vector<std::pair<double, double>> terms_;
};

std::vector<Tensor> conv1d(const KernelContext& c) {
  const Tensor &x = c.arg(0), &w = c.arg(1);
  const int64_t N = x.shape()[0], Cin = x.shape()[1], L = x.shape()[2];
  const int64_t Cout = w.shape()[0], Cg = w.shape()[1], K = w.shape()[2];
  const int64_t stride = c.attrs().get_int("stride"), pad = c.attrs().get_int("padding");
  const int64_t dil = c.attrs().get_int("dilation"), groups = c.attrs().get_int("groups");
  const int64_t Lout = (L + 2 * pad - dil * (K - 1) - 1) / stride + 1;
  const Rounder rd = c.rounder(c.acc(c.declared()));
  ConvSum sum(c, rd);
  const std::vector<double> xv = x.to_doubles(), wv = w.to_doubles();
  const std::vector<double> bias = c.has_arg(2) ? c.arg(2).to_doubles() : std::vector<double>{};
  std::vector<double> out(static_cast<size_t>(N * Cout * Lout));
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t o = 0; o < Cout; ++o) {
      const int64_t g = o / (Cout / groups);
      for (int64_t l = 0; l < Lout; ++l) {
        for (int64_t ci = 0; ci < Cg; ++ci) {
          for (int64_t k = 0; k < K; ++k) {
            const int64_t pos = l * stride - pad + k * dil;
            if (pos < 0 || pos >= L) continue;
            const double xe = xv[static_cast<size_t>((n * Cin + g * Cg + ci) * L + pos)];
            sum.add(xe, wv[static_cast<size_t>((o * Cg + ci) * K + k)]);
          }
        }
        out[static_cast<size_t>((n * Cout + o) * Lout + l)] = sum.finish(bias, o);
      }
    }
  }
  return {c.floats(0, {N, Cout, Lout}, out)};
}

std::vector<Tensor> conv2d(const KernelContext& c) {
  const Tensor &x = c.arg(0), &w = c.arg(1);
  const int64_t N = x.shape()[0], Cin = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
  const int64_t Cout = w.shape()[0], Cg = w.shape()[1], KH = w.shape()[2], KW = w.shape()[3];
  const auto& st = c.attrs().get_ints("stride");
  const auto& pd = c.attrs().get_ints("padding");
  const auto& dl = c.attrs().get_ints("dilation");
  const int64_t groups = c.attrs().get_int("groups");
  const int64_t Ho = (H + 2 * pd[0] - dl[0] * (KH - 1) - 1) / st[0] + 1;
  const int64_t Wo = (W + 2 * pd[1] - dl[1] * (KW - 1) - 1) / st[1] + 1;
  const Rounder rd = c.rounder(c.acc(c.declared()));
  ConvSum sum(c, rd);
  const std::vector<double> xv = x.to_doubles(), wv = w.to_doubles();
  const std::vector<double> bias = c.has_arg(2) ? c.arg(2).to_doubles() : std::vector<double>{};
  std::vector<double> out(static_cast<size_t>(N * Cout * Ho * Wo));
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t o = 0; o < Cout; ++o) {
      const int64_t g = o / (Cout / groups);
      for (int64_t h = 0; h < Ho; ++h) {
        for (int64_t v = 0; v < Wo; ++v) {
          for (int64_t ci = 0; ci < Cg; ++ci) {
            for (int64_t kh = 0; kh < KH; ++kh) {
              const int64_t y = h * st[0] - pd[0] + kh * dl[0];
              if (y < 0 || y >= H) continue;
              for (int64_t kw = 0; kw < KW; ++kw) {
                const int64_t z = v * st[1] - pd[1] + kw * dl[1];
                if (z < 0 || z >= W) continue;
                const double xe = xv[static_cast<size_t>(((n * Cin + g * Cg + ci) * H + y) * W + z)];
                sum.add(xe, wv[static_cast<size_t>(((o * Cg + ci) * KH + kh) * KW + kw)]);
              }
            }
          }
          out[static_cast<size_t>(((n * Cout + o) * Ho + h) * Wo + v)] = sum.finish(bias, o);
        }
      }
    }
  }
  return {c.floats(0, {N, Cout, Ho, Wo}, out)};
}

std::vector<Tensor> conv_transpose1d(const KernelContext& c) {
  const Tensor &x = c.arg(0), &w = c.arg(1);
  const int64_t N = x.shape()[0], Cin = x.shape()[1], L = x.shape()[2];
  const int64_t Cog = w.shape()[1], K = w.shape()[2];
  const int64_t stride = c.attrs().get_int("stride"), pad = c.attrs().get_int("padding");
  const int64_t dil = c.attrs().get_int("dilation"), groups = c.attrs().get_int("groups");
  const int64_t out_pad = c.attrs().get_int("output_padding");
  const int64_t Cout = Cog * groups, Cig = Cin / groups;
  const int64_t Lout = (L - 1) * stride - 2 * pad + dil * (K - 1) + out_pad + 1;
  const Rounder rd = c.rounder(c.acc(c.declared()));
  ConvSum sum(c, rd);
  const std::vector<double> xv = x.to_doubles(), wv = w.to_doubles();
  const std::vector<double> bias = c.has_arg(2) ? c.arg(2).to_doubles() : std::vector<double>{};
  std::vector<double> out(static_cast<size_t>(N * Cout * Lout));
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t o = 0; o < Cout; ++o) {
      const int64_t g = o / Cog, oo = o % Cog;
      for (int64_t l = 0; l < Lout; ++l) {
        for (int64_t ci = g * Cig; ci < (g + 1) * Cig; ++ci) {
          for (int64_t k = 0; k < K; ++k) {
            const int64_t num = l + pad - k * dil;  // l = j*stride - pad + k*dil
            if (num < 0 || num % stride != 0 || num / stride >= L) continue;
            const int64_t j = num / stride;
            sum.add(xv[static_cast<size_t>((n * Cin + ci) * L + j)], wv[static_cast<size_t>((ci * Cog + oo) * K + k)]);
          }
        }
        out[static_cast<size_t>((n * Cout + o) * Lout + l)] = sum.finish(bias, o);
      }
    }
  }
  return {c.floats(0, {N, Cout, Lout}, out)};
}

std::vector<Tensor> upsample_nearest1d(const KernelContext& c) {
  const Tensor& x = c.arg(0);
  const int64_t scale = c.attrs().get_int("scale");
  const int64_t rows = x.shape()[0] * x.shape()[1], L = x.shape()[2];
  const std::vector<double> v = x.to_doubles();
  std::vector<double> out(static_cast<size_t>(rows * L * scale));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t l = 0; l < L * scale; ++l) out[static_cast<size_t>(r * L * scale + l)] = v[static_cast<size_t>(r * L + l / scale)];
  }
  return {c.floats(0, {x.shape()[0], x.shape()[1], L * scale}, out)};
}

}  // namespace

void register_conv_kernels(KernelTable& t) {
  t.add("conv1d", conv1d);
  t.add("conv2d", conv2d);
  t.add("conv_transpose1d", conv_transpose1d);
  t.add("upsample_nearest1d", upsample_nearest1d);
}

}  // namespace difftest::reference
