// Relax exporters: one handler per op with a Relax counterpart. Relax ops have no accumulator
// attribute, so `acc` wider than the operand dtype is written as casts around the op (or
// out_dtype where Relax has it): the same "sum in acc, round once" our semantics define.
#include <fmt/format.h>

#include <functional>

#include "compiler/support/diagnostics.h"
#include "compiler/sym/sym_simplify.h"
#include "compiler/ops/op.h"
#include "exporters/tvmscript/tvmscript.h"
#include "exporters/tvmscript/emit.h"

namespace difftest::exporters {

namespace {

// Each op's Relax counterpart ("" where there is none and a prim_func is written instead).
void add_all(RelaxOpTable& t, std::initializer_list<std::pair<const char*, const char*>> ops) {
  for (const auto& [op, relax] : ops) t.add(op, relax);
}

void register_elementwise_relax_ops(RelaxOpTable& t) {
  add_all(t, {{"exp", "R.exp"},
              {"log", "R.log"},
              {"sqrt", "R.sqrt"},
              {"rsqrt", "R.rsqrt"},
              {"tanh", "R.tanh"},
              {"sigmoid", "R.sigmoid"},
              {"silu", "R.nn.silu"},
              {"gelu", "R.nn.gelu"},
              {"erf", "R.erf"},
              {"sin", "R.sin"},
              {"cos", "R.cos"},
              {"floor", "R.floor"},
              {"round", "R.round"},
              {"neg", "R.negative"},
              {"abs", "R.abs"},
              {"relu", "R.nn.relu"},
              {"leaky_relu", "R.nn.leakyrelu"},
              {"clip", "R.clip"},
              {"add", "R.add"},
              {"sub", "R.subtract"},
              {"mul", "R.multiply"},
              {"div", "R.divide"},
              {"pow", "R.power"},
              {"maximum", "R.maximum"},
              {"minimum", "R.minimum"},
              {"floor_divide", "R.floor_divide"},
              {"floor_mod", "R.floor_mod"},
              {"atan2", ""},
              {"equal", "R.equal"},
              {"not_equal", "R.not_equal"},
              {"less", "R.less"},
              {"less_equal", "R.less_equal"},
              {"greater", "R.greater"},
              {"greater_equal", "R.greater_equal"},
              {"logical_and", "R.logical_and"},
              {"logical_or", "R.logical_or"},
              {"logical_xor", "R.logical_xor"},
              {"logical_not", "R.logical_not"},
              {"where", "R.where"},
              {"cast", "R.astype"}});
}

void register_reduction_relax_ops(RelaxOpTable& t) {
  add_all(t, {{"sum", "R.sum"},
              {"mean", "R.mean"},
              {"prod", "R.prod"},
              {"max", "R.max"},
              {"min", "R.min"},
              {"argmax", "R.argmax"},
              {"argmin", "R.argmin"}});
}

void register_linalg_relax_ops(RelaxOpTable& t) { add_all(t, {{"matmul", "R.matmul"}, {"linear", "R.linear"}}); }

void register_normalization_relax_ops(RelaxOpTable& t) {
  add_all(t, {{"softmax", "R.nn.softmax"},
              {"log_softmax", "R.nn.log_softmax"},
              {"rms_norm", "R.nn.rms_norm"},
              {"layer_norm", "R.nn.layer_norm"},
              {"group_norm", "R.nn.group_norm"},
              {"instance_norm", "R.nn.instance_norm"}});
}

void register_shape_relax_ops(RelaxOpTable& t) {
  add_all(t, {{"reshape", "R.reshape"},
              {"permute_dims", "R.permute_dims"},
              {"broadcast_to", "R.broadcast_to"},
              {"concat", "R.concat"},
              {"split", "R.split"},
              {"strided_slice", "R.strided_slice"},
              {"squeeze", "R.squeeze"},
              {"expand_dims", "R.expand_dims"},
              {"take", "R.take"},
              {"slice_scatter", "R.slice_scatter"},
              {"repeat", "R.repeat"},
              {"tril", "R.tril"},
              {"triu", "R.triu"}});
}

void register_creation_relax_ops(RelaxOpTable& t) {
  add_all(t, {{"arange", "R.arange"}, {"full", "R.full"}, {"zeros", "R.zeros"}, {"ones", "R.ones"}});
}

// Composed of Relax ops where the attributes allow (layer_ops.cc), else prim_funcs: R.nn.attention
// has no GQA, sinks, softcap or bool mask operand; masks and RoPE have no Relax op of their own.
void register_attention_relax_ops(RelaxOpTable& t) {
  add_all(t, {{"causal_mask", "R.less_equal"},
              {"sliding_window_mask", "R.less_equal"},
              {"attention", "R.nn.attention"},
              {"rope", "R.cos"}});
}

// The MLC and GGML 4-bit formats are not Relax's affine qdq: dequantize is composed of shifts and
// masks; quantize (max-abs scales, rounding, packing) stays a prim_func.
void register_quantization_relax_ops(RelaxOpTable& t) {
  add_all(t, {{"quantize", ""}, {"dequantize", "R.right_shift"}});
}

// Nearest upsampling by an integer factor along the last axis is exactly a repeat.
void register_conv_relax_ops(RelaxOpTable& t) {
  add_all(t, {{"conv1d", "R.nn.conv1d"},
              {"conv2d", "R.nn.conv2d"},
              {"conv_transpose1d", "R.nn.conv1d_transpose"},
              {"upsample_nearest1d", "R.repeat"}});
}

}  // namespace

const RelaxOpTable& relax_op_table() {
  static const RelaxOpTable table = DIFFTEST_BUILD_OP_TABLE(RelaxOpTable, "TVMScript Relax op", relax_ops);
  return table;
}

namespace tvmscript {

namespace {

using Handler = std::function<void(Emitter&, const Binding&, const std::string& op)>;

std::string arg(Emitter& e, const Binding& b, size_t i) { return e.name(b.args()[i]); }
DType in_dtype(const Binding& b, size_t i = 0) { return b.args()[i].type().dtype; }
DType out_dtype(const Binding& b) { return b.result().type().dtype; }
DType acc_of(const Binding& b) {
  return b.op().find_attr("acc") ? b.attrs().get_opt_dtype("acc").value_or(in_dtype(b)) : in_dtype(b);
}
std::string q(DType t) { return fmt::format("\"{}\"", tvm_dtype(t)); }
std::string py_bool(bool v) { return v ? "True" : "False"; }

// `result = expr` where expr computes in `acc`; rounds once to the result dtype when they differ.
void finish(Emitter& e, const Binding& b, const std::string& expr, DType acc) {
  const std::string& y = e.name(b.result());
  if (acc == out_dtype(b)) {
    e.line(fmt::format("{} = {}", y, expr));
    return;
  }
  const std::string t = e.fresh(y + "_acc");
  e.line(fmt::format("{} = {}", t, expr));
  e.line(fmt::format("{} = R.astype({}, {})", y, t, q(out_dtype(b))));
}

std::string axes_or_none(const std::vector<int64_t>& axes) { return axes.empty() ? "None" : py_ints(axes); }

// A scalar constant of dtype t, written so integer and bool dtypes get exact values.
std::string scalar_const(double v, DType t) {
  if (is_bool(t)) return fmt::format("R.const({}, \"bool\")", py_bool(v != 0));
  if (is_int(t)) return fmt::format("R.const({}, {})", static_cast<int64_t>(v), q(t));
  return fmt::format("R.const({}, {})", py_float(v), q(t));
}

std::string number_for(double v, DType t) { return is_float(t) ? py_float(v) : std::to_string(static_cast<int64_t>(v)); }

void unary(Emitter& e, const Binding& b, const std::string& op) {
  std::string extra;
  std::string fn = op;
  const std::string& name = b.op().name;
  if (name == "gelu" && b.attrs().get_string("approximate") == "tanh") fn = "R.nn.gelu_tanh";
  if (name == "leaky_relu") extra = ", alpha=" + py_float(b.attrs().get_float("alpha"));
  if (name == "clip") {
    const DType t = in_dtype(b);
    extra = fmt::format(", {}, {}", number_for(b.attrs().get_float("min"), t), number_for(b.attrs().get_float("max"), t));
  }
  if (name == "cast") extra = ", " + q(b.attrs().get_dtype("dtype"));
  e.line(fmt::format("{} = {}({}{})", e.name(b.result()), fn, arg(e, b, 0), extra));
}

void nary(Emitter& e, const Binding& b, const std::string& op) {
  std::string args;
  for (size_t i = 0; i < b.args().size(); ++i) args += (i ? ", " : "") + arg(e, b, i);
  e.line(fmt::format("{} = {}({})", e.name(b.result()), op, args));
}

void reduction(Emitter& e, const Binding& b, const std::string& op) {
  const std::string& name = b.op().name;
  if (name == "argmax" || name == "argmin") {
    e.line(fmt::format("{} = {}({}, axis={}, keepdims={})", e.name(b.result()), op, arg(e, b, 0),
                       b.attrs().get_int("axis"), py_bool(b.attrs().get_bool("keepdims"))));
    return;
  }
  const DType acc = acc_of(b);
  const std::string x = e.cast(arg(e, b, 0), in_dtype(b), acc);
  finish(e, b,
         fmt::format("{}({}, axis={}, keepdims={})", op, x, axes_or_none(b.attrs().get_ints("axes")),
                     py_bool(b.attrs().get_bool("keepdims"))),
         acc);
}

// The last two dims swapped, as a new local.
std::string swap_last_two(Emitter& e, const Value& v) {
  const int r = v.type().rank();
  std::vector<int64_t> axes;
  for (int i = 0; i < r - 2; ++i) axes.push_back(i);
  axes.push_back(r - 1);
  axes.push_back(r - 2);
  const std::string t = e.fresh(e.name(v) + "_t");
  e.line(fmt::format("{} = R.permute_dims({}, axes={})", t, e.name(v), py_ints(axes)));
  return t;
}

std::string out_dtype_kw(DType acc, DType dt) { return acc == dt ? "" : fmt::format(", out_dtype={}", q(acc)); }

void matmul(Emitter& e, const Binding& b, const std::string& op) {
  const std::string a = b.attrs().get_bool("transpose_a") ? swap_last_two(e, b.args()[0]) : arg(e, b, 0);
  const std::string w = b.attrs().get_bool("transpose_b") ? swap_last_two(e, b.args()[1]) : arg(e, b, 1);
  const DType acc = acc_of(b);
  finish(e, b, fmt::format("{}({}, {}{})", op, a, w, out_dtype_kw(acc, in_dtype(b))), acc);
}

// Adds the optional bias (operand 2) in acc, reshaped so it broadcasts along axis 1 of a rank-r
// result, then rounds once.
void add_bias_and_finish(Emitter& e, const Binding& b, const std::string& expr, DType acc, int channel_axis) {
  if (b.args().size() < 3) {
    finish(e, b, expr, acc);
    return;
  }
  const std::string& y = e.name(b.result());
  const std::string t = e.fresh(y + "_nobias");
  e.line(fmt::format("{} = {}", t, expr));
  std::string bias = e.cast(arg(e, b, 2), in_dtype(b, 2), acc);
  const int r = b.result().type().rank();
  if (channel_axis != r - 1) {
    std::vector<sym::Expr> shape(static_cast<size_t>(r), sym::Expr(1));
    shape[static_cast<size_t>(channel_axis)] = b.args()[2].type().shape[0];
    const std::string reshaped = e.fresh(e.name(b.args()[2]) + "_r");
    e.line(fmt::format("{} = R.reshape({}, {})", reshaped, bias, e.shape(shape)));
    bias = reshaped;
  }
  finish(e, b, fmt::format("R.add({}, {})", t, bias), acc);
}

void linear(Emitter& e, const Binding& b, const std::string& op) {
  const DType acc = acc_of(b);
  if (acc == in_dtype(b)) {
    nary(e, b, op);
    return;
  }
  // Relax's linear would add an operand-dtype bias to an acc-dtype product: spell it out.
  const std::string w = swap_last_two(e, b.args()[1]);
  add_bias_and_finish(e, b, fmt::format("R.matmul({}, {}, out_dtype={})", arg(e, b, 0), w, q(acc)), acc,
                      b.result().type().rank() - 1);
}

void softmax(Emitter& e, const Binding& b, const std::string& op) {
  const DType acc = acc_of(b);
  const std::string x = e.cast(arg(e, b, 0), in_dtype(b), acc);
  finish(e, b, fmt::format("{}({}, axis={})", op, x, b.attrs().get_int("axis")), acc);
}

std::vector<int64_t> spatial_axes(const Binding& b) {
  std::vector<int64_t> axes;
  for (int i = 2; i < b.args()[0].type().rank(); ++i) axes.push_back(i);
  return axes;
}

void norm(Emitter& e, const Binding& b, const std::string& op) {
  const std::string& name = b.op().name;
  const DType acc = acc_of(b);
  std::vector<std::string> xs;
  for (size_t i = 0; i < b.args().size(); ++i) xs.push_back(e.cast(arg(e, b, i), in_dtype(b, i), acc));
  const std::string eps = py_float(b.attrs().get_float("eps"));
  std::string expr;
  if (name == "rms_norm") {
    if (const double off = b.attrs().get_float("weight_offset"); off != 0) {
      const std::string w = e.fresh(e.name(b.args()[1]) + "_offset");
      e.line(fmt::format("{} = R.add({}, {})", w, xs[1], scalar_const(off, acc)));
      xs[1] = w;
    }
    expr = fmt::format("{}({}, {}, axes=[{}], epsilon={})", op, xs[0], xs[1], b.attrs().get_int("axis"), eps);
  } else if (name == "layer_norm") {
    expr = fmt::format("{}({}, {}, {}, axes=[{}], epsilon={})", op, xs[0], xs[1], xs[2], b.attrs().get_int("axis"), eps);
  } else if (name == "group_norm") {
    expr = fmt::format("{}({}, {}, {}, num_groups={}, channel_axis=1, axes={}, epsilon={})", op, xs[0], xs[1], xs[2],
                       b.attrs().get_int("num_groups"), py_ints(spatial_axes(b)), eps);
  } else {
    expr = fmt::format("{}({}, {}, {}, channel_axis=1, axes={}, epsilon={})", op, xs[0], xs[1], xs[2],
                       py_ints(spatial_axes(b)), eps);
  }
  finish(e, b, expr, acc);
}

std::string dims_list(Emitter& e, const std::vector<sym::Expr>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + e.dim(dims[i]);
  return out + "]";
}

void shape_op(Emitter& e, const Binding& b, const std::string& op) {
  const std::string& name = b.op().name;
  const Attrs& a = b.attrs();
  const std::string x = arg(e, b, 0), y = e.name(b.result());
  if (name == "reshape" || name == "broadcast_to") {
    e.line(fmt::format("{} = {}({}, {})", y, op, x, e.shape(a.get_syms("shape"))));
  } else if (name == "permute_dims") {
    const auto& axes = a.get_ints("axes");
    e.line(axes.empty() ? fmt::format("{} = {}({})", y, op, x) : fmt::format("{} = {}({}, axes={})", y, op, x, py_ints(axes)));
  } else if (name == "concat") {
    std::string parts;
    for (size_t i = 0; i < b.args().size(); ++i) parts += arg(e, b, i) + ", ";
    e.line(fmt::format("{} = {}(({}), axis={})", y, op, parts.substr(0, parts.size() - (b.args().size() > 1 ? 2 : 1)),
                       a.get_int("axis")));
  } else if (name == "strided_slice") {
    std::string strides = a.get_ints("strides").empty() ? "" : ", strides=" + py_ints(a.get_ints("strides"));
    e.line(fmt::format("{} = {}({}, axes={}, begin={}, end={}{})", y, op, x, py_ints(a.get_ints("axes")),
                       dims_list(e, a.get_syms("begin")), dims_list(e, a.get_syms("end")), strides));
  } else if (name == "squeeze") {
    // No axes means the dims that are the constant 1: written out, since Relax's axis=None would
    // also squeeze a symbolic dim that is 1 at run time (its result's rank unknown, and TVM 0.27
    // does not legalize it).
    std::vector<int64_t> axes = a.get_ints("axes");
    if (axes.empty()) {
      const TensorType& t = b.args()[0].type();
      for (size_t i = 0; i < t.shape.size(); ++i) {
        if (t.shape[i].is_const() && t.shape[i].value() == 1) axes.push_back(static_cast<int64_t>(i));
      }
    }
    e.line(fmt::format("{} = {}({}, axis={})", y, op, x, py_ints(axes)));
  } else if (name == "expand_dims") {
    e.line(fmt::format("{} = {}({}, axis={})", y, op, x, a.get_int("axis")));
  } else if (name == "take") {
    e.line(fmt::format("{} = {}({}, {}, axis={}, mode=\"{}\")", y, op, x, arg(e, b, 1), a.get_int("axis"),
                       a.get_string("mode")));
  } else if (name == "slice_scatter") {
    // R.slice_scatter takes 0 <= begin <= end <= the axis: the bounds normalized as docs/ops.md's
    // strided_slice rules say (a constant negative one counts from the end, then clamped; step >= 1
    // here), simplified over the dims' ranges as the op's shape rule simplifies them.
    const TensorType& t = b.args()[0].type();
    const int64_t rank = static_cast<int64_t>(t.rank());
    const int64_t axis = a.get_int("axis") < 0 ? a.get_int("axis") + rank : a.get_int("axis");
    const sym::Expr& d = t.shape.at(static_cast<size_t>(axis));
    const sym::Ranges ranges = e.program().ranges();
    const auto bound = [&](const sym::Expr& v) {
      return sym::simplify(v.is_const() && v.value() < 0 ? sym::max(d + v, 0) : sym::min(v, d), ranges);
    };
    e.line(fmt::format("{} = {}({}, {}, {}, {}, {}, axis={})", y, op, x, arg(e, b, 1), e.dim(bound(a.get_sym("begin"))),
                       e.dim(bound(a.get_sym("end"))), a.get_int("step"), axis));
  } else if (name == "repeat") {
    e.line(fmt::format("{} = {}({}, repeats={}, axis={})", y, op, x, a.get_int("repeats"), a.get_int("axis")));
  } else if (name == "upsample_nearest1d") {
    e.line(fmt::format("{} = {}({}, repeats={}, axis=2)", y, op, x, a.get_int("scale")));
  } else {  // tril, triu
    e.line(fmt::format("{} = {}({}, k={})", y, op, x, a.get_int("k")));
  }
}

void split(Emitter& e, const Binding& b, const std::string& op) {
  const Attrs& a = b.attrs();
  const int64_t sections = a.get_int("sections");
  const std::string parts = sections != 0 ? std::to_string(sections) : py_ints(a.get_ints("indices"));
  if (b.results().size() == 1) {
    // One part is the operand itself; R.split of one section answers a tensor, not a tuple.
    e.line(fmt::format("{} = {}", e.name(b.results()[0]), arg(e, b, 0)));
    return;
  }
  const std::string t = e.fresh(e.name(b.results()[0]) + "_parts");
  e.line(fmt::format("{} = {}({}, indices_or_sections={}, axis={})", t, op, arg(e, b, 0), parts, a.get_int("axis")));
  for (size_t i = 0; i < b.results().size(); ++i) e.line(fmt::format("{} = {}[{}]", e.name(b.results()[i]), t, i));
}

void creation(Emitter& e, const Binding& b, const std::string& op) {
  const std::string& name = b.op().name;
  const Attrs& a = b.attrs();
  const std::string y = e.name(b.result());
  const DType t = out_dtype(b);
  if (name == "arange") {
    e.line(fmt::format("{} = {}({}, {}, {}, dtype={})", y, op, e.dim(a.get_sym("start")), e.dim(a.get_sym("end")),
                       a.get_int("step"), q(t)));
  } else if (name == "full") {
    e.line(fmt::format("{} = {}({}, {}, dtype={})", y, op, e.shape(a.get_syms("shape")),
                       scalar_const(a.get_float("value"), t), q(t)));
  } else {
    e.line(fmt::format("{} = {}({}, dtype={})", y, op, e.shape(a.get_syms("shape")), q(t)));
  }
}

void conv(Emitter& e, const Binding& b, const std::string& op) {
  const std::string& name = b.op().name;
  const Attrs& a = b.attrs();
  const DType acc = acc_of(b);
  auto list_or_int = [&](const char* attr) {
    return name == "conv2d" ? py_ints(a.get_ints(attr)) : std::to_string(a.get_int(attr));
  };
  std::string kw = fmt::format("strides={}, padding={}", list_or_int("stride"), list_or_int("padding"));
  if (name == "conv_transpose1d") kw += fmt::format(", output_padding={}", a.get_int("output_padding"));
  kw += fmt::format(", dilation={}, groups={}", list_or_int("dilation"), a.get_int("groups"));
  add_bias_and_finish(e, b, fmt::format("{}({}, {}, {}{})", op, arg(e, b, 0), arg(e, b, 1), kw, out_dtype_kw(acc, in_dtype(b))),
                      acc, 1);
}

const std::map<std::string, Handler>& handlers() {
  static const std::map<std::string, Handler> table = [] {
    std::map<std::string, Handler> h;
    for (const char* op : {"exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "silu", "gelu", "erf", "sin", "cos", "floor",
                           "round", "neg", "abs", "relu", "leaky_relu", "clip", "logical_not", "cast"}) {
      h[op] = unary;
    }
    for (const char* op : {"add", "sub", "mul", "div", "pow", "maximum", "minimum", "floor_divide", "floor_mod", "equal",
                           "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
                           "logical_xor", "where"}) {
      h[op] = nary;
    }
    for (const char* op : {"sum", "mean", "prod", "max", "min", "argmax", "argmin"}) h[op] = reduction;
    h["matmul"] = matmul;
    h["linear"] = linear;
    h["softmax"] = h["log_softmax"] = softmax;
    for (const char* op : {"rms_norm", "layer_norm", "group_norm", "instance_norm"}) h[op] = norm;
    for (const char* op : {"reshape", "permute_dims", "broadcast_to", "concat", "strided_slice", "squeeze",
                           "expand_dims", "take", "slice_scatter", "repeat", "tril", "triu", "upsample_nearest1d"}) {
      h[op] = shape_op;
    }
    h["split"] = split;
    for (const char* op : {"arange", "full", "zeros", "ones"}) h[op] = creation;
    for (const char* op : {"conv1d", "conv2d", "conv_transpose1d"}) h[op] = conv;
    return h;
  }();
  return table;
}

}  // namespace

void emit_call(Emitter& e, const Binding& b) {
  const std::string& name = b.op().name;
  if (relax_layer_ops().count(name) && emit_relax_layer_op(e, b)) return;
  if (prim_func_ops().count(name)) {
    emit_prim_func_call(e, b);
    return;
  }
  const std::string* relax = relax_op_table().find(name);
  const auto handler = handlers().find(name);
  if (!relax || relax->empty() || handler == handlers().end()) {
    throw InternalError(fmt::format("TVMScript export: no exporter for op '{}'", name));
  }
  handler->second(e, b, *relax);
}

}  // namespace tvmscript
}  // namespace difftest::exporters
