// Emitters of the normalization, attention and conv families (export_context.h): attention and
// rope in the decompositions torch.onnx and Optimum write for Llama/Gemma-style models (the
// patterns an ONNX compiler's fusion passes look for), the norms, the masks from positions, and
// the convolutions and upsampling as their ONNX nodes.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "compiler/sym/sym_simplify.h"
#include "interop/onnx/export_context.h"

namespace difftest::interop {

namespace {

using namespace export_util;

// The float dtype a decomposition computes in: f64 stays, everything narrower goes to f32 (as
// exporters upcast half-precision attention and rope), so masks and angles keep their range.
DType working_dtype(DType dt) { return dt == DType::f64 ? DType::f64 : DType::f32; }

std::string cast_to(ModelWriter& w, const std::string& name, DType from, DType to, const std::string& hint) {
  if (from == to) return name;
  ::onnx::NodeProto* n = nullptr;
  const std::string out = w.op("Cast", {name}, hint, &n);
  set_attr(*n, "to", int64_t{onnx_dtype(to)});
  return out;
}

// Into the dtype the emitter owes: the accumulator's when the op has one (emit_in_accumulator
// casts it to the result), else the result's.
void cast_result(ModelWriter& w, const Binding& b, const std::string& value, DType from) {
  const DType to = accumulator_of(b).value_or(b.result().type().dtype);
  if (from == to) {
    w.node("Identity", {value}, {out(w, b)});
    return;
  }
  set_attr(w.node("Cast", {value}, {out(w, b)}), "to", int64_t{onnx_dtype(to)});
}

std::string transposed(ModelWriter& w, const std::string& x, const std::vector<int64_t>& perm,
                       const std::string& hint) {
  ::onnx::NodeProto* n = nullptr;
  const std::string t = w.op("Transpose", {x}, hint, &n);
  set_attr(*n, "perm", perm);
  return t;
}

std::string concat(ModelWriter& w, const std::vector<std::string>& parts, int64_t axis, const std::string& hint) {
  ::onnx::NodeProto* n = nullptr;
  const std::string c = w.op("Concat", parts, hint, &n);
  set_attr(*n, "axis", axis);
  return c;
}

// ---- rope ----------------------------------------------------------------------------------

// The rotation as HF transformers writes it: angles = positions x inv_freq in f32 (inv_freq an
// initializer, theta^(-2i/D) rounded once), cos and sin of them; neox rotates halves
// (x * cos + rotate_half(x) * sin, rotate_half = [-x2, x1]), interleaved rotates pairs.
void rope(ModelWriter& w, const Binding& b) {
  const Value& x = b.args()[0];
  const auto& shape = x.type().shape;  // [B, S, H, D]
  if (!shape[3].is_const()) {
    throw Unsupported("export of rope with a symbolic head dim",
                      fmt::format("{}: the frequency table needs D as a constant", w.where));
  }
  const int64_t d = shape[3].value(), half = d / 2;
  const DType dt = compute_dtype(b), wd = working_dtype(dt);
  const std::string xc = cast_to(w, in(w, b, 0), dt, wd, "rope_x");
  const sym::Expr& offset = b.attrs().get_sym("offset");
  const std::string positions = cast_to(
      w,
      w.op("Range", {scalar_dim(w, offset), scalar_dim(w, sym::simplify(offset + shape[1])), scalar_dim(w, 1)}, "pos"),
      DType::i64, wd, "pos_f");
  std::vector<double> inv_freq(static_cast<size_t>(half));
  const double theta = b.attrs().get_float("theta");
  for (int64_t i = 0; i < half; ++i) {
    inv_freq[static_cast<size_t>(i)] = std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(d));
  }
  const std::string freq = w.initializer(Tensor::from_doubles(wd, {1, half}, inv_freq), "inv_freq");
  const std::string angles = w.op("Mul", {w.op("Unsqueeze", {positions, w.int64s({1})}, "pos_col"), freq}, "angles");
  const bool neox = b.attrs().get_string("style") == "neox";
  // neox: [S, D] (the angles twice); interleaved: [S, D/2]. Shaped to broadcast over B and H
  // (and, interleaved, the pair axis).
  const std::string emb = neox ? concat(w, {angles, angles}, -1, "emb") : angles;
  const std::vector<int64_t> spread = neox ? std::vector<int64_t>{0, 2} : std::vector<int64_t>{0, 2, 4};
  const std::string cos = w.op("Unsqueeze", {w.op("Cos", {emb}, "cos"), w.int64s(spread)}, "cos_b");
  const std::string sin = w.op("Unsqueeze", {w.op("Sin", {emb}, "sin"), w.int64s(spread)}, "sin_b");
  std::string rotated;
  if (neox) {
    const std::string x1 = slice(w, xc, sym::Expr::constant(0), sym::Expr::constant(half), 3, "x1");
    const std::string x2 = slice(w, xc, sym::Expr::constant(half), sym::Expr::constant(d), 3, "x2");
    const std::string rot = concat(w, {w.op("Neg", {x2}, "neg_x2"), x1}, 3, "rotate_half");
    const std::string a = multiplied(w, xc, cos, "x_cos"), c = multiplied(w, rot, sin, "rot_sin");
    rotated = added(w, a, c, "rotated");
  } else {
    std::vector<sym::Expr> pairs = shape;
    pairs[3] = sym::Expr::constant(half);
    pairs.push_back(sym::Expr::constant(2));
    const std::string xp = w.op("Reshape", {xc, w.dims(pairs)}, "pairs");
    const std::string x1 = slice(w, xp, sym::Expr::constant(0), sym::Expr::constant(1), 4, "x1");
    const std::string x2 = slice(w, xp, sym::Expr::constant(1), sym::Expr::constant(2), 4, "x2");
    const std::string first =
        w.op("Sub", {multiplied(w, x1, cos, "x1_cos"), multiplied(w, x2, sin, "x2_sin")}, "first");
    const std::string second =
        w.op("Add", {multiplied(w, x1, sin, "x1_sin"), multiplied(w, x2, cos, "x2_cos")}, "second");
    rotated = w.op("Reshape", {concat(w, {first, second}, 4, "rotated_pairs"), w.dims(shape)}, "rotated");
  }
  cast_result(w, b, rotated, wd);
}

// ---- attention ------------------------------------------------------------------------------

// [B, Hkv, X, Y] -> [B, Hkv * r, X, Y], each kv head repeated r times in a row (HF's repeat_kv).
std::string repeat_kv(ModelWriter& w, const std::string& t, const std::vector<sym::Expr>& dims, int64_t r) {
  if (r == 1) return t;
  std::vector<sym::Expr> expanded = {dims[0], dims[1], sym::Expr::constant(r), dims[2], dims[3]};
  const std::string u = w.op("Unsqueeze", {t, w.int64s({2})}, "kv_u");
  const std::string e = w.op("Expand", {u, w.dims(expanded)}, "kv_e");
  return w.op("Reshape", {e, w.dims({dims[0], sym::simplify(dims[1] * sym::Expr::constant(r)), dims[2], dims[3]})},
              "kv_rep");
}

// The admitted keys as a bool [Sq, Skv] (empty when every key is): the user's mask, causal and
// window conditions from positions, And-ed.
std::string admitted_keys(ModelWriter& w, const Binding& b, const sym::Expr& q_len, const sym::Expr& kv_len) {
  std::vector<std::string> parts;
  if (b.args().size() > 3) parts.push_back(in(w, b, 3));
  const int64_t window = b.attrs().get_int("window");
  if (b.attrs().get_bool("causal") || window > 0) {
    const auto [q, k] = mask_positions(w, b.attrs().get_sym("offset"), q_len, kv_len);
    parts.push_back(causal_part(w, q, k));
    if (window > 0) parts.push_back(window_part(w, q, k, window, b.attrs().get_int("sink")));
  }
  if (parts.empty()) return "";
  std::string all = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) all = w.op("And", {all, parts[i]}, "admitted");
  return all;
}

