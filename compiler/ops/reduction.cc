// Reductions over a set of axes. Dims are >= 1 program-wide, so no reduction is empty.
#include <set>

#include "compiler/ops/infer_util.h"

namespace difftest::ops {

namespace {

// Normalized, sorted, duplicate-free axes; an empty list means every axis.
std::vector<int> reduce_axes(const InferContext& ctx, const std::vector<int64_t>& axes, int rank) {
  std::set<int> out;
  if (axes.empty()) {
    for (int i = 0; i < rank; ++i) out.insert(i);
  }
  for (int64_t a : axes) {
    if (!out.insert(normalize_axis(ctx, a, rank, "axes")).second) {
      fail(ctx, ErrorKind::Attribute, "axis {} is listed twice", a);
    }
  }
  return {out.begin(), out.end()};
}

std::vector<sym::Expr> reduced_shape(const std::vector<sym::Expr>& shape, const std::vector<int>& axes,
                                     bool keepdims) {
  std::vector<sym::Expr> out;
  for (int i = 0; i < static_cast<int>(shape.size()); ++i) {
    const bool reduced = std::find(axes.begin(), axes.end(), i) != axes.end();
    if (!reduced) {
      out.push_back(shape[i]);
    } else if (keepdims) {
      out.push_back(1);
    }
  }
  return out;
}

enum class Operand { Numeric, Float };

void reduction(OpRegistry& r, const std::string& name, Operand operand, bool has_acc, const std::string& summary,
               const std::string& semantics) {
  OpDef d;
  d.name = name;
  d.family = "reduction";
  d.summary = summary;
  d.semantics = semantics +
                " Reduces the listed axes (negative axes count from the end; an empty list means all axes); "
                "keepdims keeps them as size-1 dims. The result has the operand dtype.";
  d.inputs = {"x"};
  d.attrs = {attr_ints("axes", {}, "axes to reduce; [] = all"), attr_bool("keepdims", false, "keep reduced axes as 1")};
  if (has_acc) d.attrs.push_back(attr_acc());
  d.pattern = OpPattern::CommReduce;
  d.infer = [operand, has_acc](const InferContext& ctx) {
    const TensorType& x = input(ctx, 0);
    if (operand == Operand::Float) require_float(ctx, 0);
    if (operand == Operand::Numeric && is_bool(x.dtype)) {
      fail(ctx, ErrorKind::TypeMismatch, "needs a float or integer dtype, got bool");
    }
    if (has_acc) accumulator(ctx, x.dtype);
    auto axes = reduce_axes(ctx, ctx.attrs.get_ints("axes"), x.rank());
    return std::vector<TensorType>{TensorType{x.dtype, reduced_shape(x.shape, axes, ctx.attrs.get_bool("keepdims"))}};
  };
  r.add(std::move(d));
}

void arg_reduction(OpRegistry& r, const std::string& name, const std::string& which) {
  OpDef d;
  d.name = name;
  d.family = "reduction";
  d.summary = fmt::format("index of the {} along an axis", which);
  d.semantics = fmt::format(
      "y = the index (0-based, i64) of the {} element along `axis`; ties go to the smallest index, and a NaN "
      "counts as the {} (the first NaN's index, as NumPy). Operand: a float or integer dtype.",
      which, which);
  d.inputs = {"x"};
  d.attrs = {attr_int("axis", -1, "axis to search"), attr_bool("keepdims", false, "keep the axis as size 1")};
  d.pattern = OpPattern::CommReduce;
  d.infer = [](const InferContext& ctx) {
    const TensorType& x = input(ctx, 0);
    if (is_bool(x.dtype)) fail(ctx, ErrorKind::TypeMismatch, "needs a float or integer dtype, got bool");
    if (x.rank() == 0) fail(ctx, ErrorKind::Shape, "needs rank >= 1");
    int axis = normalize_axis(ctx, ctx.attrs.get_int("axis"), x.rank(), "axis");
    return std::vector<TensorType>{TensorType{DType::i64, reduced_shape(x.shape, {axis}, ctx.attrs.get_bool("keepdims"))}};
  };
  r.add(std::move(d));
}

}  // namespace

void register_reduction_ops(OpRegistry& r) {
  reduction(r, "sum", Operand::Numeric, true, "sum over axes",
            "y = sum of x over the axes. Floats accumulate in `acc` (any order, any association) and round "
            "once to the dtype; integers wrap modulo 2^bits.");
  reduction(r, "mean", Operand::Float, true, "arithmetic mean over axes",
            "y = (sum of x over the axes) / (number of reduced elements), accumulated in `acc`.");
  reduction(r, "prod", Operand::Numeric, true, "product over axes",
            "y = product of x over the axes, accumulated in `acc` for floats; integers wrap.");
  reduction(r, "max", Operand::Numeric, false, "maximum over axes",
            "y = max of x over the axes (exact); a NaN in the slice gives NaN (as maximum, NumPy and ONNX).");
  reduction(r, "min", Operand::Numeric, false, "minimum over axes",
            "y = min of x over the axes (exact); a NaN in the slice gives NaN (as minimum, NumPy and ONNX).");
  arg_reduction(r, "argmax", "largest");
  arg_reduction(r, "argmin", "smallest");
}

}  // namespace difftest::ops
