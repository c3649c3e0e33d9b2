// Error rules of softmax and the normalization layers, through their decompositions (see
// docs/tolerance.md). Each step's error is propagated to first order plus a rounding in the
// accumulator dtype A; the result is rounded once more to the output dtype T. Variance bounds
// cover both the two-pass and the one-pass (E[x^2] - E[x]^2) implementations.
#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "compiler/tensor/float_format.h"
#include "compiler/tensor/indexing.h"
#include "tolerance/bounds.h"

namespace difftest::tolerance {

namespace {

// One row of a normalization: n elements at positions pos(i) of the flat buffers.
struct Row {
  int64_t n;
  std::function<size_t(int64_t)> pos;
};

bool row_uncertain(const Bounded& x, const Row& row) {
  for (int64_t i = 0; i < row.n; ++i) {
    if (x.uncertain[row.pos(i)]) return true;
  }
  return false;
}

void mark_row(Bounded& out, const Row& row) {
  for (int64_t i = 0; i < row.n; ++i) out.uncertain[row.pos(i)] = 1;
}

// 1/sqrt(v) with v carrying ev: the value and its bound (nullopt when v may reach 0).
std::optional<std::pair<double, double>> inv_sqrt(double v, double ev, DType a) {
  if (ev >= v) return std::nullopt;
  const double rs = 1 / std::sqrt(v);
  return std::make_pair(rs, 1 / std::sqrt(v - ev) - rs + 4 * rounding_error(rs, a));
}

void softmax_row(const RuleContext& c, const Bounded& x, Bounded& out, const Row& row, bool log) {
  // Softmax over one element is its exponential divided by itself (the sum of one term), 1 in
  // every form whatever exp returns; log_softmax's log of that exponential is not exact.
  if (row.n == 1 && !log) {
    out.err[row.pos(0)] = 0;
    set_spread(c, out, row.pos(0), 0, 0);
    return;
  }
  std::vector<double> v(static_cast<size_t>(row.n)), e(v.size()), y, ey;
  for (int64_t i = 0; i < row.n; ++i) {
    v[static_cast<size_t>(i)] = x.ref[row.pos(i)];
    e[static_cast<size_t>(i)] = x.err[row.pos(i)];
  }
  if (!softmax_bound(v, e, c.acc(out.dtype), c.opt, y, ey, log)) {
    mark_row(out, row);
    return;
  }
  for (int64_t i = 0; i < row.n; ++i) {
    out.err[row.pos(i)] = ey[static_cast<size_t>(i)] + rounding_error(out.ref[row.pos(i)], out.dtype);
  }
}

struct Affine {
  const Bounded* scale = nullptr;  // gamma or the rms weight, indexed by channel(i)
  const Bounded* shift = nullptr;  // beta (layer/group/instance norm)
  double offset = 0;               // rms_norm's weight_offset
  std::function<size_t(int64_t)> channel;
};

bool one_pass_variance_applies(DType acc) { return acc == DType::f32 || acc == DType::f64; }

// A centered norm over one element. The mean of one value is that value exactly and the
// variance 0 in every form, so the two-pass result is b exactly; the folded form (ONNX Runtime's,
// PyTorch's CPU batch norm) computes x * s + (b - mean * s), s = g / sqrt(eps), whose two
// products are one product and whose roundings do not cancel: within u_A (2 |b| + |x s|) of b
// (and b's own error). Bounding the variance as a sum of rounded squares instead left it
// reaching 0 and every such element uncertain. Where eps is 0 in A (1e-12 in f16) the variance
// plus eps is 0, 1/sqrt of it infinite and 0 * inf NaN in a correct implementation in A, and
// where x * s leaves A's range the folded form overflows: uncertain there.
void one_element_row(const RuleContext& c, const Bounded& x, Bounded& out, const Row& row, double eps,
                     const Affine& aff) {
  const DType A = c.acc(out.dtype), T = out.dtype;
  const size_t at = row.pos(0), ch = aff.channel(0);
  const double eps_a = round_to_float_dtype(eps, A);
  const double inv = eps_a > 0 ? 1 / std::sqrt(eps_a) : INFINITY;
  const double scale = (std::fabs(aff.scale->ref[ch] + aff.offset) + aff.scale->err[ch]) * inv;
  const double product = (std::fabs(x.ref[at]) + x.err[at]) * scale * (1 + 8 * rounding_error(1, A));
  if (!(product < largest_finite(A) / 2)) {
    out.uncertain[at] = 1;
    return;
  }
  const double shift = aff.shift ? std::fabs(aff.shift->ref[ch]) : 0;
  out.err[at] = (aff.shift ? aff.shift->err[ch] : 0) + rounding_error(2 * shift + product, A) +
                rounding_error(out.ref[at], T);
  set_spread(c, out, at, 0, 0);
  if (aff.scale->uncertain[ch] || (aff.shift && aff.shift->uncertain[ch])) out.uncertain[at] = 1;
}

// A row's normalization where the variance's bound reaches the variance (values that differ by
// a few times their errors: a norm over two near-equal elements, a row of saturated tanh
// values), and the first-order bound through 1/sqrt(var) diverges. sigma = sqrt(var + eps) is
// the Euclidean norm of (c / sqrt(n), sqrt(eps)), c the centered row, so a perturbation of c
// moves it by at most the root mean square of c's errors, and the roundings of var by at most
// the square root of their bound: sigma_err. With sigma > sigma_err, c_i / sigma lies between
// its numerator's and denominator's extremes, and |c_i| / sqrt(mean c^2) <= sqrt(n - 1) caps it
// (sqrt(n) uncentered).
struct NormByDistance {
  double sigma, sigma_err, cap;
  DType acc;
  std::pair<double, double> normalize(double cv, double ce) const {
    const double low = sigma - sigma_err, high = sigma + sigma_err;
    const double lo_num = cv - ce, hi_num = cv + ce;
    const double hi = std::min(cap, hi_num >= 0 ? hi_num / low : hi_num / high);
    const double lo = std::max(-cap, lo_num >= 0 ? lo_num / high : lo_num / low);
    const double nv = cv / sigma;
    return {nv, std::max({hi - nv, nv - lo, 0.0}) + 4 * rounding_error(nv, acc)};
  }
};

// |x_i| / sqrt(mean x^2) <= sqrt(n) (rms_norm), sqrt(n - 1) centered. The cap holds in exact
// arithmetic; a few roundings of the computed quotient beyond it.
double normalized_cap(int64_t n, bool centered, DType acc) {
  const double terms = static_cast<double>(centered ? n - 1 : n);
  return std::sqrt(std::max(1.0, terms)) * (1 + 8 * unit_roundoff(acc));
}

std::optional<NormByDistance> norm_by_distance(double v, double sigma_err, int64_t n, bool centered, DType acc) {
  const double sigma = std::sqrt(v);
  if (!(sigma > sigma_err)) return std::nullopt;
  return NormByDistance{sigma, sigma_err, normalized_cap(n, centered, acc), acc};
}

// The normalized values y_i = D_i / sqrt(mean_j D_j^2 + eps + V) by interval evaluation over a
// box: each centered value D_j within a_j of d_j, the variance's own roundings V within
// +-var_err. y_i increases in D_i and decreases in every other |D_j| and in V, so its extremes
// are at the box's corners, which the rule evaluates exactly (as softmax's). Sharp where the
// first-order bound through 1/sqrt(var) is not: over few elements (two near-equal values
// normalize to about +-1 whatever their errors), and wherever the row is ill-conditioned. The
// first-order bound stays where it is smaller: it takes the inherited errors in quadrature.
class NormBox {
 public:
  NormBox(std::vector<double> d, std::vector<double> a, double eps, double var_err, double cap, DType acc)
      : d_(std::move(d)), a_(std::move(a)), eps_(eps), var_err_(var_err), cap_(cap), acc_(acc) {
    for (size_t j = 0; j < d_.size(); ++j) {
      low_ += lowest_square(j);
      high_ += highest_square(j);
    }
  }

