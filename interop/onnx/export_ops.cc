// Emitters of the elementwise, reduction, linalg, shape and creation families
// (export_context.h): the ONNX nodes that compute each op. Where ONNX has no counterpart, the
// decomposition real exporters emit, its equivalent forms drawn from the form seed. An op
// without an emitter is Unsupported, never approximated.
#include <fmt/format.h>

#include <cmath>

#include "compiler/sym/sym_simplify.h"
#include "interop/onnx/export_context.h"

namespace difftest::interop {

std::string scalar_dim(ModelWriter& w, const sym::Expr& e) {
  if (e.is_const()) return w.scalar(DType::i64, static_cast<double>(e.value()));
  return w.op("Squeeze", {w.dims({e}), w.int64s({0})}, "scalar_dim");
}

std::pair<std::string, std::string> mask_positions(ModelWriter& w, const sym::Expr& offset, const sym::Expr& q_len,
                                                   const sym::Expr& kv_len) {
  const std::string q =
      w.op("Range", {scalar_dim(w, offset), scalar_dim(w, sym::simplify(offset + q_len)), scalar_dim(w, 1)}, "q_pos");
  const std::string k = w.op("Range", {scalar_dim(w, 0), scalar_dim(w, kv_len), scalar_dim(w, 1)}, "k_pos");
  return {w.op("Unsqueeze", {q, w.int64s({1})}, "q_col"), w.op("Unsqueeze", {k, w.int64s({0})}, "k_row")};
}

std::string causal_part(ModelWriter& w, const std::string& q, const std::string& k) {
  return w.form(2) ? w.op("GreaterOrEqual", {q, k}, "causal") : w.op("LessOrEqual", {k, q}, "causal");
}

std::string window_part(ModelWriter& w, const std::string& q, const std::string& k, int64_t window, int64_t sink) {
  const std::string start = w.op("Sub", {q, w.int64s({window})}, "window_start");
  std::string visible = w.op("Greater", {k, start}, "in_window");
  if (sink > 0) visible = w.op("Or", {visible, w.op("Less", {k, w.int64s({sink})}, "sink")}, "in_window_or_sink");
  return visible;
}

namespace {

using namespace export_util;

// Ops that are one ONNX node of the same operands.
template <const char* kOnnx>
void same(ModelWriter& w, const Binding& b) {
  std::vector<std::string> args;
  for (size_t i = 0; i < b.args().size(); ++i) args.push_back(in(w, b, i));
  w.node(kOnnx, args, {out(w, b)});
}

// A commutative binary op, its operands in either order (a form).
template <const char* kOnnx>
void commutative(ModelWriter& w, const Binding& b) {
  const bool swap = w.form(2) == 1;
  w.node(kOnnx, {in(w, b, swap ? 1 : 0), in(w, b, swap ? 0 : 1)}, {out(w, b)});
}

constexpr char kOnnxExp[] = "Exp", kOnnxLog[] = "Log", kOnnxSqrt[] = "Sqrt", kOnnxTanh[] = "Tanh",
               kOnnxSigmoid[] = "Sigmoid", kOnnxErf[] = "Erf", kOnnxSin[] = "Sin", kOnnxCos[] = "Cos",
               kOnnxFloor[] = "Floor", kOnnxRound[] = "Round", kOnnxNeg[] = "Neg", kOnnxAbs[] = "Abs",
               kOnnxRelu[] = "Relu", kOnnxNot[] = "Not", kOnnxAdd[] = "Add", kOnnxSub[] = "Sub", kOnnxMul[] = "Mul",
               kOnnxDiv[] = "Div", kOnnxPow[] = "Pow", kOnnxEqual[] = "Equal", kOnnxLess[] = "Less",
               kOnnxLessEqual[] = "LessOrEqual", kOnnxGreater[] = "Greater", kOnnxGreaterEqual[] = "GreaterOrEqual",
               kOnnxAnd[] = "And", kOnnxOr[] = "Or", kOnnxXor[] = "Xor", kOnnxMax[] = "Max", kOnnxMin[] = "Min",
               kOnnxWhere[] = "Where";

void rsqrt(ModelWriter& w, const Binding& b) {
  w.node("Reciprocal", {w.op("Sqrt", {in(w, b, 0)}, "sqrt")}, {out(w, b)});
}

// x * sigmoid(x), either order.
void silu(ModelWriter& w, const Binding& b) {
  const std::string s = w.op("Sigmoid", {in(w, b, 0)}, "sigmoid");
  w.form(2) ? w.node("Mul", {s, in(w, b, 0)}, {out(w, b)}) : w.node("Mul", {in(w, b, 0), s}, {out(w, b)});
}

// The erf form x * 0.5 * (1 + erf(x / sqrt(2))) as torch.onnx writes it; tanh's approximation
// as x * 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))). The product in either grouping,
// (x * 0.5) * (1 + ...) or (x * (1 + ...)) * 0.5, and 1 on either side of its Add: the two
// shapes ORT's GeluFusion and FastGeluFusion match, and near misses of them.
void gelu(ModelWriter& w, const Binding& b) {
  const DType dt = compute_dtype(b);
  const std::string& x = in(w, b, 0);
  std::string inner;
  if (b.attrs().get_string("approximate") == "tanh") {
    const std::string cube =
        w.form(2) ? w.op("Pow", {x, w.scalar(dt, 3)}, "cube") : w.op("Mul", {x, w.op("Mul", {x, x}, "sq")}, "cube");
    const std::string poly = w.op("Add", {x, w.op("Mul", {cube, w.scalar(dt, 0.044715)}, "c")}, "poly");
    inner = w.op("Tanh", {w.op("Mul", {poly, w.scalar(dt, std::sqrt(2 / M_PI))}, "scaled")}, "tanh");
  } else {
    inner = w.op("Erf", {w.op("Div", {x, w.scalar(dt, std::sqrt(2.0))}, "scaled")}, "erf");
  }
  const std::string one_plus = added(w, inner, w.scalar(dt, 1), "one_plus");
  if (w.form(2)) {
    w.node("Mul", {w.op("Mul", {x, one_plus}, "x_one_plus"), w.scalar(dt, 0.5)}, {out(w, b)});
    return;
  }
  const std::string half_x = w.op("Mul", {x, w.scalar(dt, 0.5)}, "half_x");
  w.node("Mul", {half_x, one_plus}, {out(w, b)});
}

// LeakyRelu's alpha is a float attribute: where f32 cannot hold an f64 op's alpha, the op is
// written out as Where(x < 0, x * alpha, x).
void leaky_relu(ModelWriter& w, const Binding& b) {
  const double alpha = b.attrs().get_float("alpha");
  const DType dt = compute_dtype(b);
  if (dt != DType::f64 || static_cast<double>(static_cast<float>(alpha)) == alpha) {
    set_attr(w.node("LeakyRelu", {in(w, b, 0)}, {out(w, b)}), "alpha", static_cast<float>(alpha));
    return;
  }
  const std::string& x = in(w, b, 0);
  w.node("Where", {w.op("Less", {x, w.scalar(dt, 0)}, "negative"), w.op("Mul", {x, w.scalar(dt, alpha)}, "leaked"), x},
         {out(w, b)});
}

void clip(ModelWriter& w, const Binding& b) {
  const DType dt = compute_dtype(b);
  w.node("Clip", {in(w, b, 0), w.scalar(dt, b.attrs().get_float("min")), w.scalar(dt, b.attrs().get_float("max"))},
         {out(w, b)});
}

void cast(ModelWriter& w, const Binding& b) {
  const DType to = b.attrs().get_dtype("dtype"), from = b.args()[0].type().dtype;
  if (!is_float(from) || !is_int(to)) {
    set_attr(w.node("Cast", {in(w, b, 0)}, {out(w, b)}), "to", int64_t{onnx_dtype(to)});
    return;
  }
  // difftest's float -> int cast saturates and takes NaN to 0, where ONNX leaves an out-of-range
  // value undefined (ONNX Runtime wraps: -2.0 to u8 is 254). Written out in f64, whose range
  // holds every integer bound (i64's maximum rounded down), then truncated by Cast.
  ::onnx::NodeProto* widen = nullptr;
  const std::string wide = w.op("Cast", {in(w, b, 0)}, "wide", &widen);
  set_attr(*widen, "to", int64_t{onnx_dtype(DType::f64)});
  const std::string is_number = w.op("Equal", {wide, wide}, "is_number");
  const std::string finite = w.op("Where", {is_number, wide, w.scalar(DType::f64, 0)}, "nan_as_zero");
  const double hi = to == DType::i64 ? std::nextafter(0x1p63, 0.0) : static_cast<double>(int_max(to));
  const std::string saturated = w.op(
      "Clip", {finite, w.scalar(DType::f64, static_cast<double>(int_min(to))), w.scalar(DType::f64, hi)}, "saturated");
  set_attr(w.node("Cast", {saturated}, {out(w, b)}), "to", int64_t{onnx_dtype(to)});
}

// difftest defines x // 0 and x % 0 as 0, where ONNX leaves them undefined: the divisor is
// replaced by 1 where it is 0 and the result by 0 there, as exporters guard a division.
struct GuardedDivisor {
  std::string is_zero, safe;
};
GuardedDivisor guarded(ModelWriter& w, const Binding& b) {
  const DType dt = b.args()[1].type().dtype;
  const std::string zero = w.op("Equal", {in(w, b, 1), w.scalar(dt, 0)}, "divisor_is_zero");
  return {zero, w.op("Where", {zero, w.scalar(dt, 1), in(w, b, 1)}, "safe_divisor")};
}

void zero_where_divisor_is_zero(ModelWriter& w, const Binding& b, const GuardedDivisor& d, const std::string& value) {
  w.node("Where", {d.is_zero, w.scalar(b.result().type().dtype, 0), value}, {out(w, b)});
}

// Integers: (a - a mod b) / b divides exactly, where ONNX's truncating Div is the floor. Floats:
// Floor(a / b).
void floor_divide(ModelWriter& w, const Binding& b) {
  if (is_float(compute_dtype(b))) {
    w.node("Floor", {w.op("Div", {in(w, b, 0), in(w, b, 1)}, "quotient")}, {out(w, b)});
    return;
  }
  const GuardedDivisor d = guarded(w, b);
  const std::string rem = w.op("Mod", {in(w, b, 0), d.safe}, "rem");
  const std::string q = w.op("Div", {w.op("Sub", {in(w, b, 0), rem}, "multiple"), d.safe}, "quotient");
  zero_where_divisor_is_zero(w, b, d, q);
}

// Integers: ONNX's Mod (fmod=0) takes the divisor's sign, as floor_mod does. Floats: fmod (Mod
// with fmod=1, exact), then r + b where r is nonzero and its sign differs from b's.
void floor_mod(ModelWriter& w, const Binding& b) {
  if (is_float(compute_dtype(b))) {
    throw Unsupported("export of float floor_mod",
                      fmt::format("{}: its ONNX form (fmod, then a sign fix) has no exact import back", w.where));
  }
  const GuardedDivisor d = guarded(w, b);
  zero_where_divisor_is_zero(w, b, d, w.op("Mod", {in(w, b, 0), d.safe}, "rem"));
}

void not_equal(ModelWriter& w, const Binding& b) {
  const bool swap = w.form(2) == 1;
  w.node("Not", {w.op("Equal", {in(w, b, swap ? 1 : 0), in(w, b, swap ? 0 : 1)}, "equal")}, {out(w, b)});
}

// ONNX has no Atan2: atan(a / b), plus pi (with a's sign) where b < 0; where b is 0 (of either
// sign, so the quotient's infinity cannot pick the wrong side) +-pi/2 by a's sign, and 0 at the
// origin.
void atan2(ModelWriter& w, const Binding& b) {
  const DType dt = compute_dtype(b);
  const std::string &y = in(w, b, 0), &x = in(w, b, 1);
  const std::string zero = w.scalar(dt, 0);
  const std::string x_zero = w.op("Equal", {x, zero}, "x_zero");
  const std::string y_negative = w.op("Less", {y, zero}, "y_negative");
  const std::string safe_x = w.op("Where", {x_zero, w.scalar(dt, 1), x}, "safe_x");
  const std::string base = w.op("Atan", {w.op("Div", {y, safe_x}, "ratio")}, "atan");
  const std::string half_turn = w.op("Where", {y_negative, w.scalar(dt, -M_PI), w.scalar(dt, M_PI)}, "half_turn");
  const std::string turn = w.op("Where", {w.op("Less", {x, zero}, "x_negative"), half_turn, zero}, "turn");
  const std::string general = w.op("Add", {base, turn}, "angle");
  const std::string quarter = w.op("Where", {y_negative, w.scalar(dt, -M_PI / 2), w.scalar(dt, M_PI / 2)}, "quarter");
  const std::string on_y_axis =
      w.op("And", {x_zero, w.op("Not", {w.op("Equal", {y, zero}, "y_zero")}, "y_nonzero")}, "on_y_axis");
  w.node("Where", {on_y_axis, quarter, general}, {out(w, b)});
}

template <const char* kOnnx>
void reduce(ModelWriter& w, const Binding& b) {
  const std::vector<int64_t>& axes = b.attrs().get_ints("axes");
  const int64_t keep = b.attrs().get_bool("keepdims") ? 1 : 0;
  if (std::string(kOnnx) == "ReduceSum") {
    std::vector<std::string> args = {in(w, b, 0)};
    if (!axes.empty()) args.push_back(w.int64s(axes));
    set_attr(w.node(kOnnx, args, {out(w, b)}), "keepdims", keep);
    return;
  }
  ::onnx::NodeProto& n = w.node(kOnnx, {in(w, b, 0)}, {out(w, b)});
  if (!axes.empty()) set_attr(n, "axes", axes);
  set_attr(n, "keepdims", keep);
}
constexpr char kOnnxReduceSum[] = "ReduceSum", kOnnxReduceMean[] = "ReduceMean", kOnnxReduceProd[] = "ReduceProd",
               kOnnxReduceMax[] = "ReduceMax", kOnnxReduceMin[] = "ReduceMin";

template <const char* kOnnx>
void arg_reduce(ModelWriter& w, const Binding& b) {
  ::onnx::NodeProto& n = w.node(kOnnx, {in(w, b, 0)}, {out(w, b)});
  set_attr(n, "axis", b.attrs().get_int("axis"));
  set_attr(n, "keepdims", int64_t{b.attrs().get_bool("keepdims") ? 1 : 0});
}
constexpr char kOnnxArgMax[] = "ArgMax", kOnnxArgMin[] = "ArgMin";

// The last two dims swapped, for matmul's transpose flags.
std::string swapped(ModelWriter& w, const Value& v, const std::string& name) {
  std::vector<int64_t> perm(static_cast<size_t>(v.type().rank()));
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  ::onnx::NodeProto* n = nullptr;
  const std::string t = w.op("Transpose", {name}, name + "_t", &n);
  set_attr(*n, "perm", perm);
  return t;
}

void matmul(ModelWriter& w, const Binding& b) {
  const std::string a = b.attrs().get_bool("transpose_a") ? swapped(w, b.args()[0], in(w, b, 0)) : in(w, b, 0);
  const std::string c = b.attrs().get_bool("transpose_b") ? swapped(w, b.args()[1], in(w, b, 1)) : in(w, b, 1);
  w.node("MatMul", {a, c}, {out(w, b)});
}

void reshape(ModelWriter& w, const Binding& b) {
  w.node("Reshape", {in(w, b, 0), w.dims(b.result().type().shape)}, {out(w, b)});
}

void permute_dims(ModelWriter& w, const Binding& b) {
  ::onnx::NodeProto& n = w.node("Transpose", {in(w, b, 0)}, {out(w, b)});
  if (!b.attrs().get_ints("axes").empty()) set_attr(n, "perm", b.attrs().get_ints("axes"));
}

void broadcast_to(ModelWriter& w, const Binding& b) {
  w.node("Expand", {in(w, b, 0), w.dims(b.result().type().shape)}, {out(w, b)});
}

void concat(ModelWriter& w, const Binding& b) {
  std::vector<std::string> args;
  for (size_t i = 0; i < b.args().size(); ++i) args.push_back(in(w, b, i));
  set_attr(w.node("Concat", args, {out(w, b)}), "axis", b.attrs().get_int("axis"));
}

void split(ModelWriter& w, const Binding& b) {
  const int rank = b.args()[0].type().rank();
  int64_t axis = b.attrs().get_int("axis");
  if (axis < 0) axis += rank;
  std::vector<std::string> outs;
  std::vector<sym::Expr> sizes;
  for (const auto& r : b.results()) {
    outs.push_back(w.name_of(r));
    sizes.push_back(r.type().shape[static_cast<size_t>(axis)]);
  }
  set_attr(w.node("Split", {in(w, b, 0), w.dims(sizes)}, outs), "axis", axis);
}

void squeeze(ModelWriter& w, const Binding& b) {
  std::vector<int64_t> axes = b.attrs().get_ints("axes");
  if (axes.empty()) {
    const auto& shape = b.args()[0].type().shape;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i].is_const(1)) axes.push_back(static_cast<int64_t>(i));
    }
  }
  w.node("Squeeze", {in(w, b, 0), w.int64s(axes)}, {out(w, b)});
}

