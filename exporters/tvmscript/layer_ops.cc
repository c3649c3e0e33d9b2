// Relax forms of the LLM layer ops (attention, RoPE, masks, 4-bit dequantization), so that a
// reproducer exercises TVM's own lowering of them rather than a T.prim_func difftest wrote.
// Each form is emitted only where Relax can say exactly what our op means; otherwise the op
// stays a prim_func (tir.cc). The semantics each form relies on are stated in the file, above
// its bindings, for the reviewer who checks them against TVM.
#include <fmt/format.h>

#include "compiler/sym/sym_simplify.h"
#include "exporters/tvmscript/emit.h"

namespace difftest::exporters::tvmscript {

namespace {

std::string relax_dtype(DType t) { return fmt::format("\"{}\"", tvm_dtype(t)); }

// `name = expr` for a fresh local derived from `base`; returns the local.
std::string relax_local(Emitter& e, const std::string& base, const std::string& expr) {
  const std::string t = e.fresh(base);
  e.line(fmt::format("{} = {}", t, expr));
  return t;
}

// `y = expr`, where expr computes in `computed`: through a local named y + suffix and one
// R.astype when `result` differs (our ops round once, at the end).
void assign_rounded(Emitter& e, const std::string& y, const std::string& expr, DType computed, DType result,
                    const std::string& suffix) {
  if (computed == result) {
    e.line(fmt::format("{} = {}", y, expr));
    return;
  }
  e.line(fmt::format("{} = R.astype({}, {})", y, relax_local(e, y + suffix, expr), relax_dtype(result)));
}

std::string int_const(int64_t v) { return fmt::format("R.const({}, \"int64\")", v); }

// Which keys query row i admits, as a bool [q_len, kv_len] tensor: key j <= the row's position
// offset + i when causal, and with a window also j > position - window or j < sink.
std::string admitted_keys(Emitter& e, const std::string& base, const sym::Expr& q_len, const sym::Expr& kv_len,
                          const sym::Expr& offset, bool causal, int64_t window, int64_t sink) {
  const std::string rows = relax_local(
      e, base + "_pos",
      fmt::format("R.arange({}, {}, 1, dtype=\"int64\")", e.dim(offset), e.dim(sym::simplify(offset + q_len))));
  const std::string pos = relax_local(e, base + "_rows", fmt::format("R.expand_dims({}, axis=1)", rows));
  const std::string keys = relax_local(
      e, base + "_keys", fmt::format("R.expand_dims(R.arange(0, {}, 1, dtype=\"int64\"), axis=0)", e.dim(kv_len)));
  std::string admit =
      causal || window > 0 ? relax_local(e, base + "_causal", fmt::format("R.less_equal({}, {})", keys, pos)) : "";
  if (window > 0) {
    const std::string recent = fmt::format("R.greater({}, R.subtract({}, {}))", keys, pos, int_const(window));
    const std::string in_window =
        sink > 0 ? fmt::format("R.logical_or({}, R.less({}, {}))", recent, keys, int_const(sink)) : recent;
    admit = relax_local(e, base + "_window", fmt::format("R.logical_and({}, {})", admit, in_window));
  }
  return admit;
}

void relax_masks(Emitter& e, const Binding& b) {
  const Attrs& a = b.attrs();
  const bool window = b.op().name == "sliding_window_mask";
  e.line(fmt::format("# {}: key j admitted by query row i iff j <= offset + i{}", b.op().name,
                     window ? " and (j > offset + i - window or j < sink)" : ""));
  const std::string m =
      admitted_keys(e, e.name(b.result()), a.get_sym("q_len"), a.get_sym("kv_len"), a.get_sym("offset"), true,
                    window ? a.get_int("window") : 0, window ? a.get_int("sink") : 0);
  e.line(fmt::format("{} = {}", e.name(b.result()), m));
}

// Every query row admits at least one key, so an additive -inf bias never leaves a row with
// nothing to normalize (our attention defines such a row as 0; softmax would give NaN).
bool every_row_admits_a_key(const Binding& b, const TensorType& q, const TensorType& k) {
  const Attrs& a = b.attrs();
  if (!a.get_bool("causal") && a.get_int("window") == 0) return true;
  if (a.get_int("window") > 0 && a.get_int("sink") > 0) return true;  // key 0 always
  // The last row's position is the last key: the row's own key is always admitted.
  return sym::simplify(a.get_sym("offset") + q.shape[1] - k.shape[1]).is_const(0);
}

bool relax_attention(Emitter& e, const Binding& b) {
  const Attrs& a = b.attrs();
  const TensorType &q = b.args()[0].type(), &k = b.args()[1].type(), &v = b.args()[2].type();
  if (b.args().size() > 3 || a.get_float("softcap") > 0) return false;  // no Relax counterpart
  if (!q.shape[2].is_const() || !k.shape[2].is_const() || !every_row_admits_a_key(b, q, k)) return false;
  double scale = a.get_float("scale");
  if (scale == 0) {
    if (!q.shape[3].is_const()) return false;
    scale = 1 / std::sqrt(static_cast<double>(q.shape[3].value()));
  }
  const DType dt = q.dtype, acc = a.get_opt_dtype("acc").value_or(dt);
  const std::string& y = e.name(b.result());
  e.line(fmt::format("# attention: R.nn.attention on BSNH operands, softmax(q k^T * scale + bias) v per head, in {}",
                     tvm_dtype(acc)));
  e.line("# (its operands' dtype); GQA as R.repeat of each KV head, causality and the window as a -inf bias");
  e.line("# (the LLVM legalization of R.nn.attention rejects window_size)");
  std::string qa = e.cast(e.name(b.args()[0]), dt, acc), ka = e.cast(e.name(b.args()[1]), k.dtype, acc),
              va = e.cast(e.name(b.args()[2]), v.dtype, acc);
  if (const int64_t group = q.shape[2].value() / k.shape[2].value(); group > 1) {
    ka = relax_local(e, y + "_k", fmt::format("R.repeat({}, repeats={}, axis=2)", ka, group));
    va = relax_local(e, y + "_v", fmt::format("R.repeat({}, repeats={}, axis=2)", va, group));
  }
  std::string bias = "None";
  if (a.get_bool("causal") || a.get_int("window") > 0) {
    const std::string admit = admitted_keys(e, y, q.shape[1], k.shape[1], a.get_sym("offset"), a.get_bool("causal"),
                                            a.get_int("window"), a.get_int("sink"));
    const std::string additive = relax_local(e, y + "_bias2d",
                                             fmt::format("R.where({}, R.const(0.0, {}), R.const(-float('inf'), {}))",
                                                         admit, relax_dtype(acc), relax_dtype(acc)));
    bias = relax_local(
        e, y + "_bias",
        fmt::format("R.reshape({}, {})", additive, e.shape({sym::Expr(1), sym::Expr(1), q.shape[1], k.shape[1]})));
  }
  assign_rounded(e, y, fmt::format("R.nn.attention({}, {}, {}, {}, scale={})", qa, ka, va, bias, py_float(scale)), acc,
                 dt, "_acc");
  return true;
}

bool relax_rope(Emitter& e, const Binding& b) {
  const Attrs& a = b.attrs();
  const TensorType& x = b.args()[0].type();
  if (!x.shape[3].is_const()) return false;  // the exponent's divisor is written as a constant
  const int64_t D = x.shape[3].value(), half = D / 2;
  const DType dt = x.dtype, ct = compute_type(dt);
  const bool neox = a.get_string("style") == "neox";
  const std::string& y = e.name(b.result());
  e.line(fmt::format("# rope ({}): token s at position offset + s; angle = position * theta^(-2i/D) in {};",
                     neox ? "neox, x[i] with x[i + D/2]" : "interleaved, x[2i] with x[2i + 1]", tvm_dtype(ct)));
  e.line("# the pair (x1, x2) becomes (x1 cos - x2 sin, x1 sin + x2 cos)");
  const sym::Expr& S = x.shape[1];
  const std::string pos =
      relax_local(e, y + "_pos",
                  fmt::format("R.astype(R.arange({}, {}, 1, dtype=\"int64\"), {})", e.dim(a.get_sym("offset")),
                              e.dim(sym::simplify(a.get_sym("offset") + S)), relax_dtype(ct)));
  const std::string exponent =
      fmt::format("R.divide(R.multiply(R.arange(0, {}, 1, dtype={}), R.const(-2.0, {})), R.const({}, {}))", half,
                  relax_dtype(ct), relax_dtype(ct), py_float(static_cast<double>(D)), relax_dtype(ct));
  const std::string inv_freq = relax_local(
      e, y + "_inv_freq",
      fmt::format("R.power(R.const({}, {}), {})", py_float(a.get_float("theta")), relax_dtype(ct), exponent));
  const std::string angle = relax_local(
      e, y + "_angle", fmt::format("R.multiply(R.expand_dims({}, axis=1), R.expand_dims({}, axis=0))", pos, inv_freq));
  const std::string rows = e.shape({sym::Expr(1), S, sym::Expr(1), sym::Expr(half)});
  const std::string cos = relax_local(e, y + "_cos", fmt::format("R.reshape(R.cos({}), {})", angle, rows));
  const std::string sin = relax_local(e, y + "_sin", fmt::format("R.reshape(R.sin({}), {})", angle, rows));
  const std::string xc = e.cast(e.name(b.args()[0]), dt, ct);
  std::string x1, x2;
  if (neox) {
    x1 = relax_local(e, y + "_x1", fmt::format("R.strided_slice({}, axes=[3], begin=[0], end=[{}])", xc, half));
    x2 = relax_local(e, y + "_x2", fmt::format("R.strided_slice({}, axes=[3], begin=[{}], end=[{}])", xc, half, D));
  } else {
    const std::string pairs = relax_local(
        e, y + "_pairs",
        fmt::format("R.reshape({}, {})", xc, e.shape({x.shape[0], S, x.shape[2], sym::Expr(half), sym::Expr(2)})));
    x1 = relax_local(e, y + "_x1",
                     fmt::format("R.squeeze(R.strided_slice({}, axes=[4], begin=[0], end=[1]), axis=[4])", pairs));
    x2 = relax_local(e, y + "_x2",
                     fmt::format("R.squeeze(R.strided_slice({}, axes=[4], begin=[1], end=[2]), axis=[4])", pairs));
  }
  const std::string o1 = relax_local(
      e, y + "_o1", fmt::format("R.subtract(R.multiply({0}, {2}), R.multiply({1}, {3}))", x1, x2, cos, sin));
  const std::string o2 =
      relax_local(e, y + "_o2", fmt::format("R.add(R.multiply({0}, {3}), R.multiply({1}, {2}))", x1, x2, cos, sin));
  std::string out;
  if (neox) {
    out = fmt::format("R.concat(({}, {}), axis=3)", o1, o2);
  } else {
    out = fmt::format("R.reshape(R.concat((R.expand_dims({}, axis=4), R.expand_dims({}, axis=4)), axis=4), {})", o1, o2,
                      e.shape(x.shape));
  }
  assign_rounded(e, y, out, ct, dt, "_ct");
  return true;
}

bool relax_dequantize(Emitter& e, const Binding& b) {
  const Attrs& a = b.attrs();
  const TensorType &packed = b.args()[0].type(), &scales = b.args()[1].type(), &out = b.result().type();
  const bool ggml = a.get_string("format") == "q4_0";
  const int64_t group = ggml ? 32 : a.get_int("group");
  const int r = out.rank();
  const std::string& y = e.name(b.result());
  const DType pt = product_type(scales.dtype, out.dtype);
  std::vector<sym::Expr> lead(out.shape.begin(), out.shape.end() - 1);
  auto with_last = [&](std::vector<sym::Expr> dims) {
    std::vector<sym::Expr> s = lead;
    s.insert(s.end(), dims.begin(), dims.end());
    return e.shape(s);
  };
  const sym::Expr& K = out.shape.back();
  const sym::Expr words = packed.shape.back();
  std::string codes, padded_len;
  if (ggml) {
    e.line("# dequantize q4_0 (GGML): byte j of a 32-element block holds element j in its low nibble and");
    e.line("# j + 16 in its high one; w = (code - 8) * the block's scale");
    const sym::Expr blocks = sym::simplify(sym::floordiv(words, sym::Expr(16)));
    const std::string bytes = relax_local(
        e, y + "_bytes", fmt::format("R.reshape({}, {})", e.name(b.args()[0]), with_last({blocks, sym::Expr(16)})));
    const std::string lo = fmt::format("R.bitwise_and({}, R.const(15, \"uint8\"))", bytes);
    const std::string hi = fmt::format("R.right_shift({}, R.const(4, \"uint8\"))", bytes);
    codes = relax_local(e, y + "_codes",
                        fmt::format("R.reshape(R.concat(({}, {}), axis={}), {})", lo, hi, r,
                                    with_last({sym::simplify(blocks * sym::Expr(32))})));
    padded_len = e.dim(sym::simplify(blocks * sym::Expr(32)));
  } else {
    e.line(fmt::format("# dequantize {} (MLC): element k is bits [4 (k % 8), 4 (k % 8) + 4) of u32 word k // 8;",
                       a.get_string("format")));
    e.line(fmt::format("# w = (code - 7) * scale[k // {}]", group));
    const std::string shifts = relax_local(e, y + "_shifts", "R.const([0, 4, 8, 12, 16, 20, 24, 28], \"uint32\")");
    const std::string nibbles =
        fmt::format("R.bitwise_and(R.right_shift(R.expand_dims({}, axis={}), {}), R.const(15, \"uint32\"))",
                    e.name(b.args()[0]), r, shifts);
    codes = relax_local(e, y + "_codes",
                        fmt::format("R.reshape({}, {})", nibbles, with_last({sym::simplify(words * sym::Expr(8))})));
    padded_len = e.dim(sym::simplify(words * sym::Expr(8)));
  }
  const std::string last = std::to_string(r - 1);
  if (padded_len != e.dim(K)) {
    codes = relax_local(e, y + "_codes_k",
                        fmt::format("R.strided_slice({}, axes=[{}], begin=[0], end=[{}])", codes, last, e.dim(K)));
  }
  const std::string level =
      relax_local(e, y + "_level",
                  fmt::format("R.astype(R.subtract(R.astype({}, \"int32\"), R.const({}, \"int32\")), {})", codes,
                              ggml ? 8 : 7, relax_dtype(pt)));
  std::string scale = relax_local(
      e, y + "_scale",
      fmt::format("R.repeat({}, repeats={}, axis={})", e.cast(e.name(b.args()[1]), scales.dtype, pt), group, last));
  if (!sym::simplify(scales.shape.back() * sym::Expr(group) - K).is_const(0)) {
    scale = relax_local(e, y + "_scale_k",
                        fmt::format("R.strided_slice({}, axes=[{}], begin=[0], end=[{}])", scale, last, e.dim(K)));
  }
  assign_rounded(e, y, fmt::format("R.multiply({}, {})", level, scale), pt, out.dtype, "_pt");
  return true;
}

}  // namespace

const std::set<std::string>& relax_layer_ops() {
  static const std::set<std::string> ops = {"attention", "rope", "causal_mask", "sliding_window_mask", "dequantize"};
  return ops;
}

bool emit_relax_layer_op(Emitter& e, const Binding& b) {
  const std::string& name = b.op().name;
  if (name == "attention") return relax_attention(e, b);
  if (name == "rope") return relax_rope(e, b);
  if (name == "dequantize") return relax_dequantize(e, b);
  if (name == "causal_mask" || name == "sliding_window_mask") {
    relax_masks(e, b);
    return true;
  }
  return false;
}

}  // namespace difftest::exporters::tvmscript
