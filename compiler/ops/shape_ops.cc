// Shape ops: data movement without arithmetic. All of them are exact.
#include <set>

#include "compiler/sym/sym_simplify.h"
#include "compiler/ops/infer_util.h"
#include "compiler/ops/slice.h"

namespace difftest::ops {

namespace {

OpDef shape_op(const std::string& name, const std::string& summary, const std::string& semantics,
               OpPattern pattern = OpPattern::Injective) {
  OpDef d;
  d.name = name;
  d.family = "shape";
  d.summary = summary;
  d.semantics = semantics;
  d.inputs = {"x"};
  d.pattern = pattern;
  return d;
}

std::vector<TensorType> one(DType t, std::vector<sym::Expr> shape) {
  return std::vector<TensorType>{TensorType{t, std::move(shape)}};
}

void add_reshape(OpRegistry& r) {
  OpDef d = shape_op("reshape", "same elements, new shape",
                     "y has the elements of x in row-major order under the new `shape`. One entry may be -1: it "
                     "is inferred so the element counts match, which must then be provably exact. The element "
                     "counts must be provably equal: [n, 64] -> [n*2, 32] is accepted, [n, 64] -> [n, 33] is "
                     "not.");
  d.attrs = {attr_syms_required("shape", "the new shape; at most one -1")};
  d.infer = [](const InferContext& ctx) {
    const TensorType& x = input(ctx, 0);
    std::vector<sym::Expr> shape = ctx.attrs.get_syms("shape");
    const sym::Expr total = num_elements(ctx, x.shape);
    int inferred = -1;
    sym::Expr known = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i].is_const(-1)) {
        if (inferred >= 0) fail(ctx, ErrorKind::Attribute, "shape has more than one -1");
        inferred = static_cast<int>(i);
      } else {
        known = known * shape[i];
      }
    }
    known = simp(ctx, known);
    if (inferred >= 0) {
      sym::Expr dim = simp(ctx, sym::floordiv(total, known));
      if (!provably_equal(ctx, dim * known, total)) {
        fail(ctx, ErrorKind::Shape, "cannot infer -1: {} elements are not provably a multiple of {}",
             sym::to_string(total), sym::to_string(known));
      }
      shape[inferred] = dim;
    } else if (!provably_equal(ctx, known, total)) {
      fail(ctx, ErrorKind::Shape, "cannot reshape {} ({} elements) to {} ({} elements)", x.str(),
           sym::to_string(total), shape_str(shape), sym::to_string(known));
    }
    return one(x.dtype, shape);
  };
  r.add(std::move(d));
}

void add_permute_dims(OpRegistry& r) {
  OpDef d = shape_op("permute_dims", "transpose axes",
                     "y[i_0, ..., i_{r-1}] = x[j] where j[axes[k]] = i_k, i.e. result dim k is operand dim "
                     "axes[k]. An empty `axes` reverses the dims (a matrix transpose for rank 2).");
  d.attrs = {attr_ints("axes", {}, "a permutation of 0..rank-1; [] = reversed")};
  d.infer = [](const InferContext& ctx) {
    const TensorType& x = input(ctx, 0);
    std::vector<int64_t> axes = ctx.attrs.get_ints("axes");
    if (axes.empty()) {
      for (int i = x.rank() - 1; i >= 0; --i) axes.push_back(i);
    }
    if (static_cast<int>(axes.size()) != x.rank()) {
      fail(ctx, ErrorKind::Attribute, "axes has {} entries for rank {}", axes.size(), x.rank());
    }
    std::set<int> seen;
    std::vector<sym::Expr> shape;
    for (int64_t a : axes) {
      int ax = normalize_axis(ctx, a, x.rank(), "axes");
      if (!seen.insert(ax).second) fail(ctx, ErrorKind::Attribute, "axes is not a permutation (axis {} twice)", a);
      shape.push_back(x.shape[ax]);
    }
    return one(x.dtype, shape);
  };
  r.add(std::move(d));
}

void add_broadcast_to(OpRegistry& r) {
  OpDef d = shape_op("broadcast_to", "broadcast to a shape",
                     "NumPy broadcast of x to `shape`: dims align from the right; each operand dim is the "
                     "constant 1 or provably equal to the target dim; missing leading dims are added.",
                     OpPattern::Broadcast);
  d.attrs = {attr_syms_required("shape", "target shape")};
  d.infer = [](const InferContext& ctx) {
    const TensorType& x = input(ctx, 0);
    const auto& target = ctx.attrs.get_syms("shape");
    if (target.size() < x.shape.size()) {
      fail(ctx, ErrorKind::Shape, "target rank {} is below the operand rank {}", target.size(), x.rank());
    }
    for (size_t i = 0; i < x.shape.size(); ++i) {
      const sym::Expr& s = x.shape[x.shape.size() - 1 - i];
      const sym::Expr& t = target[target.size() - 1 - i];
      if (!s.is_const(1) && !provably_equal(ctx, s, t)) {
        fail(ctx, ErrorKind::Shape, "cannot broadcast {} to {}", x.str(), shape_str(target));
      }
    }
    return one(x.dtype, target);
  };
  r.add(std::move(d));
}

