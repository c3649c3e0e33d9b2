// The shape, layout and constant ops' translators (import_context.h): what reshapes, slices,
// gathers and constants compute, in difftest ops; shapes and axes may come from constants or
// from shape arithmetic (import_shapes.cc).
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "interop/onnx/import_context.h"

namespace difftest::interop {

namespace {

using namespace import_util;

std::vector<Value> transpose(const NodeImport& n) {
  n.only_attrs({"perm"});
  return {n.call("permute_dims", {n.input(0)}, {{"axes", n.attr_ints("perm")}})};
}

std::vector<Value> reshape_op(const NodeImport& n) {
  n.only_attrs({"allowzero"});
  const Value x = n.input(0);
  const std::vector<sym::Expr> target = n.dims_input(1);
  const bool allow_zero = n.attr_int("allowzero", 0) != 0;
  std::vector<sym::Expr> shape;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i].is_const(0) && !allow_zero) {
      if (i >= dims_of(x).size()) {
        throw UserError(ErrorKind::Shape, fmt::format("{}: shape entry {} copies a dim the input lacks", n.where(), i));
      }
      shape.push_back(dims_of(x)[i]);
    } else if (target[i].is_const(0)) {
      n.unsupported("empty tensors", fmt::format("{}: a dim of size 0", n.where()));
    } else {
      shape.push_back(target[i]);
    }
  }
  return {n.call("reshape", {x}, {{"shape", shape}})};
}

std::vector<Value> flatten(const NodeImport& n) {
  n.only_attrs({"axis"});
  const Value x = n.input(0);
  const auto& d = dims_of(x);
  const int64_t axis =
      n.attr_int("axis", 1) == rank_of(x) ? rank_of(x) : normalized_axis(n, n.attr_int("axis", 1), rank_of(x));
  const std::vector<sym::Expr> shape = {product(d, 0, static_cast<size_t>(axis)),
                                        product(d, static_cast<size_t>(axis), d.size())};
  return {n.call("reshape", {x}, {{"shape", shape}})};
}

std::vector<Value> concat(const NodeImport& n) {
  n.only_attrs({"axis"});
  std::vector<Value> args;
  for (size_t i = 0; i < n.num_inputs(); ++i) args.push_back(n.input(i));
  return {n.call("concat", args, {{"axis", normalized_axis(n, n.attr_int("axis", 0), rank_of(args.front()))}})};
}

std::vector<Value> split_op(const NodeImport& n) {
  n.only_attrs({"axis", "split", "num_outputs"});
  const Value x = n.input(0);
  const int64_t axis = normalized_axis(n, n.attr_int("axis", 0), rank_of(x));
  std::vector<int64_t> sizes;
  if (n.opset() >= 13 && n.has_input(1)) {
    const std::vector<sym::Expr> given = n.dims_input(1);
    if (given.size() == 1) return {x};  // one part: the whole
    // Equal symbolic parts (what the exporter writes for sections=k) split by count.
    bool equal = given.size() > 1;
    for (const auto& e : given) equal = equal && e == given.front();
    if (equal && !given.front().is_const()) {
      return n.calls("split", {x}, {{"sections", static_cast<int64_t>(given.size())}, {"axis", axis}});
    }
    sizes = n.ints_input(1);
  } else {
    sizes = n.attr_ints("split");
  }
  const auto outputs = static_cast<int64_t>(n.node().output_size());
  if (sizes.empty()) return n.calls("split", {x}, {{"sections", outputs}, {"axis", axis}});
  for (const int64_t size : sizes) {
    if (size <= 0) n.unsupported("empty tensors", fmt::format("{}: a part of size {}", n.where(), size));
  }
  std::vector<int64_t> indices;
  int64_t at = 0;
  for (size_t i = 0; i + 1 < sizes.size(); ++i) indices.push_back(at += sizes[i]);
  return n.calls("split", {x}, {{"indices", indices}, {"axis", axis}});
}

std::vector<Value> squeeze_op(const NodeImport& n) {
  n.only_attrs({"axes"});
  const Value x = n.input(0);
  std::vector<int64_t> axes =
      n.opset() >= 13 ? (n.has_input(1) ? n.ints_input(1) : std::vector<int64_t>{}) : n.attr_ints("axes");
  for (auto& a : axes) a = normalized_axis(n, a, rank_of(x));
  return {n.call("squeeze", {x}, {{"axes", axes}})};
}

