#include "fuzz/templates.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "compiler/support/diagnostics.h"
#include "compiler/ops/op.h"

namespace difftest {

namespace {

using AttrList = std::vector<std::pair<std::string, AttrValue>>;

constexpr int kMaxSizeShift = 12;

// The program under construction. Result types come from each op's own inference, so a
// template states only operands and attributes and cannot disagree with the verifier.
class Net {
 public:
  explicit Net(ChoiceSource& c) : c_(c) {}

  ChoiceSource& c() { return c_; }

  sym::Expr dim(const std::string& name, int64_t lo, int64_t hi) {
    dims_.push_back(DimVar{name, sym::Range{lo, hi}});
    ranges_[name] = sym::Range{lo, hi};
    return sym::Expr::var(name);
  }

  Value param(const std::string& name, DType dt, std::vector<sym::Expr> shape) {
    Value v = Value::make(name, TensorType{dt, std::move(shape)});
    bindings_.push_back(Binding::param(v));
    return v;
  }

  Value constant(const std::string& name, DType dt, std::vector<sym::Expr> shape, ConstantInit init) {
    Value v = Value::make(name, TensorType{dt, std::move(shape)});
    bindings_.push_back(Binding::constant(v, std::move(init)));
    return v;
  }

  Value normal(const std::string& name, DType dt, std::vector<sym::Expr> shape, double mean, double std) {
    ConstantInit init;
    init.kind = ConstantInit::Kind::Normal;
    init.p0 = mean;
    init.p1 = std;
    init.seed = c_.below(1000);
    return constant(name, dt, std::move(shape), std::move(init));
  }

  Value scalar(const std::string& name, DType dt, double value) {
    ConstantInit init;
    init.float_values = {value};
    return constant(name, dt, {}, std::move(init));
  }

  Value call(const std::string& name, const std::string& op, std::vector<Value> args, const AttrList& attrs) {
    return calls({name}, op, std::move(args), attrs).front();
  }

  std::vector<Value> calls(const std::vector<std::string>& names, const std::string& op, std::vector<Value> args,
                           const AttrList& attrs) {
    const OpDef* def = OpRegistry::get().find(op);
    DT_CHECK(def != nullptr, fmt::format("template uses unknown op {}", op));
    try {
      AttrList given;  // an absent optional attribute (acc of an f32 op) is left out
      for (const auto& item : attrs) {
        if (!std::holds_alternative<std::monostate>(item.second)) given.push_back(item);
      }
      Attrs a = make_attrs(*def, given);
      std::vector<TensorType> in;
      for (const auto& v : args) in.push_back(v.type());
      std::vector<TensorType> types = infer_types(*def, in, a, ranges_);
      DT_CHECK(types.size() == names.size(), fmt::format("template names {} results of {}", names.size(), op));
      std::vector<Value> results;
      for (size_t i = 0; i < types.size(); ++i) results.push_back(Value::make(names[i], std::move(types[i])));
      bindings_.push_back(Binding::call(results, def, std::move(args), std::move(a)));
      return results;
    } catch (const UserError& e) {
      // A template is fixed code: an op rejecting it is a bug here, not bad input.
      throw InternalError(
          fmt::format("template binding %{} = {}(...) is ill-formed: {}", names.front(), op, e.what()));
    }
  }

  Program finish(const std::string& name, const std::vector<Value>& outputs) {
    return Program::make(name, dims_, bindings_, outputs);
  }