void add_concat(OpRegistry& r) {
  OpDef d = shape_op("concat", "join along an axis",
                     "y is the operands joined along `axis` in order; all other dims must be provably equal and "
                     "the dtypes the same. The result dim is the sum (n + m for dims n and m).");
  d.inputs = {"x", "..."};
  d.min_inputs = 1;
  d.max_inputs = -1;
  d.attrs = {attr_int("axis", 0, "axis to join along")};
  d.infer = [](const InferContext& ctx) {
    const TensorType& x = input(ctx, 0);
    if (x.rank() == 0) fail(ctx, ErrorKind::Shape, "cannot concatenate rank-0 tensors");
    int axis = normalize_axis(ctx, ctx.attrs.get_int("axis"), x.rank(), "axis");
    sym::Expr total = x.shape[axis];
    for (size_t i = 1; i < ctx.inputs.size(); ++i) {
      require_same_dtype(ctx, 0, i);
      const TensorType& y = input(ctx, i);
      if (y.rank() != x.rank()) fail(ctx, ErrorKind::Shape, "operand {} has rank {}, expected {}", i, y.rank(), x.rank());
      for (int k = 0; k < x.rank(); ++k) {
        if (k != axis) require_equal_dims(ctx, x.shape[k], y.shape[k], fmt::format("dim {} of operand {}", k, i));
      }
      total = total + y.shape[axis];
    }
    std::vector<sym::Expr> shape = x.shape;
    shape[axis] = simp(ctx, total);
    return one(x.dtype, shape);
  };
  r.add(std::move(d));
}

void add_split(OpRegistry& r) {
  OpDef d = shape_op("split", "split along an axis into several results",
                     "Either sections=k (k equal parts; the dim must be provably divisible by k) or "
                     "indices=[i_1, ..., i_m] (strictly increasing split points giving the parts [0, i_1), "
                     "[i_1, i_2), ..., [i_m, d)); exactly one of the two is given. Produces one result per part, "
                     "in order.");
  d.attrs = {attr_int("sections", 0, "number of equal parts (0: use indices)"),
             attr_ints("indices", {}, "split points (when sections is 0)"), attr_int("axis", 0, "axis to split")};
  d.num_results = [](const Attrs& a) {
    const int64_t s = a.get_int("sections");
    if (s > 0) return static_cast<int>(std::min<int64_t>(s, 1 << 20));
    return static_cast<int>(a.get_ints("indices").size()) + 1;
  };
  d.infer = [](const InferContext& ctx) {
    const TensorType& x = input(ctx, 0);
    if (x.rank() == 0) fail(ctx, ErrorKind::Shape, "cannot split a rank-0 tensor");
    const int axis = normalize_axis(ctx, ctx.attrs.get_int("axis"), x.rank(), "axis");
    const int64_t sections = ctx.attrs.get_int("sections");
    const auto& indices = ctx.attrs.get_ints("indices");
    const sym::Expr& dim = x.shape[axis];
    std::vector<sym::Expr> parts;
    if (sections < 0 || (sections > 0) == !indices.empty()) {
      fail(ctx, ErrorKind::Attribute, "give exactly one of sections (> 0) and indices");
    }
    if (sections > 0) {
      if (sym::prove_divisible(dim, sections, ctx.ranges) != sym::Truth::True) {
        fail(ctx, ErrorKind::Shape, "dim {} is not provably divisible by sections={}", sym::to_string(dim), sections);
      }
      parts.assign(sections, simp(ctx, sym::floordiv(dim, sections)));
    } else {
      int64_t prev = 0;
      for (int64_t i : indices) {
        if (i <= prev) fail(ctx, ErrorKind::Attribute, "indices must be strictly increasing and positive");
        parts.push_back(i - prev);
        prev = i;
      }
      parts.push_back(simp(ctx, dim - prev));
    }
    std::vector<TensorType> out;
    for (const auto& p : parts) {
      std::vector<sym::Expr> shape = x.shape;
      shape[axis] = p;
      out.push_back(TensorType{x.dtype, shape});
    }
    return out;
  };
  r.add(std::move(d));
}