std::vector<Value> unsqueeze(const NodeImport& n) {
  n.only_attrs({"axes"});
  Value x = n.input(0);
  std::vector<int64_t> axes = n.opset() >= 13 ? n.ints_input(1) : n.attr_ints("axes");
  const int out_rank = rank_of(x) + static_cast<int>(axes.size());
  for (auto& a : axes) a = normalized_axis(n, a, out_rank);
  std::sort(axes.begin(), axes.end());
  for (const int64_t a : axes) x = n.call("expand_dims", {x}, {{"axis", a}});
  return {x};
}

std::vector<Value> gather(const NodeImport& n) {
  n.only_attrs({"axis"});
  const Value x = n.input(0);
  // ONNX counts a negative index from the end: difftest's "wrap" mode.
  return {n.call("take", {x, n.input(1)},
                 {{"axis", normalized_axis(n, n.attr_int("axis", 0), rank_of(x))}, {"mode", std::string("wrap")}})};
}

std::vector<Value> expand(const NodeImport& n) {
  n.only_attrs({});
  const Value x = n.input(0);
  const std::vector<sym::Expr> target = n.dims_input(1);
  // Bidirectional broadcast of the input's shape and the given one.
  const auto& d = dims_of(x);
  const size_t rank = std::max(d.size(), target.size());
  std::vector<sym::Expr> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    const bool has_d = i + d.size() >= rank, has_t = i + target.size() >= rank;
    const sym::Expr xd = has_d ? d[i + d.size() - rank] : sym::Expr::constant(1);
    const sym::Expr td = has_t ? target[i + target.size() - rank] : sym::Expr::constant(1);
    shape[i] = td.is_const(1) ? xd : td;
  }
  return {n.call("broadcast_to", {x}, {{"shape", shape}})};
}

std::vector<Value> trilu(const NodeImport& n) {
  n.only_attrs({"upper"});
  const int64_t k = n.has_input(1) ? n.ints_input(1).at(0) : 0;
  return {n.call(n.attr_int("upper", 1) != 0 ? "triu" : "tril", {n.input(0)}, {{"k", k}})};
}

std::vector<Value> constant_op(const NodeImport& n) {
  n.only_attrs({"value", "value_float", "value_int", "value_floats", "value_ints"});
  if (const auto* t = n.attr_tensor("value")) return {n.constant(tensor_from_proto(*t, n.where()))};
  if (n.has_attr("value_float"))
    return {n.constant(Tensor::from_doubles(DType::f32, {}, {n.attr_float("value_float", 0)}))};
  if (n.has_attr("value_int")) return {n.constant(Tensor::from_ints(DType::i64, {}, {n.attr_int("value_int", 0)}))};
  if (n.has_attr("value_ints")) {
    const std::vector<int64_t> v = n.attr_ints("value_ints");
    return {n.constant(Tensor::from_ints(DType::i64, {static_cast<int64_t>(v.size())}, v))};
  }
  n.unsupported("attribute Constant.value_floats or sparse",
                fmt::format("{}: only value, value_float, value_int and value_ints are supported", n.where()));
}

std::vector<Value> constant_of_shape(const NodeImport& n) {
  n.only_attrs({"value"});
  const std::vector<sym::Expr> dims = n.dims_input(0);
  for (const auto& d : dims) {
    if (d.is_const() && d.value() <= 0) {
      n.unsupported("empty tensors", fmt::format("{}: a dim of size {}", n.where(), d.value()));
    }
  }
  Tensor fill = Tensor::from_doubles(DType::f32, {}, {0.0});
  if (const auto* t = n.attr_tensor("value")) fill = tensor_from_proto(*t, n.where());
  return {n.call("full", {}, {{"shape", dims}, {"value", fill.get(0)}, {"dtype", fill.dtype()}})};
}

