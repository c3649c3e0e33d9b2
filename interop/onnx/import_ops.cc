// One translator per ONNX op type (import_context.h): what the op computes, in difftest ops.
// Where ONNX and difftest differ the translator says so (Unsupported with the reason) rather
// than guessing; docs/onnx.md lists each op's mapping.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <numeric>

#include "interop/onnx/import_context.h"

namespace difftest::interop {

namespace {

using namespace import_util;

template <const char* kOp>
std::vector<Value> unary(const NodeImport& n) {
  n.only_attrs({});
  return {n.call(kOp, {n.input(0)})};
}

template <const char* kOp>
std::vector<Value> unary_float(const NodeImport& n) {
  n.only_attrs({});
  require_float(n, n.input(0));
  return {n.call(kOp, {n.input(0)})};
}

template <const char* kOp>
std::vector<Value> binary(const NodeImport& n) {
  n.only_attrs({});
  return {n.call(kOp, {n.input(0), n.input(1)})};
}

template <const char* kOp>
std::vector<Value> binary_float(const NodeImport& n) {
  n.only_attrs({});
  require_float(n, n.input(0));
  return {n.call(kOp, {n.input(0), n.input(1)})};
}

// Max, Min, Sum of any number of operands, left to right.
template <const char* kOp>
std::vector<Value> variadic(const NodeImport& n) {
  n.only_attrs({});
  Value acc = n.input(0);
  for (size_t i = 1; i < n.num_inputs(); ++i) acc = n.call(kOp, {acc, n.input(i)});
  return {acc};
}

constexpr char kExp[] = "exp", kLog[] = "log", kSqrt[] = "sqrt", kTanh[] = "tanh", kSigmoid[] = "sigmoid",
               kErf[] = "erf", kSin[] = "sin", kCos[] = "cos", kFloor[] = "floor", kRound[] = "round", kNeg[] = "neg",
               kAbs[] = "abs", kRelu[] = "relu", kNot[] = "logical_not", kAdd[] = "add", kSub[] = "sub", kMul[] = "mul",
               kDiv[] = "div", kPow[] = "pow", kEqual[] = "equal", kLess[] = "less", kLessEqual[] = "less_equal",
               kGreater[] = "greater", kGreaterEqual[] = "greater_equal", kAnd[] = "logical_and", kOr[] = "logical_or",
               kXor[] = "logical_xor", kMaximum[] = "maximum", kMinimum[] = "minimum", kWhere[] = "where";

std::vector<Value> identity(const NodeImport& n) {
  n.only_attrs({});
  return {n.input(0)};
}

std::vector<Value> dropout(const NodeImport& n) {
  // Inference: the identity; training_mode (input 2) must be absent or false.
  n.only_attrs({"seed", "ratio", "is_test"});
  if (const auto training = n.constant_input(2); training && training->get_int(0) != 0) {
    n.unsupported("Dropout in training mode", fmt::format("{}: training_mode is true", n.where()));
  }
  if (n.node().output_size() > 1 && !n.node().output(1).empty()) {
    n.unsupported("output 1 of Dropout", fmt::format("{}: the mask output is not supported", n.where()));
  }
  return {n.input(0)};
}

std::vector<Value> reciprocal(const NodeImport& n) {
  n.only_attrs({});
  const Value x = n.input(0);
  require_float(n, x);
  return {n.call("div", {n.scalar(dtype_of(x), 1), x})};
}

// ceil(x) = -floor(-x), exact in every float dtype.
std::vector<Value> ceil_op(const NodeImport& n) {
  n.only_attrs({});
  const Value x = n.input(0);
  require_float(n, x);
  return {n.call("neg", {n.call("floor", {n.call("neg", {x})})})};
}

std::vector<Value> leaky_relu(const NodeImport& n) {
  n.only_attrs({"alpha"});
  require_float(n, n.input(0));
  return {n.call("leaky_relu", {n.input(0)}, {{"alpha", n.attr_float("alpha", 0.01)}})};
}

// Integers: ONNX truncates toward zero, floor_divide floors; they differ by one where the
// division is inexact and the operands' signs differ. (A zero divisor is undefined in ONNX.)
std::vector<Value> div_op(const NodeImport& n) {
  n.only_attrs({});
  const Value a = n.input(0), b = n.input(1);
  if (is_float(dtype_of(a))) return {n.call("div", {a, b})};
  const DType dt = dtype_of(a);
  const Value floored = n.call("floor_divide", {a, b});
  if (!is_signed_int(dt)) return {floored};
  const Value zero = n.scalar(dt, 0);
  const Value inexact = n.call("not_equal", {n.call("floor_mod", {a, b}), zero});
  const Value signs_differ = n.call("logical_xor", {n.call("less", {a, zero}), n.call("less", {b, zero})});
  const Value adjust = n.call("cast", {n.call("logical_and", {inexact, signs_differ})}, {{"dtype", dt}});
  return {n.call("add", {floored, adjust})};
}

// atan(x) = atan2(x, 1), exactly.
std::vector<Value> atan_op(const NodeImport& n) {
  n.only_attrs({});
  const Value x = n.input(0);
  require_float(n, x);
  return {n.call("atan2", {x, n.scalar(dtype_of(x), 1)})};
}

// Shifts by constant amounts below the bit width: RIGHT is floor division by 2^s (unsigned
// operands only, as ONNX requires), LEFT a wrapping multiplication by 2^s.
std::vector<Value> bit_shift(const NodeImport& n) {
  n.only_attrs({"direction"});
  const Value x = n.input(0);
  const DType dt = dtype_of(x);
  const std::optional<Tensor> shifts = n.constant_input(1);
  if (!shifts)
    n.unsupported("BitShift by a computed amount", fmt::format("{}: the shifts must be constants", n.where()));
  std::vector<int64_t> powers(static_cast<size_t>(shifts->numel()));
  for (int64_t i = 0; i < shifts->numel(); ++i) {
    const int64_t s = shifts->get_int(i);
    if (s < 0 || s >= dtype_bits(dt)) {
      n.unsupported("BitShift by the bit width or more",
                    fmt::format("{}: shift {} on {}", n.where(), s, dtype_name(dt)));
    }
    powers[static_cast<size_t>(i)] = int64_t{1} << s;
  }
  const Value factor = n.constant(Tensor::from_ints(dt, shifts->shape(), powers));
  const std::string direction = n.attr_string("direction", "");
  if (direction == "RIGHT") return {n.call("floor_divide", {x, factor})};
  if (direction == "LEFT") return {n.call("mul", {x, factor})};
  n.unsupported("BitShift direction",
                fmt::format("{}: direction must be LEFT or RIGHT, got '{}'", n.where(), direction));
}

std::vector<Value> pow_op(const NodeImport& n) {
  n.only_attrs({});
  const Value base = n.input(0);
  Value exponent = n.input(1);
  if (!is_float(dtype_of(base))) {
    n.unsupported("Pow of integers",
                  fmt::format("{}: difftest's pow takes a float base, not {}", n.where(), dtype_name(dtype_of(base))));
  }
  // ONNX allows an exponent of another dtype: converted to the base's (exact for the integers
  // and the narrower floats it may be; a wider float exponent is rounded first).
  if (dtype_of(exponent) != dtype_of(base)) exponent = n.call("cast", {exponent}, {{"dtype", dtype_of(base)}});
  return {n.call("pow", {base, exponent})};
}

std::vector<Value> mod_op(const NodeImport& n) {
  n.only_attrs({"fmod"});
  if (n.attr_int("fmod", 0) != 0 || is_float(dtype_of(n.input(0)))) {
    n.unsupported("Mod with fmod=1", fmt::format("{}: only the integer floor modulo (fmod=0) is supported", n.where()));
  }
  return {n.call("floor_mod", {n.input(0), n.input(1)})};
}

std::vector<Value> mean_op(const NodeImport& n) {
  n.only_attrs({});
  Value acc = n.input(0);
  require_float(n, acc);
  for (size_t i = 1; i < n.num_inputs(); ++i) acc = n.call("add", {acc, n.input(i)});
  if (n.num_inputs() == 1) return {acc};
  return {n.call("div", {acc, n.scalar(dtype_of(acc), static_cast<double>(n.num_inputs()))})};
}

std::vector<Value> cast_op(const NodeImport& n) {
  n.only_attrs({"to", "saturate"});
  const int64_t to = n.attr_int("to", 0);
  const std::optional<DType> dtype = dtype_from_onnx(static_cast<int32_t>(to));
  if (!dtype) {
    n.unsupported(
        fmt::format("dtype {}", onnx_dtype_name(static_cast<int32_t>(to))),
        fmt::format("{}: cast to {}, which difftest lacks", n.where(), onnx_dtype_name(static_cast<int32_t>(to))));
  }
  return {n.call("cast", {n.input(0)}, {{"dtype", *dtype}})};
}

std::vector<Value> cast_like(const NodeImport& n) {
  n.only_attrs({"saturate"});
  return {n.call("cast", {n.input(0)}, {{"dtype", dtype_of(n.input(1))}})};
}

std::vector<Value> clip_op(const NodeImport& n) {
  const Value x = n.input(0);
  const DType dt = dtype_of(x);
  // No bound: the dtype's extremes (the largest double rounds to infinity in a narrower float).
  const double lowest = is_float(dt) ? std::numeric_limits<double>::lowest() : static_cast<double>(int_min(dt));
  const double highest = is_float(dt) ? std::numeric_limits<double>::max() : static_cast<double>(int_max(dt));
  double lo = lowest, hi = highest;
  if (n.opset() < 11) {
    n.only_attrs({"min", "max"});
    lo = n.attr_float("min", lowest);
    hi = n.attr_float("max", highest);
  } else {
    n.only_attrs({});
    if (const auto t = n.constant_input(1)) lo = t->get(0);
    if (const auto t = n.constant_input(2)) hi = t->get(0);
  }
  if (lo > hi) {
    n.unsupported("Clip with min > max", fmt::format("{}: min {} > max {} (ONNX then gives max)", n.where(), lo, hi));
  }
  return {n.call("clip", {x}, {{"min", lo}, {"max", hi}})};
}

// The reduced axes: the `axes` input (ReduceSum from opset 13) or attribute; empty means all,
// unless noop_with_empty_axes.
std::optional<std::vector<int64_t>> reduce_axes(const NodeImport& n, bool axes_from_input) {
  std::vector<int64_t> axes =
      axes_from_input ? (n.has_input(1) ? n.ints_input(1) : std::vector<int64_t>{}) : n.attr_ints("axes");
  if (axes.empty() && n.attr_int("noop_with_empty_axes", 0) != 0) return std::nullopt;
  for (auto& a : axes) a = normalized_axis(n, a, rank_of(n.input(0)));
  return axes;
}

// `pre` maps the operand before the sum (x*x, |x|, exp), `post` the sum after it (sqrt, log).
template <const char* kOp, const char* kPre, const char* kPost>
std::vector<Value> reduce(const NodeImport& n) {
  n.only_attrs({"axes", "keepdims", "noop_with_empty_axes"});
  const bool from_input = n.node().op_type() == "ReduceSum" && n.opset() >= 13;
  const std::optional<std::vector<int64_t>> axes = reduce_axes(n, from_input);
  Value x = n.input(0);
  if (!axes) return {x};
  const std::string pre = kPre;
  if (pre == "square") {
    x = n.call("mul", {x, x});
  } else if (!pre.empty()) {
    x = n.call(pre, {x});
  }
  Value y = n.call(kOp, {x}, {{"axes", *axes}, {"keepdims", n.attr_int("keepdims", 1) != 0}});
  if (std::string(kPost).size()) y = n.call(kPost, {y});
  return {y};
}

constexpr char kSum[] = "sum", kMean[] = "mean", kMax[] = "max", kMin[] = "min", kProd[] = "prod", kNone[] = "",
               kSquare[] = "square";

template <const char* kOp>
std::vector<Value> arg_reduce(const NodeImport& n) {
  n.only_attrs({"axis", "keepdims", "select_last_index"});
  const Value x = n.input(0);
  const int64_t axis = normalized_axis(n, n.attr_int("axis", 0), rank_of(x));
  const AttrList attrs = {{"axis", axis}, {"keepdims", n.attr_int("keepdims", 1) != 0}};
  if (n.attr_int("select_last_index", 0) == 0) return {n.call(kOp, {x}, attrs)};
  // Ties to the last index: the first index of the reversed axis, counted from its end.
  const sym::Expr& d = dims_of(x)[static_cast<size_t>(axis)];
  if (!d.is_const()) {
    n.unsupported(fmt::format("attribute {}.select_last_index on a symbolic dim", n.node().op_type()),
                  fmt::format("{}: select_last_index=1 needs a static dim {}", n.where(), axis));
  }
  const Value reversed = n.call("strided_slice", {x},
                                {{"axes", std::vector<int64_t>{axis}},
                                 {"begin", std::vector<sym::Expr>{sym::Expr::constant(-1)}},
                                 {"end", std::vector<sym::Expr>{sym::Expr::constant(-d.value() - 1)}},
                                 {"strides", std::vector<int64_t>{-1}}});
  return {n.call("sub", {n.scalar(DType::i64, static_cast<double>(d.value() - 1)), n.call(kOp, {reversed}, attrs)})};
}
constexpr char kArgmax[] = "argmax", kArgmin[] = "argmin";

std::vector<Value> matmul_op(const NodeImport& n) {
  n.only_attrs({});
  Value a = n.input(0), b = n.input(1);
  require_float(n, a);
  const bool a_vector = rank_of(a) == 1, b_vector = rank_of(b) == 1;
  // NumPy's rule for 1-D operands: a row (a) or a column (b) vector, its dim removed after.
  if (a_vector) a = n.call("expand_dims", {a}, {{"axis", int64_t{0}}});
  if (b_vector) b = n.call("expand_dims", {b}, {{"axis", int64_t{1}}});
  Value y = n.call("matmul", {a, b});
  if (b_vector) y = n.call("squeeze", {y}, {{"axes", std::vector<int64_t>{rank_of(y) - 1}}});
  if (a_vector) y = n.call("squeeze", {y}, {{"axes", std::vector<int64_t>{rank_of(y) - (b_vector ? 1 : 2)}}});
  return {y};
}

std::vector<Value> gemm(const NodeImport& n) {
  n.only_attrs({"alpha", "beta", "transA", "transB"});
  const Value a = n.input(0), b = n.input(1);
  require_float(n, a);
  const DType dt = dtype_of(a);
  Value y = n.call("matmul", {a, b},
                   {{"transpose_a", n.attr_int("transA", 0) != 0}, {"transpose_b", n.attr_int("transB", 0) != 0}});
  const double alpha = n.attr_float("alpha", 1), beta = n.attr_float("beta", 1);
  if (alpha != 1) y = n.call("mul", {y, n.scalar(dt, alpha)});
  if (n.has_input(2) && beta != 0) {
    Value c = n.input(2);
    if (beta != 1) c = n.call("mul", {c, n.scalar(dt, beta)});
    y = n.call("add", {y, c});
  }
  return {y};
}

// Softmax and LogSoftmax: from opset 13 along one axis; before, over the input coerced to 2-D
// at `axis` (default 1), which is one axis only when it is the last.
template <const char* kOp>
std::vector<Value> softmax_op(const NodeImport& n) {
  n.only_attrs({"axis"});
  const Value x = n.input(0);
  require_float(n, x);
  const int rank = rank_of(x);
  const int64_t axis = normalized_axis(n, n.attr_int("axis", n.opset() >= 13 ? -1 : 1), rank);
  if (n.opset() >= 13 || axis == rank - 1) return {n.call(kOp, {x}, {{"axis", axis}})};
  const auto& d = dims_of(x);
  const std::vector<sym::Expr> flat = {product(d, 0, static_cast<size_t>(axis)),
                                       product(d, static_cast<size_t>(axis), d.size())};
  const Value y = n.call(kOp, {n.call("reshape", {x}, {{"shape", flat}})}, {{"axis", int64_t{1}}});
  return {n.call("reshape", {y}, {{"shape", d}})};
}
constexpr char kSoftmax[] = "softmax", kLogSoftmax[] = "log_softmax";

std::vector<Value> layer_norm(const NodeImport& n) {
  n.only_attrs({"axis", "epsilon", "stash_type"});
  Value x = n.input(0);
  require_float(n, x);
  const DType dt = dtype_of(x);
  const int rank = rank_of(x);
  const int64_t axis = normalized_axis(n, n.attr_int("axis", -1), rank);
  const auto& d = dims_of(x);
  const sym::Expr width = product(d, static_cast<size_t>(axis), d.size());
  Value scale = n.input(1);
  Value bias;
  if (n.has_input(2)) {
    bias = n.input(2);
  } else {
    bias = n.call("zeros", {}, {{"shape", std::vector<sym::Expr>{width}}, {"dtype", dt}});
  }
  const bool last = axis == rank - 1;
  if (!last) {
    std::vector<sym::Expr> folded(d.begin(), d.begin() + axis);
    folded.push_back(width);
    x = n.call("reshape", {x}, {{"shape", folded}});
  }
  const std::vector<sym::Expr> flat = {width};
  if (rank_of(scale) != 1) scale = n.call("reshape", {scale}, {{"shape", flat}});
  if (rank_of(bias) != 1) bias = n.call("reshape", {bias}, {{"shape", flat}});
  const double eps = n.attr_float("epsilon", 1e-5);
  Value y = n.call("layer_norm", {x, scale, bias}, {{"axis", int64_t{-1}}, {"eps", eps}});
  if (!last) y = n.call("reshape", {y}, {{"shape", d}});
  if (n.node().output_size() == 1) return {y};
  // Mean and InvStdDev over the normalized dims, kept as 1s: [d0, ..., d(axis-1), 1, ..., 1].
  const Value x_orig = n.input(0);
  std::vector<int64_t> axes;
  for (int64_t a = axis; a < rank; ++a) axes.push_back(a);
  const AttrList reduce = {{"axes", axes}, {"keepdims", true}};
  const Value mean = n.call("mean", {x_orig}, reduce);
  const Value centered = n.call("sub", {x_orig, mean});
  const Value var = n.call("mean", {n.call("mul", {centered, centered})}, reduce);
  const Value inv_std = n.call("rsqrt", {n.call("add", {var, n.scalar(dt, eps)})});
  return {y, mean, inv_std};
}

std::vector<Value> where_op(const NodeImport& n) {
  n.only_attrs({});
  return {n.call("where", {n.input(0), n.input(1), n.input(2)})};
}

// Conv over 1 or 2 spatial dims with symmetric explicit pads: conv1d/conv2d.
std::vector<Value> conv_op(const NodeImport& n) {
  n.only_attrs({"kernel_shape", "strides", "pads", "dilations", "group", "auto_pad"});
  const Value x = n.input(0);
  require_float(n, x);
  const int spatial = rank_of(x) - 2;
  if (spatial != 1 && spatial != 2) {
    n.unsupported(fmt::format("Conv over {} spatial dims", spatial),
                  fmt::format("{}: difftest has conv1d and conv2d only", n.where()));
  }
  if (n.attr_string("auto_pad", "NOTSET") != "NOTSET") {
    n.unsupported("attribute Conv.auto_pad", fmt::format("{}: only explicit pads are supported", n.where()));
  }
  const auto fill = [&](const std::string& name, int64_t value) {
    std::vector<int64_t> v = n.attr_ints(name);
    if (v.empty()) v.assign(static_cast<size_t>(spatial), value);
    return v;
  };
  const std::vector<int64_t> strides = fill("strides", 1), dilations = fill("dilations", 1);
  std::vector<int64_t> pads = n.attr_ints("pads");
  if (pads.empty()) pads.assign(static_cast<size_t>(2 * spatial), 0);
  for (int i = 0; i < spatial; ++i) {
    if (pads[static_cast<size_t>(i)] != pads[static_cast<size_t>(i + spatial)]) {
      n.unsupported("Conv with asymmetric pads", fmt::format("{}: pads {} differ at the two ends", n.where(), i));
    }
  }
  pads.resize(static_cast<size_t>(spatial));
  std::vector<Value> args = {x, n.input(1)};
  if (n.has_input(2)) args.push_back(n.input(2));
  const AttrList common = {{"groups", n.attr_int("group", 1)}};
  if (spatial == 1) {
    AttrList attrs = {{"stride", strides[0]}, {"padding", pads[0]}, {"dilation", dilations[0]}};
    attrs.insert(attrs.end(), common.begin(), common.end());
    return {n.call("conv1d", args, attrs)};
  }
  AttrList attrs = {{"stride", strides}, {"padding", pads}, {"dilation", dilations}};
  attrs.insert(attrs.end(), common.begin(), common.end());
  return {n.call("conv2d", args, attrs)};
}

}  // namespace

const std::map<std::string, Translator>& translators() {
  static const std::map<std::string, Translator> table = [] {
    std::map<std::string, Translator> all = layout_translators();
    all.insert(layer_translators().begin(), layer_translators().end());
    all.insert({
        {"Abs", unary<kAbs>},
        {"Atan", atan_op},
        {"BitShift", bit_shift},
        {"Add", binary<kAdd>},
        {"And", binary<kAnd>},
        {"ArgMax", arg_reduce<kArgmax>},
        {"ArgMin", arg_reduce<kArgmin>},
        {"Cast", cast_op},
        {"CastLike", cast_like},
        {"Ceil", ceil_op},
        {"Clip", clip_op},
        {"Conv", conv_op},
        {"Cos", unary_float<kCos>},
        {"Div", div_op},
        {"Dropout", dropout},
        {"Equal", binary<kEqual>},
        {"Erf", unary_float<kErf>},
        {"Exp", unary_float<kExp>},
        {"Floor", unary_float<kFloor>},
        {"Gemm", gemm},
        {"Greater", binary<kGreater>},
        {"GreaterOrEqual", binary<kGreaterEqual>},
        {"Identity", identity},
        {"LayerNormalization", layer_norm},
        {"LeakyRelu", leaky_relu},
        {"Less", binary<kLess>},
        {"LessOrEqual", binary<kLessEqual>},
        {"Log", unary_float<kLog>},
        {"LogSoftmax", softmax_op<kLogSoftmax>},
        {"MatMul", matmul_op},
        {"Max", variadic<kMaximum>},
        {"Mean", mean_op},
        {"Min", variadic<kMinimum>},
        {"Mod", mod_op},
        {"Mul", binary<kMul>},
        {"Neg", unary<kNeg>},
        {"Not", unary<kNot>},
        {"Or", binary<kOr>},
        {"Pow", pow_op},
        {"Reciprocal", reciprocal},
        {"ReduceL1", reduce<kSum, kAbs, kNone>},
        {"ReduceL2", reduce<kSum, kSquare, kSqrt>},
        {"ReduceLogSum", reduce<kSum, kNone, kLog>},
        {"ReduceLogSumExp", reduce<kSum, kExp, kLog>},
        {"ReduceMax", reduce<kMax, kNone, kNone>},
        {"ReduceMean", reduce<kMean, kNone, kNone>},
        {"ReduceMin", reduce<kMin, kNone, kNone>},
        {"ReduceProd", reduce<kProd, kNone, kNone>},
        {"ReduceSum", reduce<kSum, kNone, kNone>},
        {"ReduceSumSquare", reduce<kSum, kSquare, kNone>},
        {"Relu", unary<kRelu>},
        {"Round", unary_float<kRound>},
        {"Sigmoid", unary_float<kSigmoid>},
        {"Sin", unary_float<kSin>},
        {"Softmax", softmax_op<kSoftmax>},
        {"Sqrt", unary_float<kSqrt>},
        {"Sub", binary<kSub>},
        {"Sum", variadic<kAdd>},
        {"Tanh", unary_float<kTanh>},
        {"Where", where_op},
        {"Xor", binary<kXor>},
    });
    return all;
  }();
  return table;
}

}  // namespace difftest::interop
