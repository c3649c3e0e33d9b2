// Motifs: short chains of ops in the shapes ONNX exporters give a model's layers, so that an
// ONNX compiler's fusion matchers see the patterns they were written for — and their near
// misses: a linear layer's MatMul, bias Add (every shape that broadcasts, either operand order)
// and activation; a convolution with bias, residual and activation; a residual Add before a
// norm; a bias before a softmax. Each link is an ordinary call, so every shape, dtype and
// guard rule of the single-op recipes holds (a guard or squash the builder inserts breaks the
// chain as an exporter's extra node would).
#include "fuzz/motifs.h"

#include "fuzz/builder.h"

namespace difftest::fuzz {

namespace {

using Ops = std::vector<std::string>;

// An activation of `x` as exporters leave it after a linear or conv layer (nullopt: refused).
std::optional<Value> activation(Builder& g, const Value& x, const Ops& allowed) {
  ChoiceSource& c = g.choices();
  const std::string name = c.pick(allowed);
  AttrList attrs;
  if (name == "leaky_relu") attrs.emplace_back("alpha", c.pick(std::vector<double>{0.01, 0.1, 0.2}));
  if (name == "gelu" && c.chance(1, 3)) attrs.emplace_back("approximate", std::string("tanh"));
  if (name == "clip") {  // ReLU6 mostly; ORT fuses Clip with constant bounds into Conv
    const bool relu6 = c.chance(2, 3);
    attrs.emplace_back("min", relu6 ? 0.0 : -1.0);
    attrs.emplace_back("max", relu6 ? 6.0 : 1.0);
  }
  return g.apply(name, {x}, attrs);
}

// a + b or b + a.
std::optional<Value> add_either_way(Builder& g, const Value& a, const Value& b) {
  return g.choices().chance(1, 2) ? g.apply("add", {a, b}, {}) : g.apply("add", {b, a}, {});
}

// y = act(x @ W + bias), the weight dense or 4-bit (dequantize -> matmul, ORT's MatMulNBits),
// the input or the product sometimes scaled by a constant (attention's 1/sqrt(d), ORT's
// MatMulScaleFusion), the bias of any shape that broadcasts to the product.
bool linear_layer(Builder& g) {
  ChoiceSource& c = g.choices();
  const DType dt = g.float_dtype();
  const bool q4 = (dt == DType::f32 || dt == DType::f16) && c.chance(1, 4);
  const sym::Expr k = q4 ? sym::Expr(32 * c.range(1, 2)) : g.dim();
  std::vector<sym::Expr> xs = g.shape(static_cast<int>(c.range(0, 2)));
  xs.push_back(k);
  Value x = g.fresh(TensorType{dt, xs});
  if (c.chance(1, 4)) {
    // A divisor below 0.5 would get a guard (Builder::call), which breaks the chain.
    const bool divide = c.chance(1, 2);
    const double s = divide ? c.pick(std::vector<double>{0.5, 2.0, 8.0}) : c.pick(std::vector<double>{0.125, 0.5, 2.0});
    const auto scaled = g.apply(divide ? "div" : "mul", {x, g.scalar(dt, s)}, {});
    if (!scaled) return false;
    x = *scaled;
  }
  const sym::Expr n = g.dim();
  std::optional<Value> y;
  if (q4) {
    const int64_t groups = k.value() / 32;
    const auto w = g.apply(
        "dequantize", {g.packed_words(TensorType{DType::u32, {n, 4 * groups}}), g.fresh(TensorType{DType::f16, {n, groups}})},
        {{"format", std::string("q4f16_1")}, {"group", int64_t{32}}, {"dtype", dt}});
    if (!w) return false;
    y = g.apply("matmul", {x, *w}, {{"transpose_b", true}, {"acc", g.accumulator(dt)}});
  } else {
    const bool tb = c.chance(1, 3);
    Value w = g.fresh(TensorType{dt, tb ? std::vector<sym::Expr>{n, k} : std::vector<sym::Expr>{k, n}});
    y = g.apply("matmul", {x, w}, {{"transpose_b", tb}, {"acc", g.accumulator(dt)}});
  }
  if (!y) return false;
  // From here a link the builder refuses ends the chain; the layer's product is made.
  if (c.chance(1, 4)) {
    y = g.apply("mul", {*y, g.scalar(dt, c.pick(std::vector<double>{0.25, 0.35355339059327373, 3.0}))}, {});
    if (!y) return true;
  }
  if (c.chance(3, 4)) {
    y = add_either_way(g, *y, g.broadcast_partner(y->type().shape, dt));
    if (!y) return true;
  }
  if (c.chance(2, 3)) activation(g, *y, {"relu", "tanh", "sigmoid", "leaky_relu", "gelu", "silu", "clip"});
  return true;
}

// y = act(conv2d(x, W, b) + residual): the residual of the output's shape (ORT's
// ConvAddActivationFusion) or per channel; the weight a graph input or a constant.
bool conv_layer(Builder& g) {
  ChoiceSource& c = g.choices();
  const DType dt = g.float_dtype_for("conv2d");
  const int64_t cin = c.range(1, 4), cout = c.range(1, 6), kernel = c.pick(std::vector<int64_t>{1, 3, 3});
  const int64_t stride = c.chance(1, 4) ? 2 : 1;
  std::vector<Value> args = {g.fresh(TensorType{dt, {c.range(1, 2), cin, g.dim(), g.dim()}}),
                             g.fresh(TensorType{dt, {cout, cin, kernel, kernel}})};
  if (c.chance(3, 4)) args.push_back(g.fresh(TensorType{dt, {cout}}));
  std::optional<Value> y = g.apply("conv2d", args,
                                   {{"groups", int64_t{1}},
                                    {"acc", g.accumulator_for("conv2d", dt)},
                                    {"stride", std::vector<int64_t>{stride, stride}},
                                    {"padding", std::vector<int64_t>{kernel / 2, kernel / 2}},
                                    {"dilation", std::vector<int64_t>{1, 1}}});
  if (!y) return false;
  if (c.chance(1, 3)) {
    const std::vector<sym::Expr> per_channel = {sym::Expr(cout), sym::Expr(1), sym::Expr(1)};
    y = add_either_way(g, *y, g.fresh(TensorType{dt, c.chance(1, 2) ? y->type().shape : per_channel}));
    if (!y) return true;  // the conv is made; the chain ends here
  }
  if (c.chance(3, 4)) activation(g, *y, {"relu", "sigmoid", "tanh", "leaky_relu", "clip"});
  return true;
}

// norm(x + skip [+ bias]) over the last axis of a [batch, sequence, hidden] value, as a
// transformer block's residual writes it (ORT's SkipLayerNormFusion), eps of any size.
bool residual_norm(Builder& g) {
  ChoiceSource& c = g.choices();
  const DType dt = g.float_dtype();
  const sym::Expr h = c.chance(3, 4) ? sym::Expr(g.const_dim()) : g.dim();
  const std::vector<sym::Expr> shape = {g.dim(), g.dim(), h};
  const Value x = g.fresh(TensorType{dt, shape}), skip = g.fresh(TensorType{dt, shape});
  std::optional<Value> sum;
  if (h.is_const() && c.chance(1, 2)) {  // a bias on x or on skip first
    const Value bias = g.constant(TensorType{dt, {h}});
    const auto biased = add_either_way(g, x, bias);
    if (!biased) return false;
    sum = c.chance(1, 2) ? g.apply("add", {*biased, skip}, {}) : g.apply("add", {skip, *biased}, {});
  } else {
    sum = add_either_way(g, x, skip);
  }
  if (!sum) return false;
  const bool layer = c.chance(1, 2);
  std::vector<Value> args = {*sum, g.fresh(TensorType{dt, {h}})};
  AttrList attrs = {{"axis", int64_t{-1}},
                    {"eps", c.pick(std::vector<double>{1e-5, 1e-6, 1e-12, 1e-3, 0.1})},
                    {"acc", g.accumulator(dt)}};
  if (layer) {
    args.push_back(g.fresh(TensorType{dt, {h}}));
  } else {
    attrs.emplace_back("weight_offset", 0.0);
  }
  return g.call(layer ? "layer_norm" : "rms_norm", args, attrs);
}

// softmax(scores + mask) over the last axis, the mask of any shape that broadcasts.
bool masked_softmax(Builder& g) {
  const Value scores = g.float_operand(2);
  const auto masked = add_either_way(g, scores, g.broadcast_partner(scores.type().shape, scores.type().dtype));
  if (!masked) return false;
  return g.call("softmax", {*masked}, {{"axis", int64_t{-1}}, {"acc", g.accumulator(scores.type().dtype)}});
}

struct Motif {
  bool (*make)(Builder&);
  uint32_t weight;
  Ops ops;  // every op it may call, so that weight 0 for one of them rules the motif out
};

const std::vector<Motif>& motifs() {
  static const std::vector<Motif> all = {
      {linear_layer,
       4,
       {"matmul", "add", "mul", "div", "dequantize", "relu", "tanh", "sigmoid", "leaky_relu", "gelu", "silu", "clip"}},
      {conv_layer, 2, {"conv2d", "add", "relu", "sigmoid", "tanh", "leaky_relu", "clip"}},
      {residual_norm, 2, {"add", "layer_norm", "rms_norm"}},
      {masked_softmax, 1, {"add", "softmax"}},
  };
  return all;
}

}  // namespace

bool emit_motif(Builder& g) {
  std::vector<const Motif*> usable;
  std::vector<uint32_t> weights;
  for (const Motif& m : motifs()) {
    bool ok = true;
    for (const auto& op : m.ops) ok = ok && g.allowed(op);
    if (!ok) continue;
    usable.push_back(&m);
    weights.push_back(m.weight);
  }
  if (usable.empty()) return false;
  return usable[g.choices().weighted(weights)]->make(g);
}

}  // namespace difftest::fuzz