  // The least variance plus eps over the box (its smallest corner).
  double least_variance() const { return low_ / static_cast<double>(d_.size()) + eps_ - var_err_; }

  // The bound of y_i about nv, or nullopt where a corner's variance plus eps may reach 0.
  std::optional<double> bound(size_t i, double nv) const {
    const double n = static_cast<double>(d_.size());
    const double rest_low = std::max(0.0, low_ - lowest_square(i)), rest_high = high_ - highest_square(i);
    // y_i increases in D_i only while the rest of its denominator stays positive.
    if (!(rest_low / n + eps_ - var_err_ > 0)) return std::nullopt;
    // The largest y_i at a positive numerator, and the least at a negative one, have the
    // smallest denominator; the other two the largest.
    const auto corner = [&](double num, bool smallest_denominator) -> std::optional<double> {
      const double den = smallest_denominator ? (num * num + rest_low) / n + eps_ - var_err_
                                              : (num * num + rest_high) / n + eps_ + var_err_;
      if (!(den > 0)) return std::nullopt;
      return std::clamp(num / std::sqrt(den), -cap_, cap_);
    };
    const double top = d_[i] + a_[i], bottom = d_[i] - a_[i];
    const auto hi = corner(top, top >= 0);
    const auto lo = corner(bottom, bottom < 0);
    if (!hi || !lo) return std::nullopt;
    return std::max({*hi - nv, nv - *lo, 0.0}) + 4 * rounding_error(nv, acc_);
  }

