#include "compiler/passes/decompose_ops.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <unordered_set>

#include "compiler/faults/faults.h"
#include "compiler/ir/visitor.h"
#include "compiler/ops/op.h"
#include "compiler/tensor/float_format.h"

namespace difftest::passes {

// Test faults of this file (docs/faults.md): off unless switched on.

const faults::Fault kDecomposeSoftcapDropped({
    .name = "decompose-softcap-dropped",
    .pass = "DecomposeOps",
    .description = "DecomposeOps writes attention without its logit soft-capping (softcap * tanh(s / softcap)), so "
        "the decomposed attention of O2/O3 uses the raw scores: an error of about s^3 / (3 softcap^2) in each "
        "score, small while the scores are small next to the cap; an attention path that silently ignores softcap",
    .models = "the Gemma-2/Grok soft-capping silently ignored by one attention path (sgl-project/sglang#33915; "
        "huggingface/transformers#31887 for SDPA)",
    .held_out = true,
});

const faults::Fault kDecomposeWindowOffByOne({
    .name = "decompose-window-off-by-one",
    .pass = "DecomposeOps",
    .description = "DecomposeOps builds the sliding-window mask of attention with window + 1, admitting one key too "
        "many per row: the Gemma-3/Mistral sliding-window off-by-one (q_pos - kv_pos <= window instead of <)",
    .models = "the Gemma-3/Mistral sliding-window off-by-one (`q_pos - kv_pos <= window` where the model means `<`)",
});

const faults::Fault kSoftmaxNoMaxSubtraction({
    .name = "softmax-no-max-subtraction",
    .pass = "DecomposeOps",
    .description = "DecomposeOps writes softmax (also inside attention) as exp(x) / sum(exp(x)) without subtracting "
        "the row maximum, so exp overflows to inf once a logit passes log(max) of the accumulator (88.7 in f32, "
        "11.1 in f16) and the row becomes NaN: the unstable softmax",
    .models = "the unstable softmax",
});

namespace {

using AttrList = std::vector<std::pair<std::string, AttrValue>>;

// Emits the primitive bindings that replace one composite call. Fresh values are named after
// the composite's result and the step ("%3_max"), which keeps printed IR readable and
// deterministic.
class Chain {
 public:
  Chain(const Program& p, const CompileContext& compile, std::unordered_set<std::string>& names, std::string base)
      : compile(compile), ranges_(p.ranges()), names_(names), base_(std::move(base)) {}

  const CompileContext& compile;

  Value call(const std::string& op_name, std::vector<Value> args, const AttrList& given = {},
             const std::string& step = "") {
    const OpDef* op = OpRegistry::get().find(op_name);
    DT_CHECK(op != nullptr, "DecomposeOps emits an unregistered op " + op_name);
    Attrs attrs = make_attrs(*op, given);
    std::vector<TensorType> in;
    for (const auto& a : args) in.push_back(a.type());
    std::vector<TensorType> types = infer_types(*op, in, attrs, ranges_);
    Value v = Value::make(fresh(step.empty() ? op_name : step), std::move(types.front()));
    out_.push_back(Binding::call({v}, op, std::move(args), std::move(attrs)));
    return v;
  }

  Value scalar(double x, DType t, const std::string& step) {
    ConstantInit init;
    init.float_values = {x};
    Value v = Value::make(fresh(step), TensorType{t, {}});
    out_.push_back(Binding::constant(v, std::move(init)));
    return v;
  }

  // Widening f16/bf16 -> f32 -> f64 is exact, so casting up adds no rounding.
  Value cast(const Value& v, DType t) {
    if (v.type().dtype == t) return v;
    return call("cast", {v}, {{"dtype", t}}, std::string("cast_") + dtype_name(t));
  }

  Value reduce(const std::string& op, const Value& v, int axis) {
    return call(op, {v}, {{"axes", std::vector<int64_t>{axis}}, {"keepdims", true}});
  }

