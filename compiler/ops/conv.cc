// Convolutions and upsampling (the TTS decoder ops, e.g. Kokoro/StyleTTS2 decoder blocks).
#include "compiler/ops/infer_util.h"

namespace difftest::ops {

namespace {

struct Spatial {
  int64_t stride, padding, dilation;
};

// The checks every convolution shares: float operands of one dtype and the given rank.
void require_conv_operands(const InferContext& ctx, int rank) {
  require_float(ctx, 0);
  require_same_dtype(ctx, 0, 1);
  require_rank(ctx, 0, rank);
  require_rank(ctx, 1, rank);
  accumulator(ctx, input(ctx, 0).dtype);
}

void check_spatial(const InferContext& ctx, const Spatial& s) {
  if (s.stride < 1 || s.dilation < 1 || s.padding < 0 || s.stride > 4096 || s.dilation > 4096 || s.padding > 4096) {
    fail(ctx, ErrorKind::Attribute, "stride and dilation must be in [1, 4096] and padding in [0, 4096]");
  }
}

Spatial spatial_attrs(const InferContext& ctx) {
  const Spatial s{ctx.attrs.get_int("stride"), ctx.attrs.get_int("padding"), ctx.attrs.get_int("dilation")};
  check_spatial(ctx, s);
  return s;
}

// (L + 2p - d*(K - 1) - 1) // s + 1
sym::Expr conv_out(const InferContext& ctx, const sym::Expr& len, const sym::Expr& kernel, const Spatial& s) {
  return simp(ctx, sym::floordiv(len + 2 * s.padding - s.dilation * (kernel - 1) - 1, s.stride) + 1);
}

int64_t groups_of(const InferContext& ctx) {
  const int64_t g = ctx.attrs.get_int("groups");
  if (g < 1) fail(ctx, ErrorKind::Attribute, "groups must be >= 1, got {}", g);
  return g;
}

void require_divisible(const InferContext& ctx, const sym::Expr& e, int64_t g, const char* what) {
  if (sym::prove_divisible(e, g, ctx.ranges) != sym::Truth::True) {
    fail(ctx, ErrorKind::Shape, "{} {} is not provably divisible by groups={}", what, sym::to_string(e), g);
  }
}

void check_bias(const InferContext& ctx, const sym::Expr& channels) {
  if (!has_input(ctx, 2)) return;
  require_same_dtype(ctx, 0, 2);
  require_rank(ctx, 2, 1);
  require_equal_dims(ctx, input(ctx, 2).shape[0], channels, "bias length and output channels");
}

OpDef conv_base(const std::string& name, const std::string& summary, const std::string& semantics) {
  OpDef d;
  d.name = name;
  d.family = "conv";
  d.summary = summary;
  d.semantics = semantics +
                " Sums are carried in `acc` (any order) and rounded once to the operand dtype; the optional "
                "bias is added before that rounding. All operands share a float dtype.";
  d.inputs = {"x", "w", "bias"};
  d.min_inputs = 2;
  d.max_inputs = 3;
  d.pattern = OpPattern::OutEWiseFusable;
  return d;
}

void add_conv1d(OpRegistry& r) {
  OpDef d = conv_base("conv1d", "1-D convolution (cross-correlation), NCL layout",
                      "x: [N, Cin, L], w: [Cout, Cin / groups, K], bias: [Cout]. Output length "
                      "Lout = (L + 2*padding - dilation*(K - 1) - 1) // stride + 1. "
                      "y[n, o, l] = sum over c in o's group and k of x[n, c, l*stride - padding + k*dilation] * "
                      "w[o, c - group_start, k], with x read as 0 outside [0, L). Output channel o belongs to "
                      "group o // (Cout / groups), which covers input channels [g*Cin/groups, (g+1)*Cin/groups).");
  d.attrs = {attr_int("stride", 1, "step between output positions"), attr_int("padding", 0, "zeros on each side"),
             attr_int("dilation", 1, "spacing of kernel taps"), attr_int("groups", 1, "channel groups"), attr_acc()};
  d.infer = [](const InferContext& ctx) {
    require_conv_operands(ctx, 3);
    const Spatial s = spatial_attrs(ctx);
    const int64_t g = groups_of(ctx);
    const auto& x = input(ctx, 0).shape;
    const auto& w = input(ctx, 1).shape;
    require_equal_dims(ctx, x[1], simp(ctx, w[1] * g), "input channels and w's Cin/groups times groups");
    require_divisible(ctx, w[0], g, "output channels");
    check_bias(ctx, w[0]);
    return std::vector<TensorType>{TensorType{input(ctx, 0).dtype, {x[0], w[0], conv_out(ctx, x[2], w[2], s)}}};
  };
  r.add(std::move(d));
}

void add_conv2d(OpRegistry& r) {
  OpDef d = conv_base("conv2d", "2-D convolution (cross-correlation), NCHW layout",
                      "x: [N, Cin, H, W], w: [Cout, Cin / groups, KH, KW], bias: [Cout]; stride, padding and "
                      "dilation are [along H, along W]. Each spatial output size follows the conv1d formula, and "
                      "y[n, o, h, v] = sum over c in o's group, kh, kw of x[n, c, h*sh - ph + kh*dh, "
                      "v*sw - pw + kw*dw] * w[o, c - group_start, kh, kw], with x read as 0 outside the image.");
  d.attrs = {attr_ints("stride", {1, 1}, "[sh, sw]"), attr_ints("padding", {0, 0}, "[ph, pw], zeros on each side"),
             attr_ints("dilation", {1, 1}, "[dh, dw]"), attr_int("groups", 1, "channel groups"), attr_acc()};
  d.infer = [](const InferContext& ctx) {
    require_conv_operands(ctx, 4);
    const auto& stride = ctx.attrs.get_ints("stride");
    const auto& padding = ctx.attrs.get_ints("padding");
    const auto& dilation = ctx.attrs.get_ints("dilation");
    if (stride.size() != 2 || padding.size() != 2 || dilation.size() != 2) {
      fail(ctx, ErrorKind::Attribute, "stride, padding and dilation need two entries each");
    }
    const int64_t g = groups_of(ctx);
    const auto& x = input(ctx, 0).shape;
    const auto& w = input(ctx, 1).shape;
    require_equal_dims(ctx, x[1], simp(ctx, w[1] * g), "input channels and w's Cin/groups times groups");
    require_divisible(ctx, w[0], g, "output channels");
    check_bias(ctx, w[0]);
    std::vector<sym::Expr> out = {x[0], w[0]};
    for (int i = 0; i < 2; ++i) {
      const Spatial s{stride[i], padding[i], dilation[i]};
      check_spatial(ctx, s);
      out.push_back(conv_out(ctx, x[2 + i], w[2 + i], s));
    }
    return std::vector<TensorType>{TensorType{input(ctx, 0).dtype, out}};
  };
  r.add(std::move(d));
}

void add_conv_transpose1d(OpRegistry& r) {
  OpDef d = conv_base("conv_transpose1d", "1-D transposed convolution, NCL layout",
                      "x: [N, Cin, L], w: [Cin, Cout / groups, K] (PyTorch layout), bias: [Cout]. "
                      "Lout = (L - 1)*stride - 2*padding + dilation*(K - 1) + output_padding + 1. Every input "
                      "position j scatters into output l = j*stride - padding + k*dilation: "
                      "y[n, o, l] = sum over c in o's group, j, k with that l of x[n, c, j] * "
                      "w[c, o - group_start, k]; positions outside [0, Lout) are dropped. output_padding must be "
                      "below max(stride, dilation).");
  d.attrs = {attr_int("stride", 1, "upsampling step"), attr_int("padding", 0, "cropped from each side"),
             attr_int("output_padding", 0, "extra positions at the end"), attr_int("dilation", 1, "kernel spacing"),
             attr_int("groups", 1, "channel groups"), attr_acc()};
  d.infer = [](const InferContext& ctx) {
    require_conv_operands(ctx, 3);
    const Spatial s = spatial_attrs(ctx);
    const int64_t op = ctx.attrs.get_int("output_padding");
    if (op < 0 || op >= std::max(s.stride, s.dilation)) {
      fail(ctx, ErrorKind::Attribute, "output_padding must be in [0, max(stride, dilation)), got {}", op);
    }
    const int64_t g = groups_of(ctx);
    const auto& x = input(ctx, 0).shape;
    const auto& w = input(ctx, 1).shape;
    require_equal_dims(ctx, x[1], w[0], "input channels and w's first dim");
    require_divisible(ctx, x[1], g, "input channels");
    const sym::Expr cout = simp(ctx, w[1] * g);
    check_bias(ctx, cout);
    const sym::Expr len =
        simp(ctx, (x[2] - 1) * s.stride - 2 * s.padding + s.dilation * (w[2] - 1) + op + 1);
    return std::vector<TensorType>{TensorType{input(ctx, 0).dtype, {x[0], cout, len}}};
  };
  r.add(std::move(d));
}

void add_upsample(OpRegistry& r) {
  OpDef d;
  d.name = "upsample_nearest1d";
  d.family = "conv";
  d.summary = "nearest-neighbour upsampling along the last axis";
  d.semantics =
      "x: [N, C, L] -> y: [N, C, L * scale] with y[n, c, l] = x[n, c, l // scale] (PyTorch "
      "F.interpolate(mode=\"nearest\") with an integer scale factor).";
  d.inputs = {"x"};
  d.attrs = {attr_int("scale", 2, "integer scale factor, >= 1")};
  d.pattern = OpPattern::Injective;
  d.infer = [](const InferContext& ctx) {
    require_float(ctx, 0);
    require_rank(ctx, 0, 3);
    const int64_t s = ctx.attrs.get_int("scale");
    if (s < 1 || s > 4096) fail(ctx, ErrorKind::Attribute, "scale must be in [1, 4096], got {}", s);
    TensorType t = input(ctx, 0);
    t.shape[2] = simp(ctx, t.shape[2] * s);
    return std::vector<TensorType>{t};
  };
  r.add(std::move(d));
}

}  // namespace

void register_conv_ops(OpRegistry& r) {
  add_conv1d(r);
  add_conv2d(r);
  add_conv_transpose1d(r);
  add_upsample(r);
}

}  // namespace difftest::ops
