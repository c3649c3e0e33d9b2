// Error rules of reductions and matrix products. The rules run the op's own reference kernel on
// magnitude and error tensors, so the index pattern is exactly the op's:
//   sums and dot products  e = B(K, S(|x| + e)) + (S(|x| + e) - S(|x|)) + rounding to the result
// where S is the op applied to magnitudes (the sum of |terms|, carrying operand errors), K the
// number of terms per result and B the accumulator's summation bound (summation_error: g(K) S,
// or for f16/bf16 in probabilistic mode one that also uses the result's magnitude).
#include <algorithm>
#include <cmath>
#include <set>

#include "compiler/tensor/indexing.h"
#include "tolerance/bounds.h"

namespace difftest::tolerance {

namespace {

Tensor filled(const std::vector<int64_t>& shape, double v) {
  Tensor t(DType::f64, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, v);
  return t;
}

// Each element of a reduction's operand: the flat index of the output element it reduces into.
std::vector<int64_t> reduced_index(const RuleContext& c, const std::vector<int64_t>& shape) {
  const int rank = static_cast<int>(shape.size());
  const std::vector<int64_t>& listed = c.attrs().get_ints("axes");
  std::set<int> axes;
  for (int i = 0; listed.empty() && i < rank; ++i) axes.insert(i);
  for (int64_t axis : listed) axes.insert(normalize_axis(axis, rank));
  std::vector<int64_t> kept;  // the output with the reduced axes as unit dims
  for (int i = 0; i < rank; ++i) kept.push_back(axes.count(i) ? 1 : shape[static_cast<size_t>(i)]);
  return broadcast_index(kept, shape);
}

// A result is uncertain when any element of its slice is. The op's own kernel decides that when
// flagged and unflagged elements get values it cannot lose: a 1 among 0s survives max, sum and
// mean, a -1 among 0s survives min, and a 0 among 1s survives prod.
void mark_uncertain_slices(RuleContext& c, const std::string& op) {
  const Bounded& a = *c.in[0];
  Bounded& out = c.out[0];
  const bool prod = op == "prod";
  const int64_t flagged = op == "min" ? -1 : prod ? 0 : 1;
  const int64_t unflagged = prod ? 1 : 0;
  std::vector<int64_t> marks(a.uncertain.size());
  for (size_t i = 0; i < marks.size(); ++i) marks[i] = a.uncertain[i] ? flagged : unflagged;
  const Tensor flags = is_float(a.dtype) ? as_f64(std::vector<double>(marks.begin(), marks.end()), a.shape())
                                         : Tensor::from_ints(DType::i64, a.shape(), marks);
  const Tensor reduced = c.kernel({flags})[0];
  for (int64_t i = 0; i < out.numel(); ++i) {
    if (reduced.get(i) != static_cast<double>(unflagged)) out.uncertain[static_cast<size_t>(i)] = 1;
  }
}

// max/min over a slice holding decisions with known outcomes (floor_divide, round, ...): the
// result is one of the slice's possible values, and only those that may reach the extreme of
// the slice's lower (for min, upper) ends can be it. Where those are a few values the result
// is compared with them, and where it is the reference's own value alone it is certain.
// An uncertain element without outcomes leaves its slice uncertain.
void extreme_over_outcomes(RuleContext& c, const std::string& op) {
  const Bounded& a = *c.in[0];
  Bounded& out = c.out[0];
  const double sign = op == "max" ? 1.0 : -1.0;  // min is max of the negated values
  const std::vector<int64_t> to = reduced_index(c, a.shape());
  std::vector<std::vector<size_t>> members(out.ref.size());
  for (size_t i = 0; i < to.size(); ++i) members[static_cast<size_t>(to[i])].push_back(i);
  for (size_t slot = 0; slot < members.size(); ++slot) {
    if (!out.uncertain[slot]) continue;
    // Each element's possible values: its outcomes where uncertain, else its reference value.
    std::vector<std::pair<const double*, const double*>> values;  // [begin, end) per element
    bool unknown = false;
    for (size_t i : members[slot]) {
      if (!a.uncertain[i]) {
        values.emplace_back(&a.ref[i], &a.ref[i] + 1);
        continue;
      }
      const auto it = a.choices.find(i);
      if (it == a.choices.end()) {
        unknown = true;
        break;
      }
      values.emplace_back(it->second.data(), it->second.data() + it->second.size());
    }
    if (unknown) continue;
    double floor = -INFINITY;  // the slice's extreme is at least this (signed)
    for (size_t k = 0; k < values.size(); ++k) {
      double low = INFINITY;
      for (const double* x = values[k].first; x != values[k].second; ++x) low = std::min(low, sign * *x);
      floor = std::max(floor, low - a.err[members[slot][k]]);
    }
    if (!std::isfinite(floor)) continue;
    std::vector<double> reachable;
    for (size_t k = 0; k < values.size(); ++k) {
      for (const double* x = values[k].first; x != values[k].second; ++x) {
        if (sign * *x + a.err[members[slot][k]] >= floor &&
            std::find(reachable.begin(), reachable.end(), *x) == reachable.end()) {
          reachable.push_back(*x);
        }
      }
    }
    if (reachable.size() == 1 && reachable.front() == out.ref[slot]) {
      out.uncertain[slot] = 0;
    } else if (reachable.size() <= kMaxChoices) {
      out.choices[slot] = reachable;
    }
  }
}

// Slices whose terms are all one value (a `full`, a constant row carried through elementwise
// ops). Their sum rounds alike at every step and their inherited errors are one error repeated:
// systematic, not the independent mean-zero errors the probabilistic summation factor and the
// quadrature of inherited errors assume (seed 12523214: an f32 mean of 20,640 copies of -log 2,
// summed in index order by every pipeline, 4 probabilistic bounds from the exact mean and
// within the deterministic one).
std::vector<uint8_t> slices_of_one_value(const RuleContext& c, const Bounded& a, size_t slices) {
  std::vector<uint8_t> one_value(slices, 1), seen(slices, 0);
  std::vector<double> first(slices, 0);
  const std::vector<int64_t> to = reduced_index(c, a.shape());
  for (size_t i = 0; i < to.size(); ++i) {
    const auto slot = static_cast<size_t>(to[i]);
    if (!seen[slot]) {
      seen[slot] = 1;
      first[slot] = a.ref[i];
    } else if (a.ref[i] != first[slot]) {
      one_value[slot] = 0;
    }
  }
  return one_value;
}

void reduce(RuleContext& c) {
  const Bounded& a = *c.in[0];
  Bounded& out = c.out[0];
  const std::string& op = c.binding.op().name;
  mark_uncertain_slices(c, op);
  if (!is_float(out.dtype)) {
    if ((op == "sum" || op == "prod") && !c.opt.integer_overflow_wraps) {
      // The slices' sums or products without wrapping (the kernel would wrap to the dtype).
      std::vector<double> exact(out.ref.size(), op == "sum" ? 0.0 : 1.0);
      const std::vector<int64_t> to = reduced_index(c, a.shape());
      for (size_t i = 0; i < a.ref.size(); ++i) {
        double& e = exact[static_cast<size_t>(to[i])];
        e = op == "sum" ? e + a.ref[i] : e * a.ref[i];
      }
      for (size_t i = 0; i < out.ref.size(); ++i) mark_integer_overflow(c, out, i, exact[i]);
    }
    return;
  }
  const int64_t k = a.numel() / std::max<int64_t>(out.numel(), 1);
  const DType acc = c.acc(out.dtype);
  const double g = summation_factor(k, acc, c.opt);
  if (op == "max" || op == "min") {
    // |max(x + d) - max(x)| <= max |d| over the slice, and likewise for min. The kernel is the
    // op itself, so for min it is run on negated errors: min(-e) = -max(e).
    const double sign = op == "max" ? 1.0 : -1.0;
    std::vector<double> signed_err(a.err.size());
    for (size_t i = 0; i < a.err.size(); ++i) signed_err[i] = sign * a.err[i];
    const Tensor e = c.kernel({as_f64(signed_err, a.shape())})[0];
    for (size_t i = 0; i < out.err.size(); ++i) out.err[i] = std::max(0.0, sign * e.get(static_cast<int64_t>(i)));
    if (quadrature(c.opt)) {  // the result is one of the slice's elements: at most the largest sd
      Tensor sd = spreads(a, false);
      for (int64_t i = 0; i < sd.numel(); ++i) sd.set(i, sign * sd.get(i));
      const Tensor largest = c.kernel({sd})[0];
      for (size_t i = 0; i < out.err.size(); ++i) {
        const double s = std::max(0.0, sign * largest.get(static_cast<int64_t>(i)));
        set_spread(c, out, i, s, kSqrt3 * s);
      }
    }
    if (!a.choices.empty()) extreme_over_outcomes(c, op);
    return;
  }
  const Tensor with = c.kernel({magnitude(a, true)})[0];
  const Tensor without = c.kernel({magnitude(a, false)})[0];
  const bool quad = quadrature(c.opt) && op != "prod";
  const Tensor sq = quad ? c.kernel({spreads(a, true)})[0] : Tensor();
  const std::vector<uint8_t> one_value = quad ? slices_of_one_value(c, a, out.err.size()) : std::vector<uint8_t>();
  Options systematic = c.opt;
  systematic.mode = BoundMode::Deterministic;
  for (size_t i = 0; i < out.err.size(); ++i) {
    const auto at = static_cast<int64_t>(i);
    const double s1 = with.get(at), s0 = without.get(at);
    bool independent_errors = quad && !one_value[i];
    // sum/mean: propagated errors (in quadrature: sqrt(sum sd^2); the kernel of a mean gives
    // sum sd^2 / k, and the mean's sd is sqrt(sum sd^2) / k);
    // prod: prod(|x| + e) - prod |x|.
    double independent =
        !independent_errors ? 0 : std::sqrt(op == "mean" ? sq.get(at) / static_cast<double>(k) : sq.get(at));
    if (independent_errors && underflowed(independent, s1 - s0)) independent_errors = false;
    const double propagated = !independent_errors ? std::max(0.0, s1 - s0) : confidence(c.opt) * independent;
    // |sum| <= |exact sum| + the operands' errors, for summation_error's drift term.
    const double abs_value = (op == "mean" ? static_cast<double>(k) : 1.0) * std::fabs(out.ref[i]) + (s1 - s0);
    const Options& sum_model = quad && one_value[i] ? systematic : c.opt;
    double e = (op == "prod" ? g * s1 : summation_error(k, acc, sum_model, s1, abs_value)) + propagated;
    if (op == "mean") e += rounding_error(out.ref[i], acc);
    out.err[i] = e + rounding_error(out.ref[i], out.dtype);
    set_spread(c, out, i, independent, independent_errors ? propagated : 0);  // prod: all of it a worst case
  }
}

void arg_reduce(RuleContext& c) {
  const Bounded& a = *c.in[0];
  Bounded& out = c.out[0];
  const AxisSplit s = split_at(a.shape(), normalize_axis(c.attrs().get_int("axis"), static_cast<int>(a.shape().size())));
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t in = 0; in < s.inner; ++in) {
      const auto at = [&](int64_t k) { return static_cast<size_t>((o * s.extent + k) * s.inner + in); };
      const auto slot = static_cast<size_t>(o * s.inner + in);
      const auto w = static_cast<int64_t>(out.ref[slot]);
      // A computed value at k can win only where it may reach the winner's: |r_k - r_w| within
      // e_k + e_w. Those indices (with w) are every result a correct implementation gives.
      bool operand_uncertain = false;
      std::vector<double> tied{static_cast<double>(w)};
      for (int64_t k = 0; k < s.extent && !operand_uncertain; ++k) {
        operand_uncertain = a.uncertain[at(k)];
        if (k != w && (a.err[at(k)] + a.err[at(w)] > 0) &&
            std::fabs(a.ref[at(k)] - a.ref[at(w)]) <= a.err[at(k)] + a.err[at(w)]) {
          tied.push_back(static_cast<double>(k));
        }
      }
      out.uncertain[slot] = operand_uncertain || tied.size() > 1;
      // Every index tied says nothing: compared only where some index cannot win.
      if (!operand_uncertain && tied.size() > 1 && static_cast<int64_t>(tied.size()) < s.extent) {
        out.choices[slot] = tied;
      }
    }
  }
}