  // The chain's last binding is re-emitted so that it defines `result` itself.
  std::vector<Binding> finish(const Value& last, const Value& result) {
    DT_CHECK(!out_.empty() && out_.back().is_call() && out_.back().result().same_as(last),
             "a decomposition must end in the op that defines its result");
    const Binding b = out_.back();
    out_.pop_back();
    names_.erase(last.name());
    out_.push_back(Binding::call({result}, &b.op(), b.args(), b.attrs(), b.loc()));
    return std::move(out_);
  }

 private:
  std::string fresh(const std::string& step) {
    std::string name = fmt::format("{}_{}", base_, step);
    for (int i = 2; names_.count(name); ++i) name = fmt::format("{}_{}{}", base_, step, i);
    names_.insert(name);
    return name;
  }

  sym::Ranges ranges_;
  std::unordered_set<std::string>& names_;
  std::string base_;
  std::vector<Binding> out_;
};

int norm_axis(int64_t axis, int rank) { return static_cast<int>(axis < 0 ? axis + rank : axis); }

DType acc_of(const Binding& b) {
  const auto acc = b.attrs().get_opt_dtype("acc");
  return acc ? *acc : b.args()[0].type().dtype;
}

double lowest_finite(DType t) {
  switch (t) {
    case DType::f16: return -f16_value(0x7BFF);
    case DType::bf16: return -bf16_value(0x7F7F);
    case DType::f32: return -3.4028234663852886e38;
    default: return -1.7976931348623157e308;
  }
}

// The reference's softmax: m = max, d = x - m, e = exp(d), s = sum(e), e / s (log: d - log s).
Value softmax_chain(Chain& c, const Value& x, int axis, bool log) {
  // Without the max subtracted, exp overflows once a logit passes the dtype's log(max).
  const bool skip_max = c.compile.fault(kSoftmaxNoMaxSubtraction);
  const Value d = skip_max ? x : c.call("sub", {x, c.reduce("max", x, axis)});
  const Value e = c.call("exp", {d});
  const Value s = c.reduce("sum", e, axis);
  if (!log) return c.call("div", {e, s});
  return c.call("sub", {d, c.call("log", {s})}, {}, "logsub");
}

Value softmax(Chain& c, const Binding& b, bool log) {
  const Value& x = b.args()[0];
  const int axis = norm_axis(b.attrs().get_int("axis"), x.type().rank());
  const Value y = softmax_chain(c, c.cast(x, acc_of(b)), axis, log);
  return c.cast(y, x.type().dtype);
}

// A per-position vector along `axis` of a rank-`rank` tensor, shaped to broadcast against it.
Value along_axis(Chain& c, const Value& v, int axis, int rank) {
  if (axis == rank - 1) return v;
  std::vector<sym::Expr> shape = {v.type().shape[0]};
  for (int i = axis + 1; i < rank; ++i) shape.push_back(sym::Expr(1));
  return c.call("reshape", {v}, {{"shape", shape}});
}

// rms_norm: x * rsqrt(mean(x^2) + eps) * (weight + offset); layer_norm: (x - mu) *
// rsqrt(mean((x - mu)^2) + eps) * gamma + beta. The same steps as the reference kernel.
Value axis_norm(Chain& c, const Binding& b, bool rms) {
  const Value& x = b.args()[0];
  const DType A = acc_of(b);
  const int rank = x.type().rank();
  const int axis = norm_axis(b.attrs().get_int("axis"), rank);
  const Value xa = c.cast(x, A);
  Value centered = xa;
  if (!rms) centered = c.call("sub", {xa, c.reduce("mean", xa, axis)}, {}, "center");
  const Value var = c.reduce("mean", c.call("mul", {centered, centered}, {}, "square"), axis);
  const Value v = c.call("add", {var, c.scalar(b.attrs().get_float("eps"), A, "eps")}, {}, "add_eps");
  const Value normed = c.call("mul", {centered, c.call("rsqrt", {v})}, {}, "normed");
  Value scale = c.cast(b.args()[1], A);
  if (rms && b.attrs().get_float("weight_offset") != 0) {
    scale = c.call("add", {scale, c.scalar(b.attrs().get_float("weight_offset"), A, "offset")}, {}, "add_offset");
  }
  Value y = c.call("mul", {normed, along_axis(c, scale, axis, rank)}, {}, "scaled");
  if (!rms) y = c.call("add", {y, along_axis(c, c.cast(b.args()[2], A), axis, rank)}, {}, "shifted");
  return c.cast(y, x.type().dtype);
}

// gelu is one libm-grade function, which the error model lets f16/bf16 compute in f32; a
// formula in f16 would round at every step, so it runs in f32 (f64 stays f64).
Value gelu(Chain& c, const Binding& b) {
  const Value& x = b.args()[0];
  const DType T = x.type().dtype;
  const DType C = T == DType::f64 ? DType::f64 : DType::f32;
  const Value xc = c.cast(x, C);
  Value inner;
  if (b.attrs().get_string("approximate") == "tanh") {
    Value cube = c.call("mul", {xc, c.scalar(0.044715, C, "coef")}, {}, "cube");
    cube = c.call("mul", {cube, xc}, {}, "cube");
    cube = c.call("mul", {cube, xc}, {}, "cube");
    const Value arg = c.call("add", {xc, cube}, {}, "poly");
    inner = c.call("tanh", {c.call("mul", {arg, c.scalar(std::sqrt(2 / M_PI), C, "k")}, {}, "arg")});
  } else {
    inner = c.call("erf", {c.call("div", {xc, c.scalar(std::sqrt(2.0), C, "sqrt2")}, {}, "arg")});
  }
  const Value half = c.call("mul", {xc, c.scalar(0.5, C, "half")}, {}, "halfx");
  const Value one_plus = c.call("add", {inner, c.scalar(1.0, C, "one")}, {}, "oneplus");
  return c.cast(c.call("mul", {half, one_plus}, {}, "gelu"), T);
}

// attention in BSNH layout. Heads move in front of the sequence dims so that both products are
// batched matmuls; with GQA the query heads split into [Hkv, G] and K/V broadcast over G.
std::optional<Value> attention(Chain& c, const Binding& b) {
  const Attrs& at = b.attrs();
  const Value &q = b.args()[0], &k = b.args()[1], &v = b.args()[2];
  const auto &qs = q.type().shape, &ks = k.type().shape, &vs = v.type().shape;
  double scale = at.get_float("scale");
  if (scale == 0) {
    if (!qs[3].is_const()) return std::nullopt;  // 1/sqrt(D) of a symbolic D is no constant
    scale = 1 / std::sqrt(static_cast<double>(qs[3].value()));
  }
  const DType A = acc_of(b);
  const int64_t hq = qs[2].value(), hkv = ks[2].value(), g = hq / hkv;
  const std::vector<int64_t> heads_first = {0, 2, 1, 3};
  Value qh = c.cast(q, A), kh = c.cast(k, A), vh = c.cast(v, A);
  if (g > 1) {
    qh = c.call("reshape", {qh}, {{"shape", std::vector<sym::Expr>{qs[0], qs[1], ks[2], sym::Expr(g), qs[3]}}});
    qh = c.call("permute_dims", {qh}, {{"axes", std::vector<int64_t>{0, 2, 3, 1, 4}}}, "q_heads");
  } else {
    qh = c.call("permute_dims", {qh}, {{"axes", heads_first}}, "q_heads");
  }
  kh = c.call("permute_dims", {kh}, {{"axes", heads_first}}, "k_heads");
  vh = c.call("permute_dims", {vh}, {{"axes", heads_first}}, "v_heads");
  if (g > 1) {
    kh = c.call("expand_dims", {kh}, {{"axis", int64_t{2}}}, "k_group");
    vh = c.call("expand_dims", {vh}, {{"axis", int64_t{2}}}, "v_group");
  }
  Value s = c.call("matmul", {qh, kh}, {{"transpose_b", true}}, "scores");
  s = c.call("mul", {s, c.scalar(scale, A, "scale")}, {}, "scaled");
  const double cap = at.get_float("softcap");
  if (cap > 0 && !c.compile.fault(kDecomposeSoftcapDropped)) {
    const Value capv = c.scalar(cap, A, "softcap");
    s = c.call("mul", {c.call("tanh", {c.call("div", {s, capv}, {}, "capped")}), capv}, {}, "capped");
  }
  // The admitted keys: the user mask and the causal/sliding-window rule of the op.
  std::optional<Value> mask;
  if (b.args().size() > 3) mask = b.args()[3];
  int64_t window = at.get_int("window");
  // Gemma-3/Mistral window bugs compare q_pos - kv_pos <= window where the model means <.
  if (window > 0 && c.compile.fault(kDecomposeWindowOffByOne)) window += 1;
  std::optional<Value> rule;
  if (window > 0) {
    rule = c.call("sliding_window_mask", {},
                  {{"q_len", qs[1]}, {"kv_len", ks[1]}, {"window", window}, {"sink", at.get_int("sink")},
                   {"offset", at.get_sym("offset")}});
  } else if (at.get_bool("causal")) {
    rule = c.call("causal_mask", {}, {{"q_len", qs[1]}, {"kv_len", ks[1]}, {"offset", at.get_sym("offset")}});
  }
  if (rule) mask = mask ? c.call("logical_and", {*mask, *rule}, {}, "mask") : *rule;
  // A hidden key gets the lowest finite score: exp(lowest - max) is exactly 0 for any row with
  // an admitted key, and no -inf - -inf NaN appears in a row without one; that row is then
  // zeroed, as the op defines it.
  if (mask) s = c.call("where", {*mask, s, c.scalar(lowest_finite(A), A, "hidden")}, {}, "masked");
  Value w = softmax_chain(c, s, s.type().rank() - 1, false);
  if (mask) w = c.call("where", {*mask, w, c.scalar(0.0, A, "zero")}, {}, "weights");
  Value o = c.call("matmul", {w, vh}, {}, "context");
  if (g > 1) {
    o = c.call("permute_dims", {o}, {{"axes", std::vector<int64_t>{0, 3, 1, 2, 4}}}, "seq_first");
    o = c.call("reshape", {o}, {{"shape", std::vector<sym::Expr>{qs[0], qs[1], qs[2], vs[3]}}});
  } else {
    o = c.call("permute_dims", {o}, {{"axes", heads_first}}, "seq_first");
  }
  return c.cast(o, q.type().dtype);
}

std::optional<Value> decompose(Chain& c, const Binding& b) {
  const std::string& op = b.op().name;
  if (op == "softmax" || op == "log_softmax") return softmax(c, b, op == "log_softmax");
  if (op == "rms_norm" || op == "layer_norm") return axis_norm(c, b, op == "rms_norm");
  if (op == "gelu") return gelu(c, b);
  if (op == "attention") return attention(c, b);
  return std::nullopt;
}

class Decomposer : public Mutator {
 public:
  Decomposer(const Program& p, const CompileContext& compile) : program_(p), compile_(compile) {}

 private:
  // A composite outside a fusion group becomes its chain of primitives, the last of which
  // defines the composite's own result.
  std::vector<Value> rewrite(const Binding& b) override {
    if (!b.is_call() || b.group() >= 0) return keep(b);
    Chain chain(program_, compile_, names(), b.results().front().name());
    const auto last = decompose(chain, b);
    if (!last) return keep(b);
    for (auto& nb : chain.finish(*last, b.result())) emit(std::move(nb));
    return b.results();
  }

  const Program& program_;
  const CompileContext& compile_;
};

}  // namespace

Program decompose_ops(const Program& p, const CompileContext& compile) { return Decomposer(p, compile).mutate(p); }

}  // namespace difftest::passes