 private:
  double lowest_square(size_t j) const {
    const double m = std::fabs(d_[j]) - a_[j];
    return m > 0 ? m * m : 0;
  }
  double highest_square(size_t j) const { return (std::fabs(d_[j]) + a_[j]) * (std::fabs(d_[j]) + a_[j]); }

  std::vector<double> d_, a_;
  double eps_, var_err_, cap_;
  DType acc_;
  double low_ = 0, high_ = 0;
};

// A centered norm over two elements. Any perturbation of the row centers it to +-d', d' half
// the difference of the moved values, within a of d (the mean of the two errors), and
// y = d' / sqrt(d'^2 + eps) is increasing: its extremes are at d +- a, exactly. The roundings of
// the centering (r_i of the element, r_o of the other) and of the variance (var_err) move y by
// at most r_i / sigma + r_o / (2 sigma) + var_err / sigma^2 over a region where
// sqrt(var + eps) >= sigma (its partial derivatives' bounds). Two near-equal values, with eps,
// normalize to about +-1 whatever their errors, where the box and the first-order bound, which
// treat the two centered values as independent, allow about their relative error.
std::optional<double> pair_bound(double d, double a, double r_i, double r_o, double eps, double var_err, double nv,
                                 DType acc) {
  const double least = std::max(0.0, std::fabs(d) - a - std::max(r_i, r_o));
  const double sigma_squared = least * least + eps - var_err;
  if (!(sigma_squared > 0)) return std::nullopt;
  const auto y = [eps](double t) { return std::clamp(t / std::sqrt(t * t + eps), -1.0, 1.0); };
  const double sigma = std::sqrt(sigma_squared);
  const double roundings = (r_i + r_o / 2) / sigma + var_err / sigma_squared;
  return std::max({y(d + a) - nv, nv - y(d - a), 0.0}) + roundings + 4 * rounding_error(nv, acc);
}

// rms_norm (centered = false) and layer/group/instance norm (centered = true) for one row.
void norm_row(const RuleContext& c, const Bounded& x, Bounded& out, const Row& row, bool centered, double eps,
              const Affine& aff) {
  if (centered && row.n == 1) return one_element_row(c, x, out, row, eps, aff);
  const DType A = c.acc(out.dtype), T = out.dtype;
  const double n = static_cast<double>(row.n);
  const double g = summation_factor(row.n, A, c.opt);
  auto xv = [&](int64_t i) { return x.ref[row.pos(i)]; };
  auto xe = [&](int64_t i) { return x.err[row.pos(i)]; };
  auto xs = [&](int64_t i) { return spread(x, row.pos(i)); };
  // The inherited errors enter the row's sums: linearly (xe) in deterministic mode; in
  // probabilistic mode as independent mean-zero errors (xs), in quadrature (as in sums and dot
  // products), so that a norm does not double the relative error its input carries. The mean's
  // error, shared by every element, and second-order terms stay linear.
  const bool quad = quadrature(c.opt);
  auto inherited = [&](double linear, double squares) {
    return quad ? confidence(c.opt) * std::sqrt(squares) : linear;
  };
  // Mean (zero for rms_norm) and the centered values.
  double mu = 0, e_mu = 0, s_abs_total = 0;
  if (centered) {
    double s = 0, s_abs = 0, s_err = 0, s_err2 = 0;
    for (int64_t i = 0; i < row.n; ++i) {
      s += xv(i);
      s_abs += std::fabs(xv(i)) + xe(i);
      s_err += xe(i);
      s_err2 += xs(i) * xs(i);
    }
    mu = s / n;
    e_mu = (g * s_abs + inherited(s_err, s_err2)) / n + rounding_error(mu, A);
    s_abs_total = s_abs;
  }
  // Second moment about mu: two-pass bound, and the one-pass bound when centered.
  double q = 0, q_abs = 0, q_lin = 0, q_sq = 0, q_shared = 0, p_abs = 0, p_lin = 0, p_sq = 0, p_second = 0, p = 0;
  for (int64_t i = 0; i < row.n; ++i) {
    const double shared = e_mu + (centered ? rounding_error(xv(i) - mu, A) : 0);
    const double cv = xv(i) - mu, ce = xe(i) + shared;
    q += cv * cv;
    q_abs += (std::fabs(cv) + ce) * (std::fabs(cv) + ce);
    q_lin += 2 * std::fabs(cv) * xe(i);
    q_sq += 4 * cv * cv * xs(i) * xs(i);
    q_shared += 2 * std::fabs(cv) * shared + ce * ce;
    p += xv(i) * xv(i);
    p_abs += (std::fabs(xv(i)) + xe(i)) * (std::fabs(xv(i)) + xe(i));
    p_lin += 2 * std::fabs(xv(i)) * xe(i);
    p_sq += 4 * xv(i) * xv(i) * xs(i) * xs(i);
    p_second += xe(i) * xe(i);
  }
  // A row whose squares can pass the accumulator's range: an implementation that sums them in A
  // as declared overflows (an rms_norm of 1e20s in f32 gives 0 everywhere), one that scales the
  // row first does not, and both are correct: the outcome is uncertain (seed 10007470 of a clean
  // campaign, a prod over 13 wide inputs feeding an rms_norm).
  if (!(q_abs < largest_finite(A)) || (centered && one_pass_variance_applies(A) && !(p_abs < largest_finite(A)))) {
    mark_row(out, row);
    return;
  }
  const double q_err = inherited(q_lin, q_sq) + q_shared, p_err = inherited(p_lin, p_sq) + p_second;
  const double var = q / n;
  double e_var = (g * q_abs + q_err) / n + rounding_error(var, A);
  // The one-pass variance is a legitimate form in an f32 or f64 accumulator (ONNX Runtime's and
  // PyTorch's kernels, which accumulate f16/bf16 rows in f32); in a declared f16/bf16
  // accumulator no known implementation computes it, and its cancellation there is the
  // numerical bug fused kernels fixed by widening (a row of saturated tanh values: variance
  // 4.4e-4 against a one-pass error of 5e-3), so a narrow accumulator keeps the two-pass bound.
  // The variance's own roundings, without the inherited errors (which norm_by_distance takes
  // as a perturbation of the row).
  double var_roundings = g * q_abs / n + rounding_error(var, A);
  if (centered && one_pass_variance_applies(A)) {
    const double one_pass = (g * p_abs + p_err) / n + rounding_error(p / n, A) + 2 * std::fabs(mu) * e_mu + e_mu * e_mu +
                            2 * rounding_error(mu * mu, A);
    e_var = std::max(e_var, one_pass);
    const double mean_roundings = g * s_abs_total / n + rounding_error(mu, A);
    var_roundings = std::max(var_roundings, g * p_abs / n + rounding_error(p / n, A) +
                                                2 * std::fabs(mu) * mean_roundings + 2 * rounding_error(mu * mu, A));
  }
  const double v = var + eps;
  auto centered_error = [&](int64_t i) { return xe(i) + e_mu + (centered ? rounding_error(xv(i) - mu, A) : 0); };
  // The variance's roundings beyond the centered values' (V of NormBox), and its box.
  const double var_rounding = var_roundings + rounding_error(v, A);
  std::vector<double> box_d(static_cast<size_t>(row.n)), box_a(box_d.size());
  for (int64_t i = 0; i < row.n; ++i) {
    box_d[static_cast<size_t>(i)] = xv(i) - mu;
    box_a[static_cast<size_t>(i)] = centered_error(i);
  }
  const NormBox box(std::move(box_d), std::move(box_a), eps, var_rounding, normalized_cap(row.n, centered, A), A);
  // The normalized value and its bound: first order through 1/sqrt(var + eps) where var's bound
  // stays below var, else by the norm's Lipschitz bound (norm_by_distance).
  std::function<std::pair<double, double>(int64_t)> normalized;
  const auto rs = inv_sqrt(v, e_var + rounding_error(v, A), A);
  const bool first_order = rs.has_value();
  double largest_inv = 0;  // the largest 1 / sqrt(var + eps) a correct implementation computes
  if (first_order) {
    const auto [r_inv, e_inv] = *rs;
    largest_inv = r_inv + e_inv;
    normalized = [&, r_inv = r_inv, e_inv = e_inv](int64_t i) {
      const double cv = xv(i) - mu, ce = centered_error(i);
      const double nv = cv * r_inv;
      return std::make_pair(nv, r_inv * ce + std::fabs(cv) * e_inv + ce * e_inv + rounding_error(nv, A));
    };
  } else {
    // Centering is a projection: the centered row moves by at most the row's own errors (root
    // mean square), plus the roundings of the mean and of each difference.
    double xe_squares = 0, centering_roundings = 0;
    for (int64_t i = 0; i < row.n; ++i) {
      xe_squares += xe(i) * xe(i);
      if (centered) centering_roundings = std::max(centering_roundings, rounding_error(xv(i) - mu, A));
    }
    if (centered) centering_roundings += g * s_abs_total / n + rounding_error(mu, A);
    // A rounding d of v moves sqrt(v) by at most min(sqrt(d), d / (2 sqrt(v))).
    const double d = var_roundings + rounding_error(v, A);
    const double sigma_rounding = std::min(std::sqrt(d), d / (2 * std::sqrt(v)));
    const auto by_distance = norm_by_distance(v, std::sqrt(xe_squares / n) + centering_roundings + sigma_rounding, row.n,
                                              centered, A);
    if (by_distance) {
      normalized = [&, nb = *by_distance](int64_t i) { return nb.normalize(xv(i) - mu, centered_error(i)); };
      largest_inv = 1 / (by_distance->sigma - by_distance->sigma_err);
    } else {
      normalized = [&](int64_t i) { return std::make_pair((xv(i) - mu) * (1 / std::sqrt(v)), INFINITY); };
      const double least = box.least_variance();
      if (!(least > 0)) {
        mark_row(out, row);
        return;
      }
      largest_inv = 1 / std::sqrt(least);
    }
  }
  const double r_inv = 1 / std::sqrt(v);
  for (int64_t i = 0; i < row.n; ++i) {
    const size_t at = row.pos(i);
    auto [nv, ne] = normalized(i);
    std::optional<double> boxed = box.bound(static_cast<size_t>(i), nv);
    if (centered && row.n == 2) {
      // The element's centered value is s d', s = -1 for the first element and +1 for the second.
      const double d = (xv(1) - xv(0)) / 2 * (i == 0 ? -1 : 1);
      const double mean_roundings = g * s_abs_total / n + rounding_error(mu, A);
      const auto paired = pair_bound(d, (xe(0) + xe(1)) / 2, mean_roundings + rounding_error(xv(i) - mu, A),
                                     mean_roundings + rounding_error(xv(1 - i) - mu, A), eps, var_rounding, nv, A);
      if (paired && (!boxed || *paired < *boxed)) boxed = paired;
    }
    const bool by_box = boxed && *boxed < ne;
    if (by_box) ne = *boxed;
    if (!std::isfinite(ne)) {
      out.uncertain[at] = 1;
      continue;
    }
    const size_t ch = aff.channel(i);
    const double gv = aff.scale->ref[ch] + aff.offset;
    const double ge = aff.scale->err[ch] + (aff.offset != 0 ? rounding_error(gv, A) : 0);
    const double tv = nv * gv;
    double e = std::fabs(gv) * ne + std::fabs(nv) * ge + ne * ge + rounding_error(tv, A);
    if (aff.shift) e += aff.shift->err[ch] + rounding_error(out.ref[at], A);
    if (centered) {
      // The folded form x * s + (b - mean * s), s = g / sqrt(var + eps): its products round at
      // |x s| and |mean s|, which cancel only in exact arithmetic, and its shift at |b| too.
      const double s_abs = std::fabs(gv) * largest_inv;
      e += rounding_error(std::fabs(xv(i)) * s_abs, A) + 2 * rounding_error(std::fabs(mu) * s_abs, A) +
           (aff.shift ? rounding_error(aff.shift->ref[ch], A) : 0);
    }
    out.err[at] = e + rounding_error(out.ref[at], T);
    // The element's own inherited error passes through r_inv and the weight; the scale's and
    // the mean's errors are shared by the row and count as worst cases.
    // (Bounded by distance or by the box, the whole bound counts as a worst case.)
    const double through = first_order && !by_box ? std::fabs(gv) * r_inv : 0.0;
    set_spread(c, out, at, through * xs(i), through * xe(i));
    if (aff.scale->uncertain[ch] || (aff.shift && aff.shift->uncertain[ch])) out.uncertain[at] = 1;
  }
}

// Rows along one axis of x.
template <typename F>
void for_each_axis_row(const Bounded& x, int axis, F&& f) {
  const AxisSplit s = split_at(x.shape(), axis);
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t in = 0; in < s.inner; ++in) {
      const int64_t base = o * s.extent * s.inner + in, stride = s.inner;
      f(Row{s.extent, [base, stride](int64_t i) { return static_cast<size_t>(base + i * stride); }});
    }
  }
}

