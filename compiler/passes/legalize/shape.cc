// Lowerings of the shape family: pure data movement. Each result element is a copy of one
// operand element (or a zero, for tril/triu), so every lowering is a loop nest over a result
// that computes the source index in i64; values are never converted, which keeps them bit-exact
// for every dtype. Shapes come from the buffers (the op's inferred types), so a lowering only
// recomputes what the shapes do not say: offsets, slice starts and index clamping.
#include "compiler/faults/faults.h"
#include "compiler/passes/legalize/lowering.h"

namespace difftest::passes {

// Test faults of this file (docs/faults.md): off unless switched on.

const faults::Fault kStridedSliceNegativeBegin({
    .name = "strided-slice-negative-begin",
    .pass = "LegalizeOps",
    .description = "The strided_slice lowering of a forward slice starts a constant negative begin -b at index b "
        "instead of dim - b (clamped so that reads stay in bounds; visible where dim > 2b): a negative Python-style "
        "index taken by its absolute value",
    .models = "a negative Python-style index taken by its absolute value (the last-token logits slice `x[-1:]` of "
        "every decoder reads row 1)",
});

namespace {

using loop::Expr;
using loop::Stmt;
using Index = std::vector<Expr>;

Expr load(const LowerContext& c, size_t operand, const Index& idx) {
  return c.in[operand][flat_index(idx, c.in_shape(operand))];
}

Stmt store(const LowerContext& c, size_t result, const Index& idx, const Expr& value) {
  return Stmt::store(c.out[result], flat_index(idx, c.out_shape(result)), value);
}

size_t axis_attr(const LowerContext& c, const char* name, size_t rank) {
  return static_cast<size_t>(normalized_axis(c.attrs().get_int(name), rank));
}

// reshape, squeeze, expand_dims: the row-major element order does not change, only the shape.
Stmt copy_flat(LowerContext& c) {
  return loop_nest(c, {c.out[0].numel()}, [&](const Index& i) { return Stmt::store(c.out[0], i[0], c.in[0][i[0]]); });
}

Stmt permute_dims(LowerContext& c) {
  const size_t rank = c.in_shape(0).size();
  std::vector<int64_t> axes = c.attrs().get_ints("axes");
  if (axes.empty()) {
    for (size_t d = rank; d-- > 0;) axes.push_back(static_cast<int64_t>(d));
  }
  return loop_nest(c, c.out_shape(), [&](const Index& idx) {
    Index src(rank);
    for (size_t k = 0; k < rank; ++k) src[static_cast<size_t>(normalized_axis(axes[k], rank))] = idx[k];
    return store(c, 0, idx, load(c, 0, src));
  });
}

Stmt broadcast_to(LowerContext& c) {
  return loop_nest(c, c.out_shape(), [&](const Index& idx) {
    return store(c, 0, idx, load(c, 0, broadcast_index(idx, c.in_shape(0))));
  });
}

// Every operand is copied into its own range of the result axis, which starts where the
// previous operand's range ended.
Stmt concat(LowerContext& c) {
  const size_t axis = axis_attr(c, "axis", c.out_shape().size());
  std::vector<Stmt> copies;
  Expr offset = 0;
  for (size_t i = 0; i < c.in.size(); ++i) {
    copies.push_back(loop_nest(c, c.in_shape(i), [&](const Index& idx) {
      Index dst = idx;
      dst[axis] = offset + idx[axis];
      return store(c, 0, dst, load(c, i, idx));
    }));
    offset = i == 0 ? c.in_shape(i)[axis] : offset + c.in_shape(i)[axis];
  }
  return Stmt::seq(std::move(copies));
}

// Each result is the range of the axis that starts where the previous result ended; this
// covers sections (equal parts) and indices (split points) alike.
Stmt split(LowerContext& c) {
  const size_t axis = axis_attr(c, "axis", c.in_shape(0).size());
  std::vector<Stmt> copies;
  Expr offset = 0;
  for (size_t r = 0; r < c.out.size(); ++r) {
    copies.push_back(loop_nest(c, c.out_shape(r), [&](const Index& idx) {
      Index src = idx;
      src[axis] = offset + idx[axis];
      return store(c, r, idx, load(c, 0, src));
    }));
    offset = r == 0 ? c.out_shape(r)[axis] : offset + c.out_shape(r)[axis];
  }
  return Stmt::seq(std::move(copies));
}

// The first index of Python's range(dim)[begin::step] (compiler/ops/slice.cc): a constant
// negative begin counts from the end; then it is clamped to [0, dim] (step > 0) or
// [-1, dim - 1] (step < 0). The clamp's other side cannot bind: a non-constant begin is
// provably >= 0 and dim + begin < dim. When the slice is empty the start is never used.
Expr slice_start(const sym::Expr& begin, const Expr& dim, int64_t step) {
  if (begin.is_const() && begin.value() < 0) return loop::max(dim + begin.value(), Expr(step > 0 ? 0 : -1));
  return loop::min(to_loop(begin), step > 0 ? dim : dim - 1);
}

Stmt strided_slice(LowerContext& c) {
  const auto& in_shape = c.in_shape(0);
  const auto& axes = c.attrs().get_ints("axes");
  const auto& begin = c.attrs().get_syms("begin");
  const auto& strides = c.attrs().get_ints("strides");
  Index first(in_shape.size(), Expr(0));
  std::vector<int64_t> step(in_shape.size(), 1);
  for (size_t i = 0; i < axes.size(); ++i) {
    const auto ax = static_cast<size_t>(normalized_axis(axes[i], in_shape.size()));
    step[ax] = strides.empty() ? 1 : strides[i];
    first[ax] = slice_start(begin[i], in_shape[ax], step[ax]);
    // A forward slice from -b starts at b: min keeps the reads in bounds (the fault shows where dim > 2b).
    if (step[ax] > 0 && begin[i].is_const() && begin[i].value() < 0 && c.compile.fault(kStridedSliceNegativeBegin)) {
      first[ax] = loop::min(Expr(-begin[i].value()), first[ax]);
    }
  }
  return loop_nest(c, c.out_shape(), [&](const Index& idx) {
    Index src;
    for (size_t d = 0; d < idx.size(); ++d) src.push_back(first[d] + idx[d] * step[d]);
    return store(c, 0, idx, load(c, 0, src));
  });
}

// An index read from `indices` mapped into [0, dim) as `mode` says.
Expr gather_position(const Expr& raw, const Expr& dim, const std::string& mode) {
  const Expr i = loop::cast(DType::i64, raw);
  if (mode == "wrap") return loop::floormod(i, dim);
  return loop::min(loop::max(i, Expr(0)), dim - 1);
}

// The result index is x's index with the gathered axis replaced by the index dims:
// [p..., q..., s...] reads x[p..., position(indices[q...]), s...].
Stmt take(LowerContext& c) {
  const auto& x_shape = c.in_shape(0);
  const auto& idx_shape = c.in_shape(1);
  const size_t axis = axis_attr(c, "axis", x_shape.size());
  const std::string& mode = c.attrs().get_string("mode");
  return loop_nest(c, c.out_shape(), [&](const Index& idx) {
    const Index q(idx.begin() + static_cast<ptrdiff_t>(axis), idx.begin() + static_cast<ptrdiff_t>(axis + idx_shape.size()));
    Index src(idx.begin(), idx.begin() + static_cast<ptrdiff_t>(axis));
    src.push_back(gather_position(load(c, 1, q), x_shape[axis], mode));
    src.insert(src.end(), idx.begin() + static_cast<ptrdiff_t>(axis + idx_shape.size()), idx.end());
    return store(c, 0, idx, load(c, 0, src));
  });
}

// y = x, then src overwrites the slice positions. Two passes rather than one select, so that
// src is only ever read in bounds.
Stmt slice_scatter(LowerContext& c) {
  const size_t axis = axis_attr(c, "axis", c.in_shape(0).size());
  const int64_t step = c.attrs().get_int("step");
  const Expr start = slice_start(c.attrs().get_sym("begin"), c.in_shape(0)[axis], step);
  Stmt copy = loop_nest(c, c.out_shape(), [&](const Index& idx) { return store(c, 0, idx, load(c, 0, idx)); });
  Stmt scatter = loop_nest(c, c.in_shape(1), [&](const Index& idx) {
    Index dst = idx;
    dst[axis] = start + idx[axis] * step;
    return store(c, 0, dst, load(c, 1, idx));
  });
  return Stmt::seq({copy, scatter});
}

Stmt repeat(LowerContext& c) {
  const size_t axis = axis_attr(c, "axis", c.in_shape(0).size());
  const int64_t repeats = c.attrs().get_int("repeats");
  return loop_nest(c, c.out_shape(), [&](const Index& idx) {
    Index src = idx;
    src[axis] = loop::floordiv(idx[axis], Expr(repeats));
    return store(c, 0, idx, load(c, 0, src));
  });
}

// tril keeps j - i <= k, triu keeps j - i >= k over the last two dims (row i, column j); the
// rest is 0 (false for bool).
Lowering triangle(bool lower) {
  return [lower](LowerContext& c) {
    const int64_t k = c.attrs().get_int("k");
    const DType t = c.out_dtype();
    return loop_nest(c, c.out_shape(), [&](const Index& idx) {
      const Expr diagonal = idx[idx.size() - 1] - idx[idx.size() - 2];
      const Expr keep = lower ? diagonal <= Expr(k) : diagonal >= Expr(k);
      return store(c, 0, idx, loop::select(keep, load(c, 0, idx), loop::imm(0, t)));
    });
  };
}

}  // namespace

void register_shape_lowerings(LoweringTable& t) {
  t.add("reshape", copy_flat);
  t.add("squeeze", copy_flat);
  t.add("expand_dims", copy_flat);
  t.add("permute_dims", permute_dims);
  t.add("broadcast_to", broadcast_to);
  t.add("concat", concat);
  t.add("split", split);
  t.add("strided_slice", strided_slice);
  t.add("take", take);
  t.add("slice_scatter", slice_scatter);
  t.add("repeat", repeat);
  t.add("tril", triangle(true));
  t.add("triu", triangle(false));
}

}  // namespace difftest::passes