void expand_dims(ModelWriter& w, const Binding& b) {
  w.node("Unsqueeze", {in(w, b, 0), w.int64s({b.attrs().get_int("axis")})}, {out(w, b)});
}

void strided_slice(ModelWriter& w, const Binding& b) {
  std::vector<int64_t> strides = b.attrs().get_ints("strides");
  const std::vector<int64_t>& axes = b.attrs().get_ints("axes");
  if (strides.empty()) strides.assign(axes.size(), 1);
  w.node("Slice",
         {in(w, b, 0), w.dims(b.attrs().get_syms("begin")), w.dims(b.attrs().get_syms("end")), w.int64s(axes),
          w.int64s(strides)},
         {out(w, b)});
}

// take's "wrap" is floor modulo the dim: ONNX's Gather takes [-d, d) only, so Mod first; "clip"
// clamps with Max and Min (Clip's bounds would have to be constants). The dim may be symbolic:
// a scalar from the shapes, in the index dtype.
void take(ModelWriter& w, const Binding& b) {
  const Value& x = b.args()[0];
  const Value& idx = b.args()[1];
  int64_t axis = b.attrs().get_int("axis");
  if (axis < 0) axis += x.type().rank();
  const sym::Expr& d = x.type().shape[static_cast<size_t>(axis)];
  const DType it = idx.type().dtype;
  const auto index_scalar = [&](const sym::Expr& e) {
    if (e.is_const()) return w.scalar(it, static_cast<double>(e.value()));
    ::onnx::NodeProto* cast = nullptr;
    const std::string v = w.op("Cast", {scalar_dim(w, e)}, "dim_index", &cast);
    set_attr(*cast, "to", int64_t{onnx_dtype(it)});
    return v;
  };
  const std::string mapped = b.attrs().get_string("mode") == "wrap"
                                 ? w.op("Mod", {in(w, b, 1), index_scalar(d)}, "index")
                                 : w.op("Min",
                                        {w.op("Max", {in(w, b, 1), w.scalar(it, 0)}, "index_low"),
                                         index_scalar(sym::simplify(d - sym::Expr::constant(1)))},
                                        "index");
  set_attr(w.node("Gather", {in(w, b, 0), mapped}, {out(w, b)}), "axis", axis);
}

