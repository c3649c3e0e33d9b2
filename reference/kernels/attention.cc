// Reference masks, attention and rope, from compiler/ops/attention.cc. Query row i sits at
// position p = offset + i, key column j at position j.
#include <cmath>
#include <limits>

#include "reference/kernel.h"
#include "reference/kernels/gemm.h"

namespace difftest::reference {

namespace {

// The window/sink/causal admission rule shared by the masks and attention.
struct Admission {
  bool causal = false;
  int64_t window = 0;  // 0: none
  int64_t sink = 0;
  int64_t offset = 0;

  bool admits(int64_t i, int64_t j) const {
    const int64_t p = offset + i;
    if ((causal || window > 0) && j > p) return false;
    if (window > 0 && !(j > p - window || j < sink)) return false;
    return true;
  }
};

std::vector<Tensor> mask(const KernelContext& c, const Admission& a) {
  const int64_t q = c.eval(c.attrs().get_sym("q_len")), kv = c.eval(c.attrs().get_sym("kv_len"));
  std::vector<int64_t> v(static_cast<size_t>(q * kv));
  for (int64_t i = 0; i < q; ++i) {
    for (int64_t j = 0; j < kv; ++j) v[static_cast<size_t>(i * kv + j)] = a.admits(i, j);
  }
  return {c.ints(0, {q, kv}, v)};
}

std::vector<Tensor> causal_mask(const KernelContext& c) {
  return mask(c, Admission{true, 0, 0, c.eval(c.attrs().get_sym("offset"))});
}

std::vector<Tensor> sliding_window_mask(const KernelContext& c) {
  return mask(c, Admission{true, c.attrs().get_int("window"), c.attrs().get_int("sink"),
                           c.eval(c.attrs().get_sym("offset"))});
}

std::vector<Tensor> attention(const KernelContext& c) {
  const Tensor &q = c.arg(0), &k = c.arg(1), &v = c.arg(2);
  const int64_t B = q.shape()[0], Sq = q.shape()[1], Hq = q.shape()[2], D = q.shape()[3];
  const int64_t Skv = k.shape()[1], Hkv = k.shape()[2], Dv = v.shape()[3];
  const DType acc = c.acc(c.declared());
  const Rounder rd = c.rounder(acc);
  const double scale_attr = c.attrs().get_float("scale");
  const double scale = rd(scale_attr != 0 ? scale_attr : 1 / std::sqrt(static_cast<double>(D)));
  const double softcap = c.attrs().get_float("softcap");
  const Admission adm{c.attrs().get_bool("causal"), c.attrs().get_int("window"), c.attrs().get_int("sink"),
                      c.eval(c.attrs().get_sym("offset"))};
  const std::vector<int64_t> user_mask = c.has_arg(3) ? c.arg(3).to_ints() : std::vector<int64_t>{};
  const std::vector<double> qv = q.to_doubles(), kv = k.to_doubles(), vv = v.to_doubles();
  std::vector<double> out(static_cast<size_t>(B * Sq * Hq * Dv));
  std::vector<double> qm(static_cast<size_t>(Sq * D)), km(static_cast<size_t>(Skv * D)), vm(static_cast<size_t>(Skv * Dv));
  std::vector<double> scores(static_cast<size_t>(Sq * Skv)), o(static_cast<size_t>(Sq * Dv));
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t h = 0; h < Hq; ++h) {
      const int64_t g = h / (Hq / Hkv);
      for (int64_t i = 0; i < Sq; ++i) {
        for (int64_t d = 0; d < D; ++d) qm[static_cast<size_t>(i * D + d)] = qv[static_cast<size_t>(((b * Sq + i) * Hq + h) * D + d)];
      }
      for (int64_t j = 0; j < Skv; ++j) {
        for (int64_t d = 0; d < D; ++d) km[static_cast<size_t>(j * D + d)] = kv[static_cast<size_t>(((b * Skv + j) * Hkv + g) * D + d)];
        for (int64_t d = 0; d < Dv; ++d) vm[static_cast<size_t>(j * Dv + d)] = vv[static_cast<size_t>(((b * Skv + j) * Hkv + g) * Dv + d)];
      }
      gemm(c, acc, false, true, Sq, Skv, D, qm.data(), km.data(), scores.data());
      for (int64_t i = 0; i < Sq; ++i) {
        double* row = scores.data() + i * Skv;
        double m = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < Skv; ++j) {
          double s = rd(row[j] * scale);
          if (softcap > 0) s = rd(softcap * rd.function(std::tanh(rd(s / softcap))));
          const bool ok = adm.admits(i, j) && (user_mask.empty() || user_mask[static_cast<size_t>(i * Skv + j)]);
          row[j] = ok ? s : -std::numeric_limits<double>::infinity();
          m = std::max(m, row[j]);
        }
        if (std::isinf(m) && m < 0) {  // no admitted key: the row is 0
          for (int64_t j = 0; j < Skv; ++j) row[j] = 0;
          continue;
        }
        double sum = 0;
        for (int64_t j = 0; j < Skv; ++j) {
          row[j] = std::isinf(row[j]) ? 0 : rd.function(std::exp(rd(row[j] - m)));
          sum = rd(sum + row[j]);
        }
        for (int64_t j = 0; j < Skv; ++j) row[j] = rd(row[j] / sum);
      }
      gemm(c, acc, false, false, Sq, Dv, Skv, scores.data(), vm.data(), o.data());
      for (int64_t i = 0; i < Sq; ++i) {
        for (int64_t d = 0; d < Dv; ++d) out[static_cast<size_t>(((b * Sq + i) * Hq + h) * Dv + d)] = o[static_cast<size_t>(i * Dv + d)];
      }
    }
  }
  return {c.floats(0, {B, Sq, Hq, Dv}, out)};
}

