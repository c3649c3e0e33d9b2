// Reference reductions, from compiler/ops/reduction.cc. Floats accumulate sequentially in
// input order, rounding to the accumulator dtype after every step in Native mode; integers
// accumulate modulo 2^64 and wrap into their dtype at the end (the same result as wrapping at
// every step).
#include <algorithm>
#include <limits>
#include <set>

#include "reference/kernel.h"

namespace difftest::reference {

namespace {

struct Reduction {
  std::vector<int64_t> out_shape;
  std::vector<int64_t> out_index;  // per input element, its output element
  int64_t count = 1;               // input elements per output element
};

Reduction plan(const std::vector<int64_t>& shape, const std::vector<int64_t>& axes_attr, bool keepdims) {
  const int rank = static_cast<int>(shape.size());
  std::set<int> axes;
  if (axes_attr.empty()) {
    for (int i = 0; i < rank; ++i) axes.insert(i);
  }
  for (int64_t a : axes_attr) axes.insert(normalize_axis(a, rank));
  Reduction r;
  std::vector<int64_t> kept;  // the output shape without keepdims' unit dims
  for (int i = 0; i < rank; ++i) {
    if (axes.count(i)) {
      r.count *= shape[static_cast<size_t>(i)];
      if (keepdims) r.out_shape.push_back(1);
    } else {
      kept.push_back(shape[static_cast<size_t>(i)]);
      r.out_shape.push_back(shape[static_cast<size_t>(i)]);
    }
  }
  // Broadcasting the kept-dims output back over the input gives each input its output index.
  std::vector<int64_t> as_input_rank;
  for (int i = 0; i < rank; ++i) as_input_rank.push_back(axes.count(i) ? 1 : shape[static_cast<size_t>(i)]);
  r.out_index = broadcast_index(as_input_rank, shape);
  return r;
}

enum class Kind { Sum, Mean, Prod, Max, Min };

// An ensemble member's sum or product of each output's terms, in the member's order
// (reference/perturbation.h): index order, its reverse, a random permutation, or for Blocked
// SIMD lanes, as vectorized reductions run: W lanes (4, 8 or 16, drawn per member), lane j
// folding terms j, j + W, ... in order, then the upper half of the lanes added to the lower
// half until one is left. A compiler may reduce in any order, and with cancellation the order
// moves a result by many ulps: members that summed in index order flagged ONNX Runtime's
// ReduceSum and ReduceMean of four floats ((x0 + x2) + (x1 + x3), lanes) as outliers.
template <Kind K>
void ordered_fold(const std::vector<double>& v, const Reduction& r, Perturbation& member, const Rounder& rd,
                  std::vector<double>& acc) {
  std::vector<std::vector<double>> terms(acc.size());
  for (size_t i = 0; i < v.size(); ++i) terms[static_cast<size_t>(r.out_index[i])].push_back(v[i]);
  const auto combine = [&](double a, double b) { return K == Kind::Prod ? rd(a * b) : rd(a + b); };
  const bool lanes = member.sum_order() == SumOrder::Blocked;
  const size_t width = lanes ? size_t{4} << member.permutation(3)[0] : 0;
  const std::vector<int64_t> order = lanes ? std::vector<int64_t>{} : member.summation_order(r.count);
  for (size_t o = 0; o < acc.size(); ++o) {
    const std::vector<double>& t = terms[o];
    if (!lanes) {
      for (int64_t k : order) acc[o] = combine(acc[o], t[static_cast<size_t>(k)]);
      continue;
    }
    std::vector<double> lane(width, acc[o]);
    for (size_t k = 0; k < t.size(); ++k) lane[k % width] = combine(lane[k % width], t[k]);
    for (size_t w = width / 2; w >= 1; w /= 2) {
      for (size_t j = 0; j < w; ++j) lane[j] = combine(lane[j], lane[j + w]);
    }
    acc[o] = lane[0];
  }
}

template <Kind K>
std::vector<Tensor> reduce(const KernelContext& c) {
  const Tensor& x = c.arg(0);
  const Reduction r = plan(x.shape(), c.attrs().get_ints("axes"), c.attrs().get_bool("keepdims"));
  const size_t n_out = static_cast<size_t>(shape_numel(r.out_shape));
  if (is_float(c.declared())) {
    const Rounder rd = c.rounder((K == Kind::Max || K == Kind::Min) ? c.declared() : c.acc(c.declared()));
    const std::vector<double> v = x.to_doubles();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double init = K == Kind::Prod ? 1 : K == Kind::Max ? -std::numeric_limits<double>::infinity()
                        : K == Kind::Min                     ? std::numeric_limits<double>::infinity()
                                                             : 0;
    std::vector<double> acc(n_out, init);
    if (K != Kind::Max && K != Kind::Min && c.perturbation != nullptr && r.count > 1) {
      ordered_fold<K>(v, r, *c.perturbation, rd, acc);
    } else {
      for (size_t i = 0; i < v.size(); ++i) {
        double& a = acc[static_cast<size_t>(r.out_index[i])];
        switch (K) {
          case Kind::Sum:
          case Kind::Mean:
            a = rd(a + v[i]);
            break;
          case Kind::Prod:
            a = rd(a * v[i]);
            break;
          // NaN propagates, as in maximum/minimum, NumPy and ONNX.
          case Kind::Max:
            a = std::isnan(a) || std::isnan(v[i]) ? nan : std::max(a, v[i]);
            break;
          case Kind::Min:
            a = std::isnan(a) || std::isnan(v[i]) ? nan : std::min(a, v[i]);
            break;
        }
      }
    }
    if (K == Kind::Mean) {
      for (auto& a : acc) a = rd(a / static_cast<double>(r.count));
    }
    return {c.floats(0, r.out_shape, acc)};
  }
  const std::vector<int64_t> v = x.to_ints();
  std::vector<uint64_t> acc(n_out, K == Kind::Prod ? 1 : 0);
  std::vector<int64_t> ext(n_out, K == Kind::Max ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max());
  for (size_t i = 0; i < v.size(); ++i) {
    const auto o = static_cast<size_t>(r.out_index[i]);
    switch (K) {
      case Kind::Sum:
      case Kind::Mean: acc[o] += static_cast<uint64_t>(v[i]); break;
      case Kind::Prod: acc[o] *= static_cast<uint64_t>(v[i]); break;
      case Kind::Max: ext[o] = std::max(ext[o], v[i]); break;
      case Kind::Min: ext[o] = std::min(ext[o], v[i]); break;
    }
  }
  std::vector<int64_t> out(n_out);
  for (size_t o = 0; o < n_out; ++o) {
    out[o] = (K == Kind::Max || K == Kind::Min) ? ext[o] : static_cast<int64_t>(acc[o]);
  }
  return {c.ints(0, r.out_shape, out)};
}

template <bool Largest>
std::vector<Tensor> arg_reduce(const KernelContext& c) {
  const Tensor& x = c.arg(0);
  const int axis = normalize_axis(c.attrs().get_int("axis"), x.rank());
  const AxisSplit s = split_at(x.shape(), axis);
  std::vector<int64_t> out_shape;
  for (int i = 0; i < x.rank(); ++i) {
    if (i != axis) {
      out_shape.push_back(x.shape()[static_cast<size_t>(i)]);
    } else if (c.attrs().get_bool("keepdims")) {
      out_shape.push_back(1);
    }
  }
  const std::vector<double> v = x.to_doubles();  // exact for every operand dtype but i64 > 2^53
  const std::vector<int64_t> vi = is_float(c.arg_declared(0)) ? std::vector<int64_t>{} : x.to_ints();
  std::vector<int64_t> out(static_cast<size_t>(s.outer * s.inner));
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t in = 0; in < s.inner; ++in) {
      int64_t best = 0;
      for (int64_t k = 1; k < s.extent; ++k) {
        const size_t cand = static_cast<size_t>((o * s.extent + k) * s.inner + in);
        const size_t cur = static_cast<size_t>((o * s.extent + best) * s.inner + in);
        // A NaN is the extreme (the first one wins, as NumPy's argmax/argmin).
        const bool better =
            vi.empty() ? !std::isnan(v[cur]) && (std::isnan(v[cand]) || (Largest ? v[cand] > v[cur] : v[cand] < v[cur]))
                       : (Largest ? vi[cand] > vi[cur] : vi[cand] < vi[cur]);
        if (better) best = k;
      }
      out[static_cast<size_t>(o * s.inner + in)] = best;
    }
  }
  return {c.ints(0, out_shape, out)};
}

}  // namespace

void register_reduction_kernels(KernelTable& t) {
  t.add("sum", reduce<Kind::Sum>);
  t.add("mean", reduce<Kind::Mean>);
  t.add("prod", reduce<Kind::Prod>);
  t.add("max", reduce<Kind::Max>);
  t.add("min", reduce<Kind::Min>);
  t.add("argmax", arg_reduce<true>);
  t.add("argmin", arg_reduce<false>);
}

}  // namespace difftest::reference