template <int64_t kUpper>
void triangle(ModelWriter& w, const Binding& b) {
  set_attr(w.node("Trilu", {in(w, b, 0), w.int64s({b.attrs().get_int("k")})}, {out(w, b)}), "upper", kUpper);
}

void full(ModelWriter& w, const Binding& b) {
  const DType dt = b.attrs().get_dtype("dtype");
  ::onnx::NodeProto& n = w.node("ConstantOfShape", {w.dims(b.result().type().shape)}, {out(w, b)});
  set_attr(n, "value", tensor_to_proto(Tensor::from_doubles(dt, {1}, {b.attrs().get_float("value")}), "value"));
}

template <int kValue>
void filled(ModelWriter& w, const Binding& b) {
  const DType dt = b.attrs().get_dtype("dtype");
  ::onnx::NodeProto& n = w.node("ConstantOfShape", {w.dims(b.result().type().shape)}, {out(w, b)});
  set_attr(n, "value", tensor_to_proto(Tensor::from_doubles(dt, {1}, {kValue}), "value"));
}

// Step 1 with constant head and tail lengths: Concat(x[:begin], src, x[end:]). Otherwise each
// position p of the axis takes src[(p - begin) / step] where it is on the slice's grid, else x
// (Gather + Where).
void slice_scatter(ModelWriter& w, const Binding& b) {
  const auto& shape = b.args()[0].type().shape;
  const int rank = static_cast<int>(shape.size());
  const int64_t axis = positive_axis(b.attrs().get_int("axis"), rank);
  const sym::Expr& extent = shape[static_cast<size_t>(axis)];
  // Python's bounds: a negative one counts from the end (and stops at 0).
  const auto from_end = [&extent](const sym::Expr& e) {
    return e.is_const() && e.value() < 0 ? sym::simplify(sym::max(sym::Expr::constant(0), extent + e)) : e;
  };
  const sym::Expr begin = from_end(b.attrs().get_sym("begin")), end = from_end(b.attrs().get_sym("end"));
  const int64_t step = b.attrs().get_int("step");
  // The Concat form needs to know whether the head and the tail are empty (ONNX takes empty
  // tensors, difftest's IR has no 0-sized dims to read them back into).
  const sym::Expr tail_length = sym::simplify(extent - end);
  if (step == 1 && begin.is_const() && tail_length.is_const()) {
    std::vector<std::string> parts;
    if (begin.value() > 0) parts.push_back(slice(w, in(w, b, 0), sym::Expr::constant(0), begin, axis, "head"));
    parts.push_back(in(w, b, 1));
    if (tail_length.value() > 0) parts.push_back(slice(w, in(w, b, 0), end, extent, axis, "tail"));
    set_attr(w.node("Concat", parts, {out(w, b)}), "axis", axis);
    return;
  }
  const std::string pos = w.op("Range", {scalar_dim(w, 0), scalar_dim(w, extent), scalar_dim(w, 1)}, "pos");
  const std::string from_begin = w.op("Sub", {pos, w.dims({begin})}, "from_begin");
  const std::string stride = w.int64s({step});
  const std::string on_grid =
      w.op("And",
           {w.op("And",
                 {w.op("GreaterOrEqual", {pos, w.dims({begin})}, "after_begin"),
                  w.op("Less", {pos, w.dims({end})}, "before_end")},
                 "in_slice"),
            w.op("Equal", {w.op("Mod", {from_begin, stride}, "phase"), w.int64s({0})}, "on_step")},
           "on_grid");
  // Off the grid the index is clipped into src (its value is not used).
  const sym::Expr count = b.args()[1].type().shape[static_cast<size_t>(axis)];
  const std::string index = w.op("Min",
                                 {w.op("Max", {w.op("Div", {from_begin, stride}, "k"), w.int64s({0})}, "k_low"),
                                  w.dims({sym::simplify(count - sym::Expr::constant(1))})},
                                 "k_clipped");
  ::onnx::NodeProto* g = nullptr;
  const std::string gathered = w.op("Gather", {in(w, b, 1), index}, "spread", &g);
  set_attr(*g, "axis", axis);
  std::vector<int64_t> trailing;
  for (int64_t a = 1; a < rank - axis; ++a) trailing.push_back(a);
  const std::string mask = trailing.empty() ? on_grid : w.op("Unsqueeze", {on_grid, w.int64s(trailing)}, "on_grid_b");
  w.node("Where", {mask, gathered, in(w, b, 0)}, {out(w, b)});
}