void add_strided_slice(OpRegistry& r) {
  OpDef d = shape_op("strided_slice", "Python-style slicing on some axes",
                     "For each listed axis with dim d, begin b, end e and stride s (s != 0), the kept indices are "
                     "those of Python's range(d)[b:e:s]: a constant negative b or e counts from the end (b + d), "
                     "then b and e are clamped to [0, d] for s > 0 and to [-1, d - 1] for s < 0; the length is "
                     "max(0, ceil((e - b) / s)). A non-constant b or e must be provably >= 0. Unlisted axes are "
                     "kept whole.");
  d.attrs = {attr_ints("axes", {}, "axes to slice"), attr_syms_required("begin", "start per axis"),
             attr_syms_required("end", "stop per axis (exclusive)"),
             attr_ints("strides", {}, "step per axis; [] = all 1")};
  d.infer = [](const InferContext& ctx) {
    const TensorType& x = input(ctx, 0);
    const auto& axes = ctx.attrs.get_ints("axes");
    const auto& begin = ctx.attrs.get_syms("begin");
    const auto& end = ctx.attrs.get_syms("end");
    const auto& strides = ctx.attrs.get_ints("strides");
    if (begin.size() != axes.size() || end.size() != axes.size() ||
        (!strides.empty() && strides.size() != axes.size())) {
      fail(ctx, ErrorKind::Attribute, "axes, begin, end (and strides, when given) need the same length");
    }
    std::vector<sym::Expr> shape = x.shape;
    std::set<int> seen;
    for (size_t i = 0; i < axes.size(); ++i) {
      const int axis = normalize_axis(ctx, axes[i], x.rank(), "axes");
      if (!seen.insert(axis).second) fail(ctx, ErrorKind::Attribute, "axis {} is sliced twice", axes[i]);
      const int64_t step = strides.empty() ? 1 : strides[i];
      shape[axis] = slice_length(ctx, x.shape[axis], begin[i], end[i], step);
    }
    return one(x.dtype, shape);
  };
  r.add(std::move(d));
}

void add_squeeze_expand(OpRegistry& r) {
  OpDef sq = shape_op("squeeze", "remove size-1 dims",
                      "Removes the listed axes, each of which must be provably 1; an empty list removes every dim "
                      "that is the constant 1.");
  sq.attrs = {attr_ints("axes", {}, "axes to remove; [] = all constant-1 dims")};
  sq.infer = [](const InferContext& ctx) {
    const TensorType& x = input(ctx, 0);
    const auto& axes = ctx.attrs.get_ints("axes");
    std::set<int> drop;
    for (int64_t a : axes) {
      int ax = normalize_axis(ctx, a, x.rank(), "axes");
      if (!provably_equal(ctx, x.shape[ax], 1)) {
        fail(ctx, ErrorKind::Shape, "axis {} has dim {}, not 1", a, sym::to_string(x.shape[ax]));
      }
      drop.insert(ax);
    }
    std::vector<sym::Expr> shape;
    for (int i = 0; i < x.rank(); ++i) {
      const bool remove = axes.empty() ? x.shape[i].is_const(1) : drop.count(i) > 0;
      if (!remove) shape.push_back(x.shape[i]);
    }
    return one(x.dtype, shape);
  };
  r.add(std::move(sq));

  OpDef ex = shape_op("expand_dims", "insert a size-1 dim",
                      "Inserts a dim of size 1 so that it becomes dim `axis` of the result (axis in [-(r+1), r], "
                      "negative counting from the end of the result).");
  ex.attrs = {attr_int("axis", 0, "position of the new dim in the result")};
  ex.infer = [](const InferContext& ctx) {
    const TensorType& x = input(ctx, 0);
    int axis = normalize_axis(ctx, ctx.attrs.get_int("axis"), x.rank() + 1, "axis");
    std::vector<sym::Expr> shape = x.shape;
    shape.insert(shape.begin() + axis, sym::Expr(1));
    return one(x.dtype, shape);
  };
  r.add(std::move(ex));
}

void add_take(OpRegistry& r) {
  OpDef d = shape_op("take", "gather along an axis (embedding lookup)",
                     "y[p..., q..., s...] = x[p..., idx(indices[q...]), s...] where p runs over the dims before "
                     "`axis` and s over those after; the result shape is x.shape[:axis] + indices.shape + "
                     "x.shape[axis+1:]. With mode=\"clip\" an index is clamped to [0, d - 1] (so -1 reads index 0); "
                     "with mode=\"wrap\" it is taken floor-modulo d (so -1 reads index d - 1). indices are i32 or "
                     "i64.");
  d.inputs = {"x", "indices"};
  d.min_inputs = d.max_inputs = 2;
  d.attrs = {attr_int("axis", 0, "axis to gather along"),
             attr_string("mode", "clip", {"clip", "wrap"}, "how out-of-range indices are mapped")};
  d.infer = [](const InferContext& ctx) {
    const TensorType& x = input(ctx, 0);
    const TensorType& idx = input(ctx, 1);
    if (idx.dtype != DType::i32 && idx.dtype != DType::i64) {
      fail(ctx, ErrorKind::TypeMismatch, "indices must be i32 or i64, got {}", dtype_name(idx.dtype));
    }
    if (x.rank() == 0) fail(ctx, ErrorKind::Shape, "x must have rank >= 1");
    int axis = normalize_axis(ctx, ctx.attrs.get_int("axis"), x.rank(), "axis");
    std::vector<sym::Expr> shape(x.shape.begin(), x.shape.begin() + axis);
    shape.insert(shape.end(), idx.shape.begin(), idx.shape.end());
    shape.insert(shape.end(), x.shape.begin() + axis + 1, x.shape.end());
    return one(x.dtype, shape);
  };
  r.add(std::move(d));
}