std::vector<Value> shape_op(const NodeImport& n) {
  n.only_attrs({"start", "end"});
  const auto& d = dims_of(n.input(0));
  const auto rank = static_cast<int64_t>(d.size());
  int64_t start = n.attr_int("start", 0), end = n.has_attr("end") ? n.attr_int("end", rank) : rank;
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  std::vector<int64_t> values;
  for (int64_t i = start; i < end; ++i) {
    if (!d[static_cast<size_t>(i)].is_const()) {
      n.unsupported("Shape of a symbolic dim", fmt::format("{}: dim {} is symbolic", n.where(), i));
    }
    values.push_back(d[static_cast<size_t>(i)].value());
  }
  if (values.empty()) n.unsupported("empty tensors", fmt::format("{}: an empty shape", n.where()));
  return {n.constant(Tensor::from_ints(DType::i64, {static_cast<int64_t>(values.size())}, values))};
}

std::vector<Value> size_op(const NodeImport& n) {
  n.only_attrs({});
  const auto& d = dims_of(n.input(0));
  if (!n.input(0).type().is_static()) {
    n.unsupported("Size of a symbolic shape", fmt::format("{}: the input's shape is symbolic", n.where()));
  }
  int64_t size = 1;
  for (const auto& e : d) size *= e.value();
  return {n.constant(Tensor::from_ints(DType::i64, {}, {size}))};
}

std::vector<Value> range_op(const NodeImport& n) {
  n.only_attrs({});
  const auto delta = n.constant_input(2);
  if (!delta || is_float(delta->dtype())) {
    n.unsupported("float Range", fmt::format("{}: difftest's arange takes integer bounds", n.where()));
  }
  // start and limit may be dims (shape arithmetic) or integer constants.
  const std::vector<sym::Expr> start = n.dims_input(0), limit = n.dims_input(1);
  if (start.size() != 1 || limit.size() != 1) {
    throw UserError(ErrorKind::Shape, fmt::format("{}: start and limit must be scalars", n.where()));
  }
  return {n.call("arange", {},
                 {{"start", start[0]}, {"end", limit[0]}, {"step", delta->get_int(0)}, {"dtype", delta->dtype()}})};
}

std::vector<Value> slice_op(const NodeImport& n) {
  n.only_attrs({});
  if (n.opset() < 10) n.unsupported("Slice before opset 10", fmt::format("{}: starts/ends as attributes", n.where()));
  const Value x = n.input(0);
  const std::vector<sym::Expr> starts = n.dims_input(1), ends = n.dims_input(2);
  std::vector<int64_t> axes(starts.size());
  std::iota(axes.begin(), axes.end(), 0);
  if (n.has_input(3)) axes = n.ints_input(3);
  std::vector<int64_t> steps(starts.size(), 1);
  if (n.has_input(4)) steps = n.ints_input(4);
  std::vector<sym::Expr> begin, end;
  for (size_t i = 0; i < starts.size(); ++i) {
    axes[i] = normalized_axis(n, axes[i], rank_of(x));
    // Python clamps what is beyond the dim; so does strided_slice, after counting a negative
    // bound from the end. Bounds beyond +-2^62 are clamped here to keep its arithmetic exact.
    const auto clamp = [](const sym::Expr& v) {
      return v.is_const() ? sym::Expr::constant(std::clamp<int64_t>(v.value(), -(int64_t{1} << 62), int64_t{1} << 62))
                          : v;
    };
    begin.push_back(clamp(starts[i]));
    end.push_back(clamp(ends[i]));
  }
  return {n.call("strided_slice", {x}, {{"axes", axes}, {"begin", begin}, {"end", end}, {"strides", steps}})};
}

}  // namespace

const std::map<std::string, Translator>& layout_translators() {
  static const std::map<std::string, Translator> table = {
      {"Concat", concat},       {"Constant", constant_op}, {"ConstantOfShape", constant_of_shape},
      {"Expand", expand},       {"Flatten", flatten},      {"Gather", gather},
      {"Range", range_op},      {"Reshape", reshape_op},   {"Shape", shape_op},
      {"Size", size_op},        {"Slice", slice_op},       {"Split", split_op},
      {"Squeeze", squeeze_op},  {"Transpose", transpose},  {"Trilu", trilu},
      {"Unsqueeze", unsqueeze},
  };
  return table;
}

}  // namespace difftest::interop