// start + i * step, in i64 then cast once to the dtype.
void arange(ModelWriter& w, const Binding& b) {
  const DType dt = b.attrs().get_dtype("dtype");
  const std::string step = scalar_dim(w, b.attrs().get_int("step"));
  const std::string range = w.op(
      "Range", {scalar_dim(w, b.attrs().get_sym("start")), scalar_dim(w, b.attrs().get_sym("end")), step}, "range");
  if (dt == DType::i64) {
    w.node("Identity", {range}, {out(w, b)});
  } else {
    set_attr(w.node("Cast", {range}, {out(w, b)}), "to", int64_t{onnx_dtype(dt)});
  }
}

// x @ w^T (+ bias, on either side of its Add), as exporters write nn.Linear.
void linear(ModelWriter& w, const Binding& b) {
  ::onnx::NodeProto* t = nullptr;
  const std::string wt = w.op("Transpose", {in(w, b, 1)}, "weight_t", &t);
  set_attr(*t, "perm", std::vector<int64_t>{1, 0});
  if (b.args().size() < 3) {
    w.node("MatMul", {in(w, b, 0), wt}, {out(w, b)});
    return;
  }
  const std::string xw = w.op("MatMul", {in(w, b, 0), wt}, "xw");
  w.form(2) ? w.node("Add", {in(w, b, 2), xw}, {out(w, b)}) : w.node("Add", {xw, in(w, b, 2)}, {out(w, b)});
}

