// Reference data-movement ops, from compiler/ops/shape_ops.cc. Each computes, for every result
// element, the operand element it copies; values are moved bit for bit.
#include <fmt/format.h>

#include <cstring>
#include <set>

#include "reference/kernel.h"

namespace difftest::reference {

namespace {

// result[i] = src[idx[i]], bytes copied as they are.
Tensor gather(const Tensor& src, std::vector<int64_t> shape, const std::vector<int64_t>& idx) {
  Tensor out(src.dtype(), std::move(shape));
  const auto w = static_cast<size_t>(dtype_bytes(src.dtype()));
  DT_CHECK(static_cast<int64_t>(idx.size()) == out.numel(), "gather index count differs from the shape");
  for (size_t i = 0; i < idx.size(); ++i) std::memcpy(out.data() + i * w, src.data() + static_cast<size_t>(idx[i]) * w, w);
  return out;
}

Tensor with_shape(const Tensor& src, std::vector<int64_t> shape) {
  std::vector<int64_t> idx(static_cast<size_t>(src.numel()));
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int64_t>(i);
  return gather(src, std::move(shape), idx);
}

// Visits every coordinate of `shape` in row-major order.
template <typename F>
void for_each_coord(const std::vector<int64_t>& shape, F&& f) {
  const int64_t n = shape_numel(shape);
  std::vector<int64_t> coord(shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    f(coord);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++coord[d] < shape[d]) break;
      coord[d] = 0;
    }
  }
}

int64_t flat(const std::vector<int64_t>& coord, const std::vector<int64_t>& strides) {
  int64_t i = 0;
  for (size_t d = 0; d < coord.size(); ++d) i += coord[d] * strides[d];
  return i;
}

// Python's range(d)[b:e:step]: (first index, length).
std::pair<int64_t, int64_t> python_slice(int64_t d, int64_t b, int64_t e, int64_t step) {
  auto norm = [&](int64_t i) {
    if (i < 0) i += d;
    return step > 0 ? std::clamp<int64_t>(i, 0, d) : std::clamp<int64_t>(i, -1, d - 1);
  };
  const int64_t nb = norm(b), ne = norm(e);
  const int64_t span = step > 0 ? ne - nb : nb - ne;
  const int64_t s = step > 0 ? step : -step;
  return {nb, std::max<int64_t>(0, (span + s - 1) / s)};
}

std::vector<Tensor> reshape(const KernelContext& c) {
  const Tensor& x = c.arg(0);
  std::vector<int64_t> shape;
  int64_t known = 1;
  int inferred = -1;
  for (const auto& d : c.attrs().get_syms("shape")) {
    const int64_t v = c.eval(d);
    if (v == -1) {
      inferred = static_cast<int>(shape.size());
    } else {
      known *= v;
    }
    shape.push_back(v);
  }
  if (inferred >= 0) shape[static_cast<size_t>(inferred)] = x.numel() / known;
  DT_CHECK(shape_numel(shape) == x.numel(), fmt::format("reshape of {} to {}", x.type_str(), shape_str(shape)));
  return {with_shape(x, shape)};
}

std::vector<Tensor> permute_dims(const KernelContext& c) {
  const Tensor& x = c.arg(0);
  std::vector<int64_t> axes = c.attrs().get_ints("axes");
  if (axes.empty()) {
    for (int i = x.rank() - 1; i >= 0; --i) axes.push_back(i);
  }
  std::vector<int64_t> shape, src_stride;
  const std::vector<int64_t> strides = row_major_strides(x.shape());
  for (int64_t a : axes) {
    const int ax = normalize_axis(a, x.rank());
    shape.push_back(x.shape()[static_cast<size_t>(ax)]);
    src_stride.push_back(strides[static_cast<size_t>(ax)]);
  }
  std::vector<int64_t> idx;
  for_each_coord(shape, [&](const std::vector<int64_t>& coord) { idx.push_back(flat(coord, src_stride)); });
  return {gather(x, shape, idx)};
}

std::vector<Tensor> broadcast_to(const KernelContext& c) {
  std::vector<int64_t> shape;
  for (const auto& d : c.attrs().get_syms("shape")) shape.push_back(c.eval(d));
  return {gather(c.arg(0), shape, broadcast_index(c.arg(0).shape(), shape))};
}

