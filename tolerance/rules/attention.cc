// Error rules of attention and rope. Attention is bounded through its decomposition: the score
// dot products (K = head dim), the optional soft-cap, a softmax over the admitted keys and the
// weighted sum of values (K = admitted keys), all in the accumulator dtype.
#include <algorithm>
#include <cmath>

#include "tolerance/bounds.h"

namespace difftest::tolerance {

namespace {

bool admitted(int64_t i, int64_t j, int64_t offset, bool causal, int64_t window, int64_t sink) {
  const int64_t p = offset + i;
  if ((causal || window > 0) && j > p) return false;
  return !(window > 0 && !(j > p - window || j < sink));
}

// Relative rounding of softmax weights computed in acc (exp, the sum of n terms, the division):
// the same factor softmax_bound uses.
double softmax_rounding(size_t n, DType acc, const Options& opt) {
  const double a = libm_error(1.0, acc);
  const double beta = a + summation_factor(static_cast<int64_t>(n), acc, opt) * (1 + a);
  return beta >= 1 ? INFINITY : (1 + a) * (1 + unit_roundoff(acc)) / (1 - beta) - 1;
}

// The bound of o = sum_t w_t v_t over the admitted keys of one row, and the sd of the inherited
// part in probabilistic mode.
struct WeightedSum {
  size_t n;
  double g;           // summation factor of the n products
  double rho;         // relative rounding of each weight
  bool quadrature;    // probabilistic mode
  double confidence;  // lambda

  struct Result {
    double bound;
    double independent = 0;      // sd of the inherited errors taken in quadrature
    double inherited_bound = 0;  // their share of `bound`
  };