// NumPy repeat along an axis: Unsqueeze after it, Expand that dim to `repeats`, Reshape merging.
void repeat(ModelWriter& w, const Binding& b) {
  const Value& x = b.args()[0];
  int64_t axis = b.attrs().get_int("axis");
  if (axis < 0) axis += x.type().rank();
  std::vector<sym::Expr> expanded = x.type().shape;
  expanded.insert(expanded.begin() + axis + 1, sym::Expr::constant(b.attrs().get_int("repeats")));
  const std::string u = w.op("Unsqueeze", {in(w, b, 0), w.int64s({axis + 1})}, "unsqueezed");
  const std::string e = w.op("Expand", {u, w.dims(expanded)}, "expanded");
  w.node("Reshape", {e, w.dims(b.result().type().shape)}, {out(w, b)});
}

}  // namespace

void register_elementwise_onnx_emitters(EmitterTable& t) {
  t.add("abs", same<kOnnxAbs>);
  t.add("add", commutative<kOnnxAdd>);
  t.add("atan2", atan2);
  t.add("cast", cast);
  t.add("clip", clip);
  t.add("cos", same<kOnnxCos>);
  t.add("div", same<kOnnxDiv>);
  t.add("equal", commutative<kOnnxEqual>);
  t.add("erf", same<kOnnxErf>);
  t.add("exp", same<kOnnxExp>);
  t.add("floor", same<kOnnxFloor>);
  t.add("floor_divide", floor_divide);
  t.add("floor_mod", floor_mod);
  t.add("gelu", gelu);
  t.add("greater", same<kOnnxGreater>);
  t.add("greater_equal", same<kOnnxGreaterEqual>);
  t.add("leaky_relu", leaky_relu);
  t.add("less", same<kOnnxLess>);
  t.add("less_equal", same<kOnnxLessEqual>);
  t.add("log", same<kOnnxLog>);
  t.add("logical_and", commutative<kOnnxAnd>);
  t.add("logical_not", same<kOnnxNot>);
  t.add("logical_or", commutative<kOnnxOr>);
  t.add("logical_xor", commutative<kOnnxXor>);
  t.add("maximum", commutative<kOnnxMax>);
  t.add("minimum", commutative<kOnnxMin>);
  t.add("mul", commutative<kOnnxMul>);
  t.add("neg", same<kOnnxNeg>);
  t.add("not_equal", not_equal);
  t.add("pow", same<kOnnxPow>);
  t.add("relu", same<kOnnxRelu>);
  t.add("round", same<kOnnxRound>);
  t.add("rsqrt", rsqrt);
  t.add("sigmoid", same<kOnnxSigmoid>);
  t.add("silu", silu);
  t.add("sin", same<kOnnxSin>);
  t.add("sqrt", same<kOnnxSqrt>);
  t.add("sub", same<kOnnxSub>);
  t.add("tanh", same<kOnnxTanh>);
  t.add("where", same<kOnnxWhere>);
}