template <bool Log>
void softmax(RuleContext& c) {
  const Bounded& x = *c.in[0];
  Bounded& out = c.out[0];
  for_each_axis_row(x, normalize_axis(c.attrs().get_int("axis"), static_cast<int>(x.shape().size())), [&](const Row& row) {
    if (row_uncertain(x, row)) {
      mark_row(out, row);
    } else {
      softmax_row(c, x, out, row, Log);
    }
  });
}

template <bool Rms>
void axis_norm(RuleContext& c) {
  const Bounded& x = *c.in[0];
  Bounded& out = c.out[0];
  Affine aff;
  aff.scale = c.in[1];
  aff.shift = Rms ? nullptr : c.in[2];
  aff.offset = Rms ? c.attrs().get_float("weight_offset") : 0.0;
  aff.channel = [](int64_t i) { return static_cast<size_t>(i); };
  const double eps = c.attrs().get_float("eps");
  for_each_axis_row(x, normalize_axis(c.attrs().get_int("axis"), static_cast<int>(x.shape().size())), [&](const Row& row) {
    if (row_uncertain(x, row)) {
      mark_row(out, row);
    } else {
      norm_row(c, x, out, row, !Rms, eps, aff);
    }
  });
}

template <bool Grouped>
void channel_norm(RuleContext& c) {
  const Bounded& x = *c.in[0];
  Bounded& out = c.out[0];
  const int64_t n = x.shape()[0], channels = x.shape()[1], spatial = x.numel() / (n * channels);
  const int64_t groups = Grouped ? c.attrs().get_int("num_groups") : channels;
  const int64_t per_group = channels / groups, block = per_group * spatial;
  for (int64_t blk = 0; blk < n * groups; ++blk) {
    const int64_t base = blk * block, first_channel = (blk % groups) * per_group;
    const Row row{block, [base](int64_t i) { return static_cast<size_t>(base + i); }};
    Affine aff{c.in[1], c.in[2], 0,
               [first_channel, spatial](int64_t i) { return static_cast<size_t>(first_channel + i / spatial); }};
    if (row_uncertain(x, row)) {
      mark_row(out, row);
    } else {
      norm_row(c, x, out, row, true, c.attrs().get_float("eps"), aff);
    }
  }
}

}  // namespace