// softmax(q k^T * scale (softcapped), masked) v over BNSH transposes, as exporters of
// scaled_dot_product_attention write it. Masked scores take the working dtype's lowest value
// and their weights are zeroed after the softmax, so a row without keys is 0 as the op defines.
void attention(ModelWriter& w, const Binding& b) {
  const auto &qs = b.args()[0].type().shape, &ks = b.args()[1].type().shape, &vs = b.args()[2].type().shape;
  if (!qs[2].is_const() || !ks[2].is_const() || !qs[3].is_const()) {
    throw Unsupported("export of attention with symbolic heads",
                      fmt::format("{}: the head counts and the head dim must be constants", w.where));
  }
  const int64_t r = qs[2].value() / ks[2].value();
  const DType dt = compute_dtype(b), wd = working_dtype(dt);
  const std::string q = transposed(w, cast_to(w, in(w, b, 0), dt, wd, "q_w"), {0, 2, 1, 3}, "q_t");
  const std::string k = transposed(w, cast_to(w, in(w, b, 1), dt, wd, "k_w"), {0, 2, 3, 1}, "k_t");
  const std::string v = transposed(w, cast_to(w, in(w, b, 2), dt, wd, "v_w"), {0, 2, 1, 3}, "v_t");
  const std::string k_rep = repeat_kv(w, k, {ks[0], ks[2], ks[3], ks[1]}, r);
  const std::string v_rep = repeat_kv(w, v, {vs[0], vs[2], vs[1], vs[3]}, r);
  double scale = b.attrs().get_float("scale");
  if (scale == 0) scale = 1 / std::sqrt(static_cast<double>(qs[3].value()));
  std::string scores;
  if (w.form(2)) {  // scaled after the product, or the query before it
    scores = w.op("Mul", {w.op("MatMul", {q, k_rep}, "qk"), w.scalar(wd, scale)}, "scores");
  } else {
    scores = w.op("MatMul", {w.op("Mul", {q, w.scalar(wd, scale)}, "q_scaled"), k_rep}, "scores");
  }
  if (const double cap = b.attrs().get_float("softcap"); cap > 0) {
    const std::string t = w.op("Tanh", {w.op("Div", {scores, w.scalar(wd, cap)}, "capped")}, "tanh");
    scores = w.op("Mul", {t, w.scalar(wd, cap)}, "softcapped");
  }
  const std::string admitted = admitted_keys(w, b, qs[1], ks[1]);
  const double lowest = wd == DType::f64 ? std::numeric_limits<double>::lowest() : std::numeric_limits<float>::lowest();
  if (!admitted.empty()) scores = w.op("Where", {admitted, scores, w.scalar(wd, lowest)}, "masked");
  ::onnx::NodeProto* sm = nullptr;
  std::string weights = w.op("Softmax", {scores}, "weights", &sm);
  set_attr(*sm, "axis", int64_t{-1});
  if (!admitted.empty()) weights = w.op("Where", {admitted, weights, w.scalar(wd, 0)}, "weights_admitted");
  const std::string o = transposed(w, w.op("MatMul", {weights, v_rep}, "attn"), {0, 2, 1, 3}, "attn_t");
  cast_result(w, b, o, wd);
}