void register_reduction_onnx_emitters(EmitterTable& t) {
  t.add("argmax", arg_reduce<kOnnxArgMax>);
  t.add("argmin", arg_reduce<kOnnxArgMin>);
  t.add("max", reduce<kOnnxReduceMax>);
  t.add("mean", reduce<kOnnxReduceMean>);
  t.add("min", reduce<kOnnxReduceMin>);
  t.add("prod", reduce<kOnnxReduceProd>);
  t.add("sum", reduce<kOnnxReduceSum>);
}

void register_linalg_onnx_emitters(EmitterTable& t) {
  t.add("linear", linear);
  t.add("matmul", matmul);
}

void register_shape_onnx_emitters(EmitterTable& t) {
  t.add("broadcast_to", broadcast_to);
  t.add("concat", concat);
  t.add("expand_dims", expand_dims);
  t.add("permute_dims", permute_dims);
  t.add("repeat", repeat);
  t.add("reshape", reshape);
  t.add("slice_scatter", slice_scatter);
  t.add("split", split);
  t.add("squeeze", squeeze);
  t.add("strided_slice", strided_slice);
  t.add("take", take);
  t.add("tril", triangle<0>);
  t.add("triu", triangle<1>);
}

void register_creation_onnx_emitters(EmitterTable& t) {
  t.add("arange", arange);
  t.add("full", full);
  t.add("ones", filled<1>);
  t.add("zeros", filled<0>);
}

const EmitterTable& emitters() {
  static const EmitterTable table = DIFFTEST_BUILD_OP_TABLE(EmitterTable, "ONNX export", onnx_emitters);
  return table;
}

}  // namespace difftest::interop