bool softmax_bound(const std::vector<double>& x, const std::vector<double>& ex, DType acc, const Options& opt,
                   std::vector<double>& y, std::vector<double>& ey, bool log) {
  // Input perturbations: softmax is shift-invariant and y_i(x + delta) =
  // y_i e^{delta_i} / sum_j y_j e^{delta_j} is increasing in delta_i and decreasing in every
  // other delta_j, so the extremes over |delta_j| <= p_j are attained at the corners below. This
  // stays inside [0, 1] (and is exact for a single element) where a first-order bound through
  // exp blows up. p_j also covers the rounding of x_j - max in the accumulator.
  const size_t n = x.size();
  double m = -INFINITY, em = 0;
  for (size_t i = 0; i < n; ++i) {
    m = std::max(m, x[i]);
    em = std::max(em, ex[i]);
  }
  // The corner sums are kept as a log scale plus a sum of terms at most 1, so an input error
  // beyond exp's range (a bound of hundreds on a score) still gives finite, ordered corners.
  std::vector<double> d(n), p(n);
  double s = 0, up_scale = -INFINITY, down_scale = -INFINITY;
  for (size_t k = 0; k < n; ++k) {
    d[k] = x[k] - m;
    p[k] = ex[k] + rounding_error(std::fabs(d[k]) + ex[k] + em, acc);
    s += std::exp(d[k]);
    up_scale = std::max(up_scale, d[k] + p[k]);
    down_scale = std::max(down_scale, d[k] - p[k]);
  }
  double up = 0, down = 0;  // sum_j e^{d_j + p_j - up_scale}, sum_j e^{d_j - p_j - down_scale}
  for (size_t k = 0; k < n; ++k) {
    up += std::exp(d[k] + p[k] - up_scale);
    down += std::exp(d[k] - p[k] - down_scale);
  }
  // log(e^a + e^scale * others) without overflow; others >= 0 after the cancellation below.
  const auto log_add = [](double a, double scale, double others) {
    if (!(others > 0)) return a;
    const double b = scale + std::log(others), top = std::max(a, b);
    return top + std::log(std::exp(a - top) + std::exp(b - top));
  };
  // Roundings, all relative because every term is positive: each exp (libm), the sum of n terms,
  // the division (softmax) or the log of the sum (log_softmax).
  const double a = libm_error(1.0, acc);
  const double beta = a + summation_factor(static_cast<int64_t>(n), acc, opt) * (1 + a);
  if (beta >= 1) return false;
  y.resize(n);
  ey.resize(n);
  for (size_t i = 0; i < n; ++i) {
    // log of the extreme values of y_i under the perturbations: y_i is largest with its own
    // score up and every other score down, smallest the other way round.
    const double others_down = std::max(0.0, down - std::exp(d[i] - p[i] - down_scale));
    const double others_up = std::max(0.0, up - std::exp(d[i] + p[i] - up_scale));
    const double log_hi = std::min(0.0, d[i] + p[i] - log_add(d[i] + p[i], down_scale, others_down));
    const double log_lo = std::min(0.0, d[i] - p[i] - log_add(d[i] - p[i], up_scale, others_up));
    const double log_y = d[i] - std::log(s);
    if (log) {
      y[i] = log_y;
      // x - (max + log(sum)) rounds the normalizer at its own magnitude, and a log of the
      // unshifted sum errs at that magnitude too (docs/tolerance.md, "Legitimate forms").
      const double normalizer = m + std::log(s);
      ey[i] = std::max({log_hi - log_y, log_y - log_lo, 0.0}) - std::log1p(-beta) + libm_error(std::log(s), acc) +
              rounding_error(log_y, acc) + rounding_error(normalizer, acc) + libm_error(normalizer, acc);
    } else {
      y[i] = std::exp(d[i]) / s;
      const double hi = std::exp(log_hi), lo = std::exp(log_lo);
      const double rho = (1 + a) * (1 + unit_roundoff(acc)) / (1 - beta) - 1;
      ey[i] = std::max({hi - y[i], y[i] - lo, 0.0}) + hi * rho + rounding_error(y[i], acc);
    }
  }
  return true;
}

void register_normalization_rules(RuleTable& t) {
  t.add("softmax", softmax<false>);
  t.add("log_softmax", softmax<true>);
  t.add("rms_norm", axis_norm<true>);
  t.add("layer_norm", axis_norm<false>);
  t.add("group_norm", channel_norm<true>);
  t.add("instance_norm", channel_norm<false>);
}

}  // namespace difftest::tolerance