// ---- norms ------------------------------------------------------------------------------------

// A per-channel [C] vector shaped [C, 1, ..., 1] to broadcast along axis `axis` of a rank `rank`
// tensor (unchanged when the axis is the last).
std::string along_axis(ModelWriter& w, const std::string& v, int64_t axis, int rank, const std::string& hint) {
  std::vector<int64_t> trailing;
  for (int64_t a = 1; a < rank - axis; ++a) trailing.push_back(a);
  return trailing.empty() ? v : w.op("Unsqueeze", {v, w.int64s(trailing)}, hint);
}

std::string mean_over(ModelWriter& w, const std::string& x, const std::vector<int64_t>& axes, const std::string& hint) {
  ::onnx::NodeProto* n = nullptr;
  const std::string m = w.op("ReduceMean", {x}, hint, &n);
  set_attr(*n, "axes", axes);
  set_attr(*n, "keepdims", int64_t{1});
  return m;
}

// (x - mean) / sqrt(var + eps) over `axes`, biased variance of the centred values, eps in the
// computing dtype. In the forms exporters write (torch.onnx before opset 17 squares with Pow,
// hand-written graphs with Mul), and with eps on either side of its Add: ORT's LayerNormFusion
// matches the Pow form and reads eps from one side only.
std::string normalized(ModelWriter& w, const std::string& x, const std::vector<int64_t>& axes, double eps, DType dt) {
  const std::string centred = w.op("Sub", {x, mean_over(w, x, axes, "mu")}, "centred");
  const std::string sq =
      w.form(2) ? w.op("Pow", {centred, w.scalar(dt, 2)}, "sq") : w.op("Mul", {centred, centred}, "sq");
  const std::string var = mean_over(w, sq, axes, "var");
  const std::string root = w.op("Sqrt", {added(w, var, w.scalar(dt, eps), "var_eps")}, "std");
  return w.op("Div", {centred, root}, "normed");
}

