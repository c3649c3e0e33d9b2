// Error rules of attention and rope. Attention is bounded through its decomposition: the score
// dot products (K = head dim), the optional soft-cap, a softmax over the admitted keys and the
// weighted sum of values (K = admitted keys), all in the accumulator dtype.
#include <cmath>

#include "tolerance/bounds.h"

namespace difftest::tolerance {

namespace {

bool admitted(int64_t i, int64_t j, int64_t offset, bool causal, int64_t window, int64_t sink) {
  const int64_t p = offset + i;
  if ((causal || window > 0) && j > p) return false;
  return !(window > 0 && !(j > p - window || j < sink));
}

void attention(RuleContext& c) {
  const Bounded &q = *c.in[0], &k = *c.in[1], &v = *c.in[2];
  const Bounded* mask = c.in.size() > 3 ? c.in[3] : nullptr;
  Bounded& out = c.out[0];
  const int64_t B = q.shape()[0], Sq = q.shape()[1], Hq = q.shape()[2], D = q.shape()[3];
  const int64_t Skv = k.shape()[1], Hkv = k.shape()[2], Dv = v.shape()[3];
  const DType A = c.acc(out.dtype);
  const double scale_attr = c.attrs().get_float("scale");
  const double scale = scale_attr != 0 ? scale_attr : 1 / std::sqrt(static_cast<double>(D));
  const double cap = c.attrs().get_float("softcap");
  const bool causal = c.attrs().get_bool("causal");
  const int64_t window = c.attrs().get_int("window"), sink = c.attrs().get_int("sink");
  const int64_t offset = sym::eval(c.attrs().get_sym("offset"), c.env);
  const double g_d = summation_factor(D, A, c.opt);
  auto qi = [&](int64_t b, int64_t i, int64_t h, int64_t d) { return static_cast<size_t>(((b * Sq + i) * Hq + h) * D + d); };
  auto ki = [&](int64_t b, int64_t j, int64_t g, int64_t d) { return static_cast<size_t>(((b * Skv + j) * Hkv + g) * D + d); };
  auto vi = [&](int64_t b, int64_t j, int64_t g, int64_t d) { return static_cast<size_t>(((b * Skv + j) * Hkv + g) * Dv + d); };
  auto oi = [&](int64_t b, int64_t i, int64_t h, int64_t d) { return static_cast<size_t>(((b * Sq + i) * Hq + h) * Dv + d); };
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t h = 0; h < Hq; ++h) {
      const int64_t g = h / (Hq / Hkv);
      for (int64_t i = 0; i < Sq; ++i) {
        std::vector<int64_t> keys;
        std::vector<double> s, es;
        bool unsure = false;
        for (int64_t d = 0; d < D; ++d) unsure = unsure || q.uncertain[qi(b, i, h, d)];
        for (int64_t j = 0; j < Skv; ++j) {
          const bool user = !mask || mask->ref[static_cast<size_t>(i * Skv + j)] != 0;
          if (mask && mask->uncertain[static_cast<size_t>(i * Skv + j)]) unsure = true;
          if (!user || !admitted(i, j, offset, causal, window, sink)) continue;
          double dot = 0, mag = 0, mag0 = 0, quad = 0, cross = 0;
          for (int64_t d = 0; d < D; ++d) {
            const double x = q.ref[qi(b, i, h, d)], y = k.ref[ki(b, j, g, d)];
            const double ex = q.err[qi(b, i, h, d)], ey = k.err[ki(b, j, g, d)];
            dot += x * y;
            mag += (std::fabs(x) + ex) * (std::fabs(y) + ey);
            mag0 += std::fabs(x * y);
            quad += x * x * ey * ey + y * y * ex * ex;
            cross += ex * ey;
            unsure = unsure || k.uncertain[ki(b, j, g, d)];
          }
          double sv = scale * dot;
          const double propagated = quadrature(c.opt) ? std::sqrt(quad) + cross : mag - mag0;
          double e = std::fabs(scale) * (g_d * mag + propagated) + 2 * rounding_error(sv, A);
          if (cap > 0) {
            sv = cap * std::tanh(sv / cap);
            e = e + libm_error(sv, A) + 2 * rounding_error(sv, A);  // tanh is 1-Lipschitz through cap*tanh(s/cap)
          }
          keys.push_back(j);
          s.push_back(sv);
          es.push_back(e);
        }
        std::vector<double> w, ew;
        if (!keys.empty() && !softmax_bound(s, es, A, c.opt, w, ew)) unsure = true;
        const double g_kv = summation_factor(static_cast<int64_t>(keys.size()), A, c.opt);
        for (int64_t d = 0; d < Dv; ++d) {
          double mag = 0, mag0 = 0;
          bool row_unsure = unsure;
          for (size_t t = 0; t < keys.size() && !row_unsure; ++t) {
            const size_t at = vi(b, keys[t], g, d);
            mag += (w[t] + ew[t]) * (std::fabs(v.ref[at]) + v.err[at]);
            mag0 += w[t] * std::fabs(v.ref[at]);
            row_unsure = v.uncertain[at];
          }
          const size_t o = oi(b, i, h, d);
          out.uncertain[o] = row_unsure;
          out.err[o] = g_kv * mag + (mag - mag0) + rounding_error(out.ref[o], out.dtype);
        }
      }
    }
  }
}

void rope(RuleContext& c) {
  const Bounded& x = *c.in[0];
  Bounded& out = c.out[0];
  const DType T = out.dtype;
  const int64_t B = x.shape()[0], S = x.shape()[1], H = x.shape()[2], D = x.shape()[3];
  const double theta = c.attrs().get_float("theta");
  const int64_t offset = sym::eval(c.attrs().get_sym("offset"), c.env);
  const bool neox = c.attrs().get_string("style") == "neox";
  // Angles may be computed in f32 (the op's contract): pow, the product and the argument
  // reduction of cos/sin cost a few f32 ulps of the angle.
  const double u32 = 0x1p-24;
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t s = 0; s < S; ++s) {
      for (int64_t h = 0; h < H; ++h) {
        const int64_t base = ((b * S + s) * H + h) * D;
        for (int64_t i = 0; i < D / 2; ++i) {
          const double angle = static_cast<double>(offset + s) *
                               std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(D));
          const double e_angle = 8 * u32 * std::fabs(angle) + 4 * u32;
          const auto i1 = static_cast<size_t>(base + (neox ? i : 2 * i));
          const auto i2 = static_cast<size_t>(base + (neox ? i + D / 2 : 2 * i + 1));
          const double m = std::fabs(x.ref[i1]) + std::fabs(x.ref[i2]);
          const double e = m * e_angle + x.err[i1] + x.err[i2] + libm_error(m, T);
          for (size_t at : {i1, i2}) {
            out.err[at] = e + rounding_error(out.ref[at], T);
            out.uncertain[at] = x.uncertain[i1] || x.uncertain[i2];
          }
        }
      }
    }
  }
}

}  // namespace

void register_attention_rules() {
  add_rule("attention", attention);
  add_rule("rope", rope);
}

}  // namespace difftest::tolerance