std::vector<Tensor> rope(const KernelContext& c) {
  const Tensor& x = c.arg(0);
  const int64_t B = x.shape()[0], S = x.shape()[1], H = x.shape()[2], D = x.shape()[3];
  const double theta = c.attrs().get_float("theta");
  const int64_t offset = c.eval(c.attrs().get_sym("offset"));
  const bool neox = c.attrs().get_string("style") == "neox";
  Perturbation* pert = c.mode == Mode::Native ? c.perturbation : nullptr;
  const bool angles_in_f32 = pert != nullptr && is_float(c.declared());
  const std::vector<double> v = x.to_doubles();
  std::vector<double> out(v.size());
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t s = 0; s < S; ++s) {
      const double pos = static_cast<double>(offset + s);
      for (int64_t h = 0; h < H; ++h) {
        const int64_t base = ((b * S + s) * H + h) * D;
        for (int64_t i = 0; i < D / 2; ++i) {
          const double inv_freq = std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(D));
          double cos_a, sin_a;
          if (angles_in_f32) {
            // A member computes the angle as implementations do, in f32 (HF's inv_freq and
            // position products, an exporter's initializers): its rounding moves a large angle
            // (position 255, theta 1e6) by up to 1e-5 radians, far more than the output's own.
            const double angle = pert->round(static_cast<double>(pos) * pert->round(inv_freq, DType::f32), DType::f32);
            cos_a = pert->round(pert->function_error(std::cos(angle), DType::f32), DType::f32);
            sin_a = pert->round(pert->function_error(std::sin(angle), DType::f32), DType::f32);
          } else {
            const double angle = pos * inv_freq;
            cos_a = std::cos(angle);
            sin_a = std::sin(angle);
          }
          const int64_t i1 = base + (neox ? i : 2 * i), i2 = base + (neox ? i + D / 2 : 2 * i + 1);
          const double x1 = v[static_cast<size_t>(i1)], x2 = v[static_cast<size_t>(i2)];
          out[static_cast<size_t>(i1)] = x1 * cos_a - x2 * sin_a;
          out[static_cast<size_t>(i2)] = x1 * sin_a + x2 * cos_a;
        }
      }
    }
  }
  return {c.floats(0, x.shape(), out)};
}

}  // namespace

void register_attention_kernels(KernelTable& t) {
  t.add("causal_mask", causal_mask);
  t.add("sliding_window_mask", sliding_window_mask);
  t.add("attention", attention);
  t.add("rope", rope);
}

}  // namespace difftest::reference