// matmul and linear: K is the contraction length (+1 for a bias).
void matmul_like(RuleContext& c) {
  const auto& shape_a = c.in[0]->shape();
  const bool is_linear = c.binding.op().name == "linear";
  int64_t k = is_linear ? shape_a.back()
                        : (c.attrs().get_bool("transpose_a") ? shape_a[shape_a.size() - 2] : shape_a.back());
  if (c.in.size() > 2) ++k;
  dot_product_bound(c, k);
}

}  // namespace

// Ops that sum k products of operand 0 with operand 1 (and add operand 2, a bias): the kernel
// applied to magnitudes gives S(|a| + e_a, |b| + e_b) per result.
void dot_product_bound(RuleContext& c, int64_t k) {
  Bounded& out = c.out[0];
  std::vector<Tensor> with, without, dep_a, dep_b;
  for (size_t i = 0; i < c.in.size(); ++i) {
    with.push_back(magnitude(*c.in[i], true));
    without.push_back(magnitude(*c.in[i], false));
    dep_a.push_back(i == 0 ? indicator(*c.in[i]) : filled(c.in[i]->shape(), i == 1 ? 1 : 0));
    dep_b.push_back(i == 0 ? filled(c.in[i]->shape(), 1) : indicator(*c.in[i]));
  }
  mark_uncertain(out, c.kernel(dep_a)[0]);
  mark_uncertain(out, c.kernel(dep_b)[0]);
  const Tensor s1 = c.kernel(with)[0], s0 = c.kernel(without)[0];
  Tensor through_a, through_b, cross;  // quadrature: sum sd_a^2 b^2 (+ sd_bias^2), sum a^2 sd_b^2, sum e_a e_b
  if (quadrature(c.opt)) {
    std::vector<Tensor> qa, qb, x;
    for (size_t i = 0; i < c.in.size(); ++i) {
      const Bounded& in = *c.in[i];
      qa.push_back(i == 1 ? squares(in) : spreads(in, true));
      qb.push_back(i == 0 ? squares(in) : i == 1 ? spreads(in, true) : filled(in.shape(), 0));
      x.push_back(i < 2 ? errors(in) : filled(in.shape(), 0));
    }
    through_a = c.kernel(qa)[0];
    through_b = c.kernel(qb)[0];
    cross = c.kernel(x)[0];
  }
  const DType acc = c.acc(out.dtype);
  for (size_t i = 0; i < out.err.size(); ++i) {
    const auto at = static_cast<int64_t>(i);
    const double a1 = s1.get(at), a0 = s0.get(at);
    const bool quad = quadrature(c.opt) && !underflowed(through_a.get(at) + through_b.get(at), a1 - a0);
    const double independent = quad ? std::sqrt(through_a.get(at) + through_b.get(at)) : 0;
    const double propagated = quad ? confidence(c.opt) * independent + cross.get(at) : std::max(0.0, a1 - a0);
    const double sum = summation_error(k, acc, c.opt, a1, std::fabs(out.ref[i]) + (a1 - a0));
    out.err[i] = sum + propagated + rounding_error(out.ref[i], out.dtype);
    set_spread(c, out, i, independent, confidence(c.opt) * independent);
  }
}

void register_reduction_rules(RuleTable& t) {
  for (const char* op : {"sum", "mean", "prod", "max", "min"}) t.add(op, reduce);
  t.add("argmax", arg_reduce);
  t.add("argmin", arg_reduce);
}

void register_linalg_rules(RuleTable& t) {
  t.add("matmul", matmul_like);
  t.add("linear", matmul_like);
}

}  // namespace difftest::tolerance