// ONNX's norm nodes take epsilon as a float attribute: an f64 norm whose eps f32 cannot hold
// is written out instead, or its result would move by the difference.
bool eps_fits_node(const Binding& b) {
  const double eps = b.attrs().get_float("eps");
  return compute_dtype(b) != DType::f64 || static_cast<double>(static_cast<float>(eps)) == eps;
}

// normalized * gamma + beta, gamma and beta per index of `axis`.
void affine(ModelWriter& w, const Binding& b, const std::string& normed, int64_t axis, int rank) {
  const std::string gamma = along_axis(w, in(w, b, 1), axis, rank, "gamma_b");
  const std::string beta = along_axis(w, in(w, b, 2), axis, rank, "beta_b");
  const std::string scaled = multiplied(w, normed, gamma, "scaled");
  w.form(2) ? w.node("Add", {beta, scaled}, {out(w, b)}) : w.node("Add", {scaled, beta}, {out(w, b)});
}

// LayerNormalization normalizes the trailing dims from its axis: over the last axis the op is
// that node (torch.onnx from opset 17) or its decomposition (before 17, and what ORT's
// LayerNormFusion rebuilds the node from); over an inner axis it is written out.
void layer_norm(ModelWriter& w, const Binding& b) {
  const int rank = b.args()[0].type().rank();
  const int64_t axis = positive_axis(b.attrs().get_int("axis"), rank);
  const double eps = b.attrs().get_float("eps");
  if (axis == rank - 1 && eps_fits_node(b) && w.form(2)) {
    ::onnx::NodeProto& n = w.node("LayerNormalization", {in(w, b, 0), in(w, b, 1), in(w, b, 2)}, {out(w, b)});
    set_attr(n, "axis", int64_t{-1});
    set_attr(n, "epsilon", static_cast<float>(eps));
    return;
  }
  affine(w, b, normalized(w, in(w, b, 0), {axis}, eps, compute_dtype(b)), axis, rank);
}

// x / sqrt(mean(x^2) + eps) * (weight + offset), in the forms exporters write: x*x or Pow(x, 2),
// eps on either side of its Add, Div by the root or Mul by its reciprocal.
void rms_norm(ModelWriter& w, const Binding& b) {
  const DType dt = compute_dtype(b);
  const std::string& x = in(w, b, 0);
  const int rank = b.args()[0].type().rank();
  const int64_t axis = positive_axis(b.attrs().get_int("axis"), rank);
  const std::string sq = w.form(2) ? w.op("Pow", {x, w.scalar(dt, 2)}, "sq") : w.op("Mul", {x, x}, "sq");
  // Drawn in the order the forms were added, so that a program keeps the forms it had.
  const bool divide = w.form(2) != 0;
  const std::string mean = mean_over(w, sq, {axis}, "mean_sq");
  const std::string root = w.op("Sqrt", {added(w, mean, w.scalar(dt, b.attrs().get_float("eps")), "var_eps")}, "rms");
  const std::string normed =
      divide ? w.op("Div", {x, root}, "normed") : w.op("Mul", {x, w.op("Reciprocal", {root}, "inv_rms")}, "normed");
  std::string weight = in(w, b, 1);
  if (const double offset = b.attrs().get_float("weight_offset"); offset != 0) {
    weight = w.op("Add", {weight, w.scalar(dt, offset)}, "weight");
  }
  w.node("Mul", {normed, along_axis(w, weight, axis, rank, "weight_b")}, {out(w, b)});
}