  // w, ew: weights and their bounds; es, ss: score bounds and sds; v, ev, sv: values, bounds, sds.
  Result bound(const std::vector<double>& w, const std::vector<double>& ew, const std::vector<double>& es,
               const std::vector<double>& ss, const std::vector<double>& v, const std::vector<double>& ev,
               const std::vector<double>& sv) const {
    double mag = 0, mag0 = 0, o = 0, es_max = 0;
    for (size_t t = 0; t < n; ++t) {
      mag += (w[t] + ew[t]) * (std::fabs(v[t]) + ev[t]);
      mag0 += w[t] * std::fabs(v[t]);
      o += w[t] * v[t];
      es_max = std::max(es_max, es[t]);
    }
    const double deterministic = g * mag + (mag - mag0);
    // Score perturbations d move the output by sum_t w_t (d_t - sum_s w_s d_s) v_t =
    // sum_t w_t d_t (v_t - o) to first order; independent d_t add in quadrature. The factor
    // e^{2 max e_s} covers the curvature of exp while the score bounds stay below 1/2.
    if (!quadrature || es_max > 0.5) return {deterministic};
    RootSumSquares through_scores, through_values;
    for (size_t t = 0; t < n; ++t) {
      through_scores.add(w[t] * ss[t] * (v[t] - o));
      through_values.add(w[t] * sv[t]);
    }
    const double independent = std::exp(2 * es_max) * through_scores.value() + through_values.value();
    const double probabilistic = g * mag + rho * mag0 + confidence * independent;
    if (deterministic <= probabilistic) return {deterministic};
    return {probabilistic, independent, confidence * independent};
  }
};

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
  // Hq / Hkv query heads share each key/value head and with it the errors of its keys and
  // values; a later sum over those heads (the output projection) adds them coherently, so
  // each head's independent sd counts sqrt(Hq / Hkv) times: their quadrature sum is then the
  // coherent one (seed 1001583 of a clean campaign showed that mechanism in the ensemble).
  const double kv_sharing = std::sqrt(static_cast<double>(Hq / Hkv));
  auto qi = [&](int64_t b, int64_t i, int64_t h, int64_t d) { return static_cast<size_t>(((b * Sq + i) * Hq + h) * D + d); };
  auto ki = [&](int64_t b, int64_t j, int64_t g, int64_t d) { return static_cast<size_t>(((b * Skv + j) * Hkv + g) * D + d); };
  auto vi = [&](int64_t b, int64_t j, int64_t g, int64_t d) { return static_cast<size_t>(((b * Skv + j) * Hkv + g) * Dv + d); };
  auto oi = [&](int64_t b, int64_t i, int64_t h, int64_t d) { return static_cast<size_t>(((b * Sq + i) * Hq + h) * Dv + d); };
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t h = 0; h < Hq; ++h) {
      const int64_t g = h / (Hq / Hkv);
      for (int64_t i = 0; i < Sq; ++i) {
        std::vector<int64_t> keys;
        std::vector<double> s, es, ss;
        bool unsure = false;
        for (int64_t d = 0; d < D; ++d) unsure = unsure || q.uncertain[qi(b, i, h, d)];
        for (int64_t j = 0; j < Skv; ++j) {
          const bool user = !mask || mask->ref[static_cast<size_t>(i * Skv + j)] != 0;
          if (mask && mask->uncertain[static_cast<size_t>(i * Skv + j)]) unsure = true;
          if (!user || !admitted(i, j, offset, causal, window, sink)) continue;
          double dot = 0, mag = 0, mag0 = 0, cross = 0;
          RootSumSquares quad;
          for (int64_t d = 0; d < D; ++d) {
            const double x = q.ref[qi(b, i, h, d)], y = k.ref[ki(b, j, g, d)];
            const double ex = q.err[qi(b, i, h, d)], ey = k.err[ki(b, j, g, d)];
            const double sx = spread(q, qi(b, i, h, d)), sy = spread(k, ki(b, j, g, d));
            dot += x * y;
            mag += (std::fabs(x) + ex) * (std::fabs(y) + ey);
            mag0 += std::fabs(x * y);
            quad.add(x * sy);
            quad.add(y * sx);
            cross += ex * ey;
            unsure = unsure || k.uncertain[ki(b, j, g, d)];
          }
          double sv = scale * dot;
          const double independent = quadrature(c.opt) ? std::fabs(scale) * quad.value() : 0;
          const double propagated = quadrature(c.opt) ? confidence(c.opt) * quad.value() + cross : mag - mag0;
          double e = std::fabs(scale) * (g_d * mag + propagated) + 2 * rounding_error(sv, A);
          if (cap > 0) {
            sv = cap * std::tanh(sv / cap);
            e = e + libm_error(sv, A) + 2 * rounding_error(sv, A);  // tanh is 1-Lipschitz through cap*tanh(s/cap)
          }
          keys.push_back(j);
          s.push_back(sv);
          es.push_back(e);
          ss.push_back(independent + std::max(0.0, e - confidence(c.opt) * independent) / kSqrt3);
        }
        std::vector<double> w, ew;
        if (!keys.empty() && !softmax_bound(s, es, A, c.opt, w, ew)) unsure = true;
        const double g_kv = summation_factor(static_cast<int64_t>(keys.size()), A, c.opt);
        const WeightedSum ws{keys.size(), g_kv, softmax_rounding(keys.size(), A, c.opt), quadrature(c.opt),
                             confidence(c.opt)};
        for (int64_t d = 0; d < Dv; ++d) {
          bool row_unsure = unsure;
          std::vector<double> vals(keys.size()), verr(keys.size()), vsd(keys.size());
          for (size_t t = 0; t < keys.size() && !row_unsure; ++t) {
            const size_t at = vi(b, keys[t], g, d);
            vals[t] = v.ref[at];
            verr[t] = v.err[at];
            vsd[t] = spread(v, at);
            row_unsure = v.uncertain[at];
          }
          const size_t o = oi(b, i, h, d);
          out.uncertain[o] = row_unsure;
          if (row_unsure) continue;
          const WeightedSum::Result r = ws.bound(w, ew, es, ss, vals, verr, vsd);
          out.err[o] = r.bound + rounding_error(out.ref[o], out.dtype);
          set_spread(c, out, o, kv_sharing * r.independent, r.inherited_bound);
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
          const double own = m * e_angle + libm_error(m, T);
          // The inputs' errors rotate with them: out1 = x1 cos - x2 sin, out2 = x1 sin + x2 cos,
          // with cos and sin of an angle off by up to e_angle.
          const double cos_a = std::fabs(std::cos(angle)) + e_angle, sin_a = std::fabs(std::sin(angle)) + e_angle;
          const std::pair<double, double> weights[] = {{cos_a, sin_a}, {sin_a, cos_a}};
          const size_t outs[] = {i1, i2};
          for (int r = 0; r < 2; ++r) {
            const size_t at = outs[r];
            const auto [w1, w2] = weights[r];
            const double inherited = w1 * x.err[i1] + w2 * x.err[i2];
            out.err[at] = own + inherited + rounding_error(out.ref[at], T);
            out.uncertain[at] = x.uncertain[i1] || x.uncertain[i2];
            set_spread(c, out, at, w1 * spread(x, i1) + w2 * spread(x, i2), inherited);
          }
        }
      }
    }
  }
}

}  // namespace

void register_attention_rules(RuleTable& t) {
  t.add("attention", attention);
  t.add("rope", rope);
  for (const char* op : {"causal_mask", "sliding_window_mask"}) t.add(op, exact_values_rule);
}

}  // namespace difftest::tolerance