 private:
  ChoiceSource& c_;
  std::vector<DimVar> dims_;
  sym::Ranges ranges_;
  std::vector<Binding> bindings_;
};

int64_t scaled(int64_t full, int shift, int64_t floor) { return std::max(floor, full >> shift); }

// 2^-e nearest to 1/sqrt(fan_in) (ties to the smaller): a trained layer's weight spread, exact
// in every dtype and printed short. Integer arithmetic only, since libm's log2 could round a
// tie such as fan_in = 32 either way on another machine.
double init_std(int64_t fan_in) {
  int e = 0;
  while (e < 30 && (int64_t{2} << (2 * e)) <= fan_in) ++e;  // 4^e ~ fan_in within a factor 2
  return std::ldexp(1.0, -e);
}

// f16/bf16 sums are carried in f32, as deployments do; f32 keeps its own accumulator.
AttrValue acc_for(DType act) { return act == DType::f32 ? AttrValue{} : AttrValue{DType::f32}; }

// x @ w^T through either spelling the frontends produce.
Value dense(Net& net, const std::string& out, const Value& x, const Value& w, DType act) {
  if (net.c().chance(1, 2)) return net.call(out, "linear", {x, w}, {{"acc", acc_for(act)}});
  return net.call(out, "matmul", {x, w}, {{"transpose_b", true}, {"acc", acc_for(act)}});
}

// A q4f16_1 projection: packed codes and f16 scales (params, so reference::generate_inputs
// fills them with real quantized weights) decoded by dequantize and fed to linear/matmul.
// MLC quantizes in groups of 32; a scaled-down width that is not a multiple of 32 takes a
// partial last group (the `k` attribute) or groups of 8, both of which the op accepts.
Value q4_project(Net& net, const std::string& w, const std::string& out, const Value& x, int64_t n_out, DType act) {
  const int64_t k = x.type().shape.back().value();
  int64_t group = 32;
  bool partial = k % 32 != 0;
  if (partial && net.c().chance(1, 2)) {
    group = 8;
    partial = k % 8 != 0;
  }
  const int64_t groups = (k + group - 1) / group;
  Value packed = net.param(w + "_packed", DType::u32, {n_out, groups * group / 8});
  Value scales = net.param(w + "_scales", DType::f16, {n_out, groups});
  AttrList attrs = {{"format", std::string("q4f16_1")}, {"group", group}};
  if (partial) attrs.emplace_back("k", sym::Expr(k));
  if (act != DType::f16) attrs.emplace_back("dtype", act);
  return dense(net, out, x, net.call(w, "dequantize", {packed, scales}, attrs), act);
}

// ------------------------------------------------------------------------------ gemma3-layer

Program gemma3_layer(ChoiceSource& c, int shift) {
  Net net(c);
  // One layer in six is global in the real model; drawing the kind first gives the rarer
  // global layer a fair share of programs.
  const bool global = c.chance(1, 3);
  std::vector<int64_t> layers;
  for (int64_t i = 0; i < 18; ++i) {
    if (((i + 1) % 6 == 0) == global) layers.push_back(i);
  }
  const int64_t layer = c.pick(layers);
  const DType act = c.chance(1, 2) ? DType::f16 : DType::f32;

  const int64_t hidden = scaled(640, shift, 2), head_dim = scaled(256, shift, 2);
  const int64_t intermediate = scaled(2048, shift, 2);
  const int64_t q_heads = 4, kv_heads = 1;
  const int64_t window = scaled(512, shift, 2);
  const double theta = global ? 1e6 : 1e4;

  // n reaches past the window, so a local layer differs from a global one at n's maximum.
  const sym::Expr n = net.dim("n", 1, window + c.range(1, window));
  const bool cache = c.chance(1, 3);
  const sym::Expr offset = cache ? net.dim("kv", 1, window) : sym::Expr(0);
  const bool learned_norms = c.chance(1, 2);
  const AttrValue acc = acc_for(act);

  // Gemma3RMSNorm: x / rms(x) * (1 + w), eps 1e-6. `gain` is the (1 + w) a constant weight
  // centres on. Only the input norm may be a param: generated params make (1 + w) anything in
  // [-1, 3], and on q and k that sharpens the scores until the f16 attention bounds are vacuous.
  auto rms_norm = [&](const std::string& name, const Value& x, double gain, bool learned) {
    const sym::Expr width = x.type().shape.back();
    Value w = learned ? net.param(name + "_w", act, {width})
                      : net.normal(name + "_w", act, {width}, gain - 1, gain / 32);
    return net.call(name, "rms_norm", {x, w}, {{"eps", 1e-6}, {"weight_offset", 1.0}, {"acc", acc}});
  };
  // Generated inputs give f16 bounds that are sound but compound at every op (the quadrature
  // factor), and a norm of a vacuously bounded value has bounds up to 1/sqrt(eps) times the
  // value: past f16's range two ops later, an invalid program. Three gains keep the layer
  // checkable. The q/k norms halve q and k, so the scores (and their bounds) shrink fourfold.
  // The post-norms scale each branch to 1/32 of the residual stream, which dominates a layer's
  // update as in a trained model; the pre-MLP norm then sees a well-bounded input and, at 1/8,
  // most f16 outputs beyond n = 1 were uncertain, at 1/32 almost none are.
  const double qk_gain = 0.5, branch_gain = 0.03125;
  // The generated weights spread like +-2, not like a trained layer's 1/sqrt(K); the pre-MLP
  // norm takes the missing 1/sqrt(hidden) so that gate and up stay O(1), where the tanh GELU
  // is curved and gate * up cannot grow like hidden^2.
  const double mlp_gain = init_std(hidden);

  Value x = net.param("x", act, {1, n, hidden});
  Value h = rms_norm("input_norm", x, 1, learned_norms);
  Value q = q4_project(net, "wq", "q", h, q_heads * head_dim, act);
  Value k = q4_project(net, "wk", "k", h, kv_heads * head_dim, act);
  Value v = q4_project(net, "wv", "v", h, kv_heads * head_dim, act);
  Value q_heads_v = net.call("q_heads", "reshape", {q}, {{"shape", std::vector<sym::Expr>{1, n, q_heads, head_dim}}});
  Value k_heads = net.call("k_heads", "reshape", {k}, {{"shape", std::vector<sym::Expr>{1, n, kv_heads, head_dim}}});
  Value v_heads = net.call("v_heads", "reshape", {v}, {{"shape", std::vector<sym::Expr>{1, n, kv_heads, head_dim}}});
  Value q_norm = rms_norm("q_norm", q_heads_v, qk_gain, false);
  Value k_norm = rms_norm("k_norm", k_heads, qk_gain, false);
  Value q_rope = net.call("q_rope", "rope", {q_norm}, {{"theta", theta}, {"offset", offset}});
  Value k_rope = net.call("k_rope", "rope", {k_norm}, {{"theta", theta}, {"offset", offset}});
  Value keys = k_rope, values = v_heads;
  if (cache) {
    // The cache holds keys after their norm and RoPE, as Gemma's KV cache does.
    Value k_cache = net.param("k_cache", act, {1, offset, kv_heads, head_dim});
    Value v_cache = net.param("v_cache", act, {1, offset, kv_heads, head_dim});
    keys = net.call("k_all", "concat", {k_cache, k_rope}, {{"axis", int64_t{1}}});
    values = net.call("v_all", "concat", {v_cache, v_heads}, {{"axis", int64_t{1}}});
  }
  // query_pre_attn_scalar is 256 in Gemma-3-270m: the scale stays 1/16 at every size.
  AttrList attn = {{"scale", 0.0625}, {"causal", true}, {"offset", offset}, {"acc", acc}};
  if (!global) attn.emplace_back("window", window);
  Value o = net.call("attn", "attention", {q_rope, keys, values}, attn);
  Value o_flat = net.call("attn_flat", "reshape", {o}, {{"shape", std::vector<sym::Expr>{1, n, q_heads * head_dim}}});
  Value o_proj = q4_project(net, "wo", "attn_out", o_flat, hidden, act);
  Value h1 = net.call("h_attn", "add", {x, rms_norm("post_attn_norm", o_proj, branch_gain, false)}, {});

  Value pre = rms_norm("pre_mlp_norm", h1, mlp_gain, false);
  Value gate = q4_project(net, "w_gate", "gate", pre, intermediate, act);
  Value up = q4_project(net, "w_up", "up", pre, intermediate, act);
  Value gelu = net.call("gate_gelu", "gelu", {gate}, {{"approximate", std::string("tanh")}});
  Value geglu = net.call("geglu", "mul", {gelu, up}, {});
  Value down = q4_project(net, "w_down", "mlp_out", geglu, hidden, act);
  Value out = net.call("out", "add", {h1, rms_norm("post_mlp_norm", down, branch_gain, false)}, {});
  return net.finish(fmt::format("gemma3_layer{}", layer), {out});
}

// ------------------------------------------------------------------------------- mistral-swa

Program mistral_swa(ChoiceSource& c, int shift) {
  Net net(c);
  // f32 is favoured because f16/bf16 bounds through four chained sums are loose (the tolerance
  // compounds inherited errors at every sum); the half-precision variants still check
  // lowering and masks, whose bugs move outputs by far more.
  const std::vector<DType> dtypes = {DType::f32, DType::f16, DType::bf16};
  const DType dt = dtypes[c.weighted({2, 1, 1})];
  const int64_t q_heads = 4, kv_heads = c.range(1, 2);
  const int64_t head_dim = scaled(128, shift, 2) * c.range(1, 2);
  const int64_t hidden = q_heads * head_dim;
  const int64_t window = c.pick(std::vector<int64_t>{4, 8, 16});
  const int64_t sink = c.range(1, 3);
  const double theta = c.chance(1, 2) ? 1e4 : 1e6;  // Mistral 7B v0.1 / v0.2 and later
  const sym::Expr n = net.dim("n", 1, window + c.range(1, 2 * window));
  const bool cache = c.chance(1, 3);
  const sym::Expr offset = cache ? net.dim("kv", 1, 2 * window) : sym::Expr(0);
  const bool explicit_mask = c.chance(1, 2);
  const bool learned = c.chance(1, 2);
  const AttrValue acc = acc_for(dt);

  auto weight = [&](const std::string& name, int64_t rows, int64_t cols) {
    return learned ? net.param(name, dt, {rows, cols}) : net.normal(name, dt, {rows, cols}, 0, init_std(cols));
  };

  Value x = net.param("x", dt, {1, n, hidden});
  Value norm_w = learned ? net.param("input_norm_w", dt, {hidden})
                         : net.normal("input_norm_w", dt, {hidden}, 1, 0.0625);
  Value h = net.call("input_norm", "rms_norm", {x, norm_w}, {{"eps", 1e-5}, {"acc", acc}});
  Value q = net.call("q", "linear", {h, weight("wq", q_heads * head_dim, hidden)}, {{"acc", acc}});
  Value k = net.call("k", "linear", {h, weight("wk", kv_heads * head_dim, hidden)}, {{"acc", acc}});
  Value v = net.call("v", "linear", {h, weight("wv", kv_heads * head_dim, hidden)}, {{"acc", acc}});
  auto heads = [&](const std::string& name, const Value& t, int64_t count) {
    return net.call(name, "reshape", {t}, {{"shape", std::vector<sym::Expr>{1, n, count, head_dim}}});
  };
  Value q_rope = net.call("q_rope", "rope", {heads("q_heads", q, q_heads)}, {{"theta", theta}, {"offset", offset}});
  Value k_rope = net.call("k_rope", "rope", {heads("k_heads", k, kv_heads)}, {{"theta", theta}, {"offset", offset}});
  Value keys = k_rope, values = heads("v_heads", v, kv_heads);
  if (cache) {
    Value k_cache = net.param("k_cache", dt, {1, offset, kv_heads, head_dim});
    Value v_cache = net.param("v_cache", dt, {1, offset, kv_heads, head_dim});
    keys = net.call("k_all", "concat", {k_cache, keys}, {{"axis", int64_t{1}}});
    values = net.call("v_all", "concat", {v_cache, values}, {{"axis", int64_t{1}}});
  }
  Value o;
  if (explicit_mask) {
    // The mask alone decides visibility here, causality included.
    Value mask = net.call("swa_mask", "sliding_window_mask", {},
                          {{"q_len", n}, {"kv_len", keys.type().shape[1]}, {"window", window}, {"sink", sink},
                           {"offset", offset}});
    o = net.call("attn", "attention", {q_rope, keys, values, mask}, {{"acc", acc}});
  } else {
    o = net.call("attn", "attention", {q_rope, keys, values},
                 {{"causal", true}, {"window", window}, {"sink", sink}, {"offset", offset}, {"acc", acc}});
  }
  Value o_flat = net.call("attn_flat", "reshape", {o}, {{"shape", std::vector<sym::Expr>{1, n, hidden}}});
  Value proj = net.call("attn_out", "linear", {o_flat, weight("wo", hidden, hidden)}, {{"acc", acc}});
  Value out = net.call("out", "add", {x, proj}, {});
  return net.finish("mistral_swa", {out});
}

// ------------------------------------------------------------------------------- kokoro-conv

Program kokoro_conv(ChoiceSource& c, int shift) {
  Net net(c);
  const DType dt = c.chance(2, 3) ? DType::f32 : DType::f16;  // Kokoro ships in f32 (see mistral-swa)
  const int64_t channels = scaled(256, shift, 2), style_dim = scaled(128, shift, 2);
  const int64_t bins = std::max<int64_t>(1, channels / 2);
  const int64_t t_lo = c.pick(std::vector<int64_t>{1, 2, 4});
  const sym::Expr t = net.dim("t", t_lo, c.pick(std::vector<int64_t>{16, 24, 32}));
  const int64_t upsample = c.range(2, 3);
  const bool style_adain = c.chance(2, 3);
  const bool learned_shortcut = c.chance(1, 2);
  const bool split_head = c.chance(1, 2);
  const AttrValue acc = acc_for(dt);

  auto conv = [&](const std::string& name, const Value& x, int64_t out_ch, int64_t kernel, bool bias) {
    const int64_t in_ch = x.type().shape[1].value();
    std::vector<Value> args = {x, net.normal(name + "_w", dt, {out_ch, in_ch, kernel}, 0, init_std(in_ch * kernel))};
    if (bias) args.push_back(net.normal(name + "_b", dt, {out_ch}, 0, 0.0625));
    return net.call(name, "conv1d", args, {{"padding", (kernel - 1) / 2}, {"acc", acc}});
  };

  Value x = net.param("x", dt, {1, channels, t});
  Value style = style_adain ? net.param("style", dt, {1, style_dim}) : Value();
  Value one = style_adain ? net.scalar("one", dt, 1.0) : Value();
  // AdaIN1d: InstanceNorm1d(affine=False)(x) * (1 + gamma) + beta with gamma, beta = fc(style),
  // which instance_norm's affine operands express directly.
  auto adain = [&](const std::string& name, const Value& in) {
    Value gamma, beta;
    if (style_adain) {
      Value fc_w = net.normal(name + "_fc_w", dt, {2 * channels, style_dim}, 0, init_std(style_dim));
      Value fc = net.call(name + "_fc", "linear", {style, fc_w}, {{"acc", acc}});
      Value flat = net.call(name + "_fc_flat", "reshape", {fc}, {{"shape", std::vector<sym::Expr>{2 * channels}}});
      auto parts = net.calls({name + "_gamma_raw", name + "_beta"}, "split", {flat}, {{"sections", int64_t{2}}});
      gamma = net.call(name + "_gamma", "add", {parts[0], one}, {});
      beta = parts[1];
    } else {
      gamma = net.param(name + "_gamma", dt, {channels});
      beta = net.param(name + "_beta", dt, {channels});
    }
    return net.call(name, "instance_norm", {in, gamma, beta}, {{"acc", acc}});
  };

  // AdainResBlk1d with upsampling: norm, LeakyReLU(0.2), upsample, conv, norm, LeakyReLU, conv;
  // the shortcut upsamples too, and the sum is scaled by 1/sqrt(2).
  Value a1 = net.call("act1", "leaky_relu", {adain("norm1", x)}, {{"alpha", 0.2}});
  Value u = net.call("act1_up", "upsample_nearest1d", {a1}, {{"scale", upsample}});
  Value conv1 = conv("conv1", u, channels, 3, true);
  Value a2 = net.call("act2", "leaky_relu", {adain("norm2", conv1)}, {{"alpha", 0.2}});
  Value conv2 = conv("conv2", a2, channels, 3, true);
  Value shortcut = net.call("x_up", "upsample_nearest1d", {x}, {{"scale", upsample}});
  if (learned_shortcut) shortcut = conv("shortcut", shortcut, channels, 1, false);
  Value sum = net.call("res_sum", "add", {conv2, shortcut}, {});
  Value y = net.call("block_out", "mul", {sum, net.scalar("inv_sqrt2", dt, 0.70710678118654752)}, {});

  // iSTFTNet's conv_post (kernel 7) read as real and imaginary parts: one conv split in two,
  // or two convs.
  Value re, im;
  if (split_head) {
    auto parts = net.calls({"spec_re", "spec_im"}, "split", {conv("spec", y, 2 * bins, 7, true)},
                           {{"sections", int64_t{2}}, {"axis", int64_t{1}}});
    re = parts[0];
    im = parts[1];
  } else {
    re = conv("spec_re", y, bins, 7, true);
    im = conv("spec_im", y, bins, 7, true);
  }
  Value phase = net.call("phase", "atan2", {im, re}, {});
  Value power = net.call("power", "add",
                         {net.call("re_sq", "mul", {re, re}, {}), net.call("im_sq", "mul", {im, im}, {})}, {});
  const double ceiling = c.pick(std::vector<double>{4, 16});
  Value mag = net.call("mag", "clip", {power}, {{"min", 0.0625}, {"max", ceiling}});
  // Unvoiced bins (little energy) carry no phase.
  Value voiced = net.call("voiced", "greater", {mag, net.scalar("voicing", dt, 0.5)}, {});
  Value phase_out = net.call("phase_out", "where", {voiced, phase, net.scalar("zero", dt, 0.0)}, {});
  return net.finish("kokoro_conv", {phase_out, mag});
}

}  // namespace

const std::vector<std::string>& template_names() {
  static const std::vector<std::string> names = {"gemma3-layer", "mistral-swa", "kokoro-conv"};
  return names;
}

Program make_template(const std::string& name, ChoiceSource& choices, const TemplateOptions& options) {
  if (options.size_shift < 0 || options.size_shift > kMaxSizeShift) {
    throw UserError(ErrorKind::Usage,
                    fmt::format("template size_shift must be in [0, {}], got {}", kMaxSizeShift, options.size_shift));
  }
  if (name == "gemma3-layer") return gemma3_layer(choices, options.size_shift);
  if (name == "mistral-swa") return mistral_swa(choices, options.size_shift);
  if (name == "kokoro-conv") return kokoro_conv(choices, options.size_shift);
  throw UserError(ErrorKind::Usage,
                  fmt::format("unknown template '{}'; known templates: {}", name, fmt::join(template_names(), ", ")));
}

}  // namespace difftest