void add_slice_scatter(OpRegistry& r) {
  OpDef d = shape_op("slice_scatter", "write a tensor into a slice of another",
                     "y = x, except that along `axis` the positions selected by the slice begin:end:step (same "
                     "rules as strided_slice, step >= 1) hold src: y[..., b + k*step, ...] = src[..., k, ...]. "
                     "src has x's shape with the axis dim replaced by the slice length.");
  d.inputs = {"x", "src"};
  d.min_inputs = d.max_inputs = 2;
  d.attrs = {attr_int("axis", 0, "axis of the slice"), attr_sym_required("begin", "slice start"),
             attr_sym_required("end", "slice stop (exclusive)"), attr_int("step", 1, "slice step, >= 1")};
  d.infer = [](const InferContext& ctx) {
    const TensorType& x = input(ctx, 0);
    const TensorType& src = input(ctx, 1);
    require_same_dtype(ctx, 0, 1);
    if (x.rank() == 0) fail(ctx, ErrorKind::Shape, "x must have rank >= 1");
    if (src.rank() != x.rank()) fail(ctx, ErrorKind::Shape, "src must have the rank of x ({})", x.rank());
    const int axis = normalize_axis(ctx, ctx.attrs.get_int("axis"), x.rank(), "axis");
    const int64_t step = ctx.attrs.get_int("step");
    if (step < 1) fail(ctx, ErrorKind::Attribute, "step must be >= 1, got {}", step);
    sym::Expr len = slice_length(ctx, x.shape[axis], ctx.attrs.get_sym("begin"), ctx.attrs.get_sym("end"), step);
    for (int k = 0; k < x.rank(); ++k) {
      require_equal_dims(ctx, src.shape[k], k == axis ? len : x.shape[k], fmt::format("src dim {}", k));
    }
    return one(x.dtype, x.shape);
  };
  r.add(std::move(d));
}

void add_repeat_tri(OpRegistry& r) {
  OpDef rep = shape_op("repeat", "repeat each element along an axis",
                       "NumPy repeat: the result dim is d * repeats and y[..., i, ...] = x[..., i // repeats, ...].");
  rep.attrs = {attr_int_required("repeats", "copies of each element, >= 1"), attr_int("axis", 0, "axis to repeat")};
  rep.infer = [](const InferContext& ctx) {
    const TensorType& x = input(ctx, 0);
    if (x.rank() == 0) fail(ctx, ErrorKind::Shape, "x must have rank >= 1");
    const int64_t k = ctx.attrs.get_int("repeats");
    if (k < 1) fail(ctx, ErrorKind::Attribute, "repeats must be >= 1, got {}", k);
    int axis = normalize_axis(ctx, ctx.attrs.get_int("axis"), x.rank(), "axis");
    std::vector<sym::Expr> shape = x.shape;
    shape[axis] = simp(ctx, shape[axis] * k);
    return one(x.dtype, shape);
  };
  r.add(std::move(rep));

  for (bool lower : {true, false}) {
    OpDef d = shape_op(lower ? "tril" : "triu", lower ? "lower triangle" : "upper triangle",
                       lower ? "Over the last two dims (i, j): y = x where j - i <= k, else 0 (false for bool)."
                             : "Over the last two dims (i, j): y = x where j - i >= k, else 0 (false for bool).");
    d.attrs = {attr_int("k", 0, "diagonal offset")};
    d.infer = [](const InferContext& ctx) {
      require_min_rank(ctx, 0, 2);
      return std::vector<TensorType>{input(ctx, 0)};
    };
    r.add(std::move(d));
  }
}

}  // namespace

void register_shape_ops(OpRegistry& r) {
  add_reshape(r);
  add_permute_dims(r);
  add_broadcast_to(r);
  add_concat(r);
  add_split(r);
  add_strided_slice(r);
  add_squeeze_expand(r);
  add_take(r);
  add_slice_scatter(r);
  add_repeat_tri(r);
}

}  // namespace difftest::ops