std::vector<Tensor> concat(const KernelContext& c) {
  const int axis = normalize_axis(c.attrs().get_int("axis"), c.arg(0).rank());
  std::vector<int64_t> shape = c.arg(0).shape();
  shape[static_cast<size_t>(axis)] = 0;
  for (const Tensor* t : c.args) shape[static_cast<size_t>(axis)] += t->shape()[static_cast<size_t>(axis)];
  Tensor out(c.arg(0).dtype(), shape);
  const AxisSplit s = split_at(shape, axis);
  const auto w = static_cast<size_t>(dtype_bytes(out.dtype()));
  int64_t offset = 0;
  for (const Tensor* t : c.args) {
    const int64_t extent = t->shape()[static_cast<size_t>(axis)];
    for (int64_t o = 0; o < s.outer; ++o) {
      const size_t bytes = static_cast<size_t>(extent * s.inner) * w;
      std::memcpy(out.data() + static_cast<size_t>((o * s.extent + offset) * s.inner) * w,
                  t->data() + static_cast<size_t>(o * extent * s.inner) * w, bytes);
    }
    offset += extent;
  }
  return {out};
}

// Copies positions [begin, begin + len) along `axis`.
Tensor slice_axis(const Tensor& x, int axis, int64_t begin, int64_t len) {
  std::vector<int64_t> shape = x.shape();
  shape[static_cast<size_t>(axis)] = len;
  const AxisSplit s = split_at(x.shape(), axis);
  std::vector<int64_t> idx;
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t k = 0; k < len; ++k) {
      for (int64_t in = 0; in < s.inner; ++in) idx.push_back((o * s.extent + begin + k) * s.inner + in);
    }
  }
  return gather(x, shape, idx);
}

std::vector<Tensor> split(const KernelContext& c) {
  const Tensor& x = c.arg(0);
  const int axis = normalize_axis(c.attrs().get_int("axis"), x.rank());
  const int64_t d = x.shape()[static_cast<size_t>(axis)];
  std::vector<int64_t> bounds = {0};
  const int64_t sections = c.attrs().get_int("sections");
  if (sections > 0) {
    for (int64_t i = 1; i <= sections; ++i) bounds.push_back(d / sections * i);
  } else {
    for (int64_t i : c.attrs().get_ints("indices")) bounds.push_back(i);
    bounds.push_back(d);
  }
  std::vector<Tensor> out;
  for (size_t i = 0; i + 1 < bounds.size(); ++i) out.push_back(slice_axis(x, axis, bounds[i], bounds[i + 1] - bounds[i]));
  return out;
}

std::vector<Tensor> strided_slice(const KernelContext& c) {
  const Tensor& x = c.arg(0);
  const auto& axes = c.attrs().get_ints("axes");
  const auto& begin = c.attrs().get_syms("begin");
  const auto& end = c.attrs().get_syms("end");
  const auto& strides = c.attrs().get_ints("strides");
  std::vector<int64_t> shape = x.shape(), first(static_cast<size_t>(x.rank()), 0), step(static_cast<size_t>(x.rank()), 1);
  for (size_t i = 0; i < axes.size(); ++i) {
    const auto ax = static_cast<size_t>(normalize_axis(axes[i], x.rank()));
    step[ax] = strides.empty() ? 1 : strides[i];
    const auto [b, len] = python_slice(x.shape()[ax], c.eval(begin[i]), c.eval(end[i]), step[ax]);
    first[ax] = b;
    shape[ax] = len;
  }
  const std::vector<int64_t> src = row_major_strides(x.shape());
  std::vector<int64_t> idx;
  for_each_coord(shape, [&](const std::vector<int64_t>& coord) {
    int64_t i = 0;
    for (size_t d = 0; d < coord.size(); ++d) i += (first[d] + coord[d] * step[d]) * src[d];
    idx.push_back(i);
  });
  return {gather(x, shape, idx)};
}

std::vector<Tensor> squeeze(const KernelContext& c) {
  const Tensor& x = c.arg(0);
  const auto& axes = c.attrs().get_ints("axes");
  std::set<int> drop;
  for (int64_t a : axes) drop.insert(normalize_axis(a, x.rank()));
  std::vector<int64_t> shape;
  for (int i = 0; i < x.rank(); ++i) {
    const int64_t d = x.shape()[static_cast<size_t>(i)];
    const bool remove = axes.empty() ? d == 1 && c.binding.args()[0].type().shape[static_cast<size_t>(i)].is_const(1)
                                     : drop.count(i) > 0;
    if (!remove) shape.push_back(d);
  }
  return {with_shape(x, shape)};
}