std::vector<int64_t> axes_from(int64_t first, int rank) {
  std::vector<int64_t> axes;
  for (int64_t a = first; a < rank; ++a) axes.push_back(a);
  return axes;
}

void instance_norm(ModelWriter& w, const Binding& b) {
  const int rank = b.args()[0].type().rank();
  if (!eps_fits_node(b)) {
    affine(w, b, normalized(w, in(w, b, 0), axes_from(2, rank), b.attrs().get_float("eps"), compute_dtype(b)), 1, rank);
    return;
  }
  set_attr(w.node("InstanceNormalization", {in(w, b, 0), in(w, b, 1), in(w, b, 2)}, {out(w, b)}), "epsilon",
           static_cast<float>(b.attrs().get_float("eps")));
}

// As torch.onnx writes GroupNorm before opset 18: x reshaped to [N, G, rest], an
// InstanceNormalization with unit scale and zero shift (written out when its float epsilon
// would not hold eps), reshaped back, then the per-channel gamma and beta.
void group_norm(ModelWriter& w, const Binding& b) {
  const auto& shape = b.args()[0].type().shape;
  const int rank = static_cast<int>(shape.size());
  const int64_t groups = b.attrs().get_int("num_groups");
  const DType dt = compute_dtype(b);
  const double eps = b.attrs().get_float("eps");
  sym::Expr rest = sym::simplify(sym::floordiv(shape[1], sym::Expr::constant(groups)));
  for (int i = 2; i < rank; ++i) rest = sym::simplify(rest * shape[static_cast<size_t>(i)]);
  const std::string grouped =
      w.op("Reshape", {in(w, b, 0), w.dims({shape[0], sym::Expr::constant(groups), rest})}, "grouped");
  std::string normed;
  if (eps_fits_node(b)) {
    const auto g = static_cast<size_t>(groups);
    const std::string ones = w.initializer(Tensor::from_doubles(dt, {groups}, std::vector<double>(g, 1.0)), "ones");
    const std::string zeros = w.initializer(Tensor::from_doubles(dt, {groups}, std::vector<double>(g, 0.0)), "zeros");
    ::onnx::NodeProto* n = nullptr;
    normed = w.op("InstanceNormalization", {grouped, ones, zeros}, "group_normed", &n);
    set_attr(*n, "epsilon", static_cast<float>(eps));
  } else {
    normed = normalized(w, grouped, {2}, eps, dt);
  }
  affine(w, b, w.op("Reshape", {normed, w.dims(shape)}, "normed_back"), 1, rank);
}

// ---- softmax, masks, convolutions, upsampling

template <const char* kOnnx>
void softmax(ModelWriter& w, const Binding& b) {
  set_attr(w.node(kOnnx, {in(w, b, 0)}, {out(w, b)}), "axis", b.attrs().get_int("axis"));
}
constexpr char kOnnxSoftmax[] = "Softmax", kOnnxLogSoftmax[] = "LogSoftmax";

std::pair<std::string, std::string> mask_positions(ModelWriter& w, const Binding& b) {
  return mask_positions(w, b.attrs().get_sym("offset"), b.attrs().get_sym("q_len"), b.attrs().get_sym("kv_len"));
}

void causal_mask(ModelWriter& w, const Binding& b) {
  const auto [q, k] = mask_positions(w, b);
  w.node("Identity", {causal_part(w, q, k)}, {out(w, b)});
}

// (j <= p) and (j > p - window or j < sink).
void sliding_window_mask(ModelWriter& w, const Binding& b) {
  const auto [q, k] = mask_positions(w, b);
  const std::string causal = causal_part(w, q, k);
  w.node("And", {causal, window_part(w, q, k, b.attrs().get_int("window"), b.attrs().get_int("sink"))}, {out(w, b)});
}