std::vector<Tensor> expand_dims(const KernelContext& c) {
  const Tensor& x = c.arg(0);
  std::vector<int64_t> shape = x.shape();
  shape.insert(shape.begin() + normalize_axis(c.attrs().get_int("axis"), x.rank() + 1), 1);
  return {with_shape(x, shape)};
}

std::vector<Tensor> take(const KernelContext& c) {
  const Tensor &x = c.arg(0), &indices = c.arg(1);
  const int axis = normalize_axis(c.attrs().get_int("axis"), x.rank());
  const bool wrap = c.attrs().get_string("mode") == "wrap";
  const AxisSplit s = split_at(x.shape(), axis);
  const std::vector<int64_t> ids = indices.to_ints();
  std::vector<int64_t> shape(x.shape().begin(), x.shape().begin() + axis);
  shape.insert(shape.end(), indices.shape().begin(), indices.shape().end());
  shape.insert(shape.end(), x.shape().begin() + axis + 1, x.shape().end());
  std::vector<int64_t> idx;
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t id : ids) {
      int64_t k = wrap ? ((id % s.extent) + s.extent) % s.extent : std::clamp<int64_t>(id, 0, s.extent - 1);
      for (int64_t in = 0; in < s.inner; ++in) idx.push_back((o * s.extent + k) * s.inner + in);
    }
  }
  return {gather(x, shape, idx)};
}

std::vector<Tensor> slice_scatter(const KernelContext& c) {
  const Tensor &x = c.arg(0), &src = c.arg(1);
  const int axis = normalize_axis(c.attrs().get_int("axis"), x.rank());
  const int64_t step = c.attrs().get_int("step");
  const auto [b, len] = python_slice(x.shape()[static_cast<size_t>(axis)], c.eval(c.attrs().get_sym("begin")),
                                     c.eval(c.attrs().get_sym("end")), step);
  DT_CHECK(len == src.shape()[static_cast<size_t>(axis)], "slice_scatter src length");
  Tensor out = x;
  const AxisSplit s = split_at(x.shape(), axis);
  const auto w = static_cast<size_t>(dtype_bytes(x.dtype()));
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t k = 0; k < len; ++k) {
      for (int64_t in = 0; in < s.inner; ++in) {
        const int64_t to = (o * s.extent + b + k * step) * s.inner + in;
        const int64_t from = (o * len + k) * s.inner + in;
        std::memcpy(out.data() + static_cast<size_t>(to) * w, src.data() + static_cast<size_t>(from) * w, w);
      }
    }
  }
  return {out};
}

std::vector<Tensor> repeat(const KernelContext& c) {
  const Tensor& x = c.arg(0);
  const int axis = normalize_axis(c.attrs().get_int("axis"), x.rank());
  const int64_t r = c.attrs().get_int("repeats");
  const AxisSplit s = split_at(x.shape(), axis);
  std::vector<int64_t> shape = x.shape();
  shape[static_cast<size_t>(axis)] *= r;
  std::vector<int64_t> idx;
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t k = 0; k < s.extent * r; ++k) {
      for (int64_t in = 0; in < s.inner; ++in) idx.push_back((o * s.extent + k / r) * s.inner + in);
    }
  }
  return {gather(x, shape, idx)};
}

template <bool Lower>
std::vector<Tensor> triangle(const KernelContext& c) {
  Tensor out = c.arg(0);
  const int64_t k = c.attrs().get_int("k");
  const int64_t rows = out.shape()[static_cast<size_t>(out.rank() - 2)], cols = out.shape().back();
  const auto w = static_cast<size_t>(dtype_bytes(out.dtype()));
  for (int64_t i = 0; i < out.numel(); ++i) {
    const int64_t col = i % cols, row = (i / cols) % rows;
    const bool keep = Lower ? col - row <= k : col - row >= k;
    if (!keep) std::memset(out.data() + static_cast<size_t>(i) * w, 0, w);  // 0 and false are all-zero bits
  }
  return {out};
}

}  // namespace

void register_shape_kernels(KernelTable& t) {
  t.add("reshape", reshape);
  t.add("permute_dims", permute_dims);
  t.add("broadcast_to", broadcast_to);
  t.add("concat", concat);
  t.add("split", split);
  t.add("strided_slice", strided_slice);
  t.add("squeeze", squeeze);
  t.add("expand_dims", expand_dims);
  t.add("take", take);
  t.add("slice_scatter", slice_scatter);
  t.add("repeat", repeat);
  t.add("tril", triangle<true>);
  t.add("triu", triangle<false>);
}

}  // namespace difftest::reference