// conv1d/conv2d as Conv: the same cross-correlation, symmetric pads.
template <int kDims>
void conv(ModelWriter& w, const Binding& b) {
  const auto list = [&](const char* name) {
    if constexpr (kDims == 1) return std::vector<int64_t>{b.attrs().get_int(name)};
    return b.attrs().get_ints(name);
  };
  std::vector<std::string> args = {in(w, b, 0), in(w, b, 1)};
  if (b.args().size() > 2) args.push_back(in(w, b, 2));
  ::onnx::NodeProto& n = w.node("Conv", args, {out(w, b)});
  std::vector<int64_t> kernel;
  const auto& ws = b.args()[1].type().shape;
  for (size_t i = 2; i < ws.size(); ++i) kernel.push_back(ws[i].value());
  std::vector<int64_t> pads = list("padding");
  pads.insert(pads.end(), pads.begin(), pads.end());  // begins, then ends
  set_attr(n, "kernel_shape", kernel);
  set_attr(n, "strides", list("stride"));
  set_attr(n, "pads", pads);
  set_attr(n, "dilations", list("dilation"));
  set_attr(n, "group", b.attrs().get_int("groups"));
}

void conv_transpose1d(ModelWriter& w, const Binding& b) {
  std::vector<std::string> args = {in(w, b, 0), in(w, b, 1)};
  if (b.args().size() > 2) args.push_back(in(w, b, 2));
  ::onnx::NodeProto& n = w.node("ConvTranspose", args, {out(w, b)});
  const int64_t pad = b.attrs().get_int("padding");
  set_attr(n, "kernel_shape", std::vector<int64_t>{b.args()[1].type().shape[2].value()});
  set_attr(n, "strides", std::vector<int64_t>{b.attrs().get_int("stride")});
  set_attr(n, "pads", std::vector<int64_t>{pad, pad});
  set_attr(n, "output_padding", std::vector<int64_t>{b.attrs().get_int("output_padding")});
  set_attr(n, "dilations", std::vector<int64_t>{b.attrs().get_int("dilation")});
  set_attr(n, "group", b.attrs().get_int("groups"));
}

// F.interpolate(mode="nearest") as torch.onnx writes it: Resize with scales [1, 1, s],
// asymmetric coordinates and floor rounding, so y[l] = x[l // s].
void upsample_nearest1d(ModelWriter& w, const Binding& b) {
  const double s = static_cast<double>(b.attrs().get_int("scale"));
  const std::string scales = w.initializer(Tensor::from_doubles(DType::f32, {3}, {1, 1, s}), "scales");
  ::onnx::NodeProto& n = w.node("Resize", {in(w, b, 0), "", scales}, {out(w, b)});
  auto set_string = [&n](const char* name, const char* value) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::STRING);
    a->set_s(value);
  };
  set_string("mode", "nearest");
  set_string("coordinate_transformation_mode", "asymmetric");
  set_string("nearest_mode", "floor");
}

}  // namespace

void register_normalization_onnx_emitters(EmitterTable& t) {
  t.add("group_norm", group_norm);
  t.add("instance_norm", instance_norm);
  t.add("layer_norm", layer_norm);
  t.add("log_softmax", softmax<kOnnxLogSoftmax>);
  t.add("rms_norm", rms_norm);
  t.add("softmax", softmax<kOnnxSoftmax>);
}

void register_attention_onnx_emitters(EmitterTable& t) {
  t.add("attention", attention);
  t.add("causal_mask", causal_mask);
  t.add("rope", rope);
  t.add("sliding_window_mask", sliding_window_mask);
}

void register_conv_onnx_emitters(EmitterTable& t) {
  t.add("conv1d", conv<1>);
  t.add("conv2d", conv<2>);
  t.add("conv_transpose1d", conv_transpose1d);
  t.add("upsample_nearest1d", upsample_nearest1d);
}

}  // namespace difftest::interop
