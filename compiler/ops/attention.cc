// Attention masks, attention and rotary embeddings. The index conventions below are the
// contract every implementation (reference, lowering, tolerance) follows; off-by-one errors in
// exactly these conventions are a bug class difftest exists to catch.
#include "compiler/ops/infer_util.h"

namespace difftest::ops {

namespace {

constexpr const char* kPositions =
    "Query row i sits at absolute position p = offset + i; key column j sits at position j.";

void mask_op(OpRegistry& r, bool sliding) {
  OpDef d;
  d.name = sliding ? "sliding_window_mask" : "causal_mask";
  d.family = "attention";
  d.summary = sliding ? "boolean sliding-window causal mask with attention sinks" : "boolean causal mask";
  d.semantics =
      std::string(kPositions) +
      (sliding
           ? " mask[i, j] = (j <= p) and (j > p - window or j < sink). A row therefore admits the `window` most "
             "recent keys p - window + 1 .. p (the query's own position included, as in Gemma-3 and Mistral: "
             "q_pos - kv_pos < window), which is min(window, p + 1) keys, plus the sink keys 0 .. sink - 1 that "
             "are not already in the window and not after p. With window >= p + 1 for every row it equals "
             "causal_mask. window >= 1, sink >= 0."
           : " mask[i, j] = (j <= p).") +
      " The result is bool[q_len, kv_len]; true means the key is visible.";
  d.inputs = {};
  d.min_inputs = d.max_inputs = 0;
  d.attrs = {attr_sym_required("q_len", "number of query rows"), attr_sym_required("kv_len", "number of key columns")};
  if (sliding) {
    d.attrs.push_back(attr_int_required("window", "keys visible behind and including the query position"));
    d.attrs.push_back(attr_int_required("sink", "leading keys always visible (attention sinks); 0 for none"));
  }
  d.attrs.push_back(attr_sym("offset", sym::Expr(0), "absolute position of query row 0 (kv_len - q_len when "
                                                      "decoding against a KV cache)"));
  d.pattern = OpPattern::Injective;
  d.infer = [sliding](const InferContext& ctx) {
    if (sliding) {
      if (ctx.attrs.get_int("window") < 1) fail(ctx, ErrorKind::Attribute, "window must be >= 1");
      if (ctx.attrs.get_int("sink") < 0) fail(ctx, ErrorKind::Attribute, "sink must be >= 0");
    }
    return std::vector<TensorType>{
        TensorType{DType::boolean, {ctx.attrs.get_sym("q_len"), ctx.attrs.get_sym("kv_len")}}};
  };
  r.add(std::move(d));
}

void attention_op(OpRegistry& r) {
  OpDef d;
  d.name = "attention";
  d.family = "attention";
  d.summary = "scaled dot-product attention with GQA, causal/sliding-window masks, sinks and softcap";
  d.semantics =
      std::string(
          "q: [B, Sq, Hq, D], k: [B, Skv, Hkv, D], v: [B, Skv, Hkv, Dv] (Relax's BSNH layout), optional mask: "
          "bool[Sq, Skv]; the result is [B, Sq, Hq, Dv]. Hq must be a multiple of Hkv (grouped-query "
          "attention): query head h reads kv head h // (Hq / Hkv), so consecutive query heads share a kv head. ") +
      kPositions +
      " Scores s_j = scale * dot(q[b, i, h, :], k[b, j, g, :]) with scale = 1/sqrt(D) when the attribute is 0; "
      "with softcap > 0, s_j = softcap * tanh(s_j / softcap) (Gemma-2 logit soft-capping). Key j is admitted "
      "when all of: mask[i, j] (if a mask is given); j <= p (if causal or window > 0); j > p - window or "
      "j < sink (if window > 0) — the same convention as sliding_window_mask. The weights are the softmax of "
      "the admitted scores (max-subtracted) and out[b, i, h, :] = sum_j w_j v[b, j, g, :]; a row with no "
      "admitted key is 0. Intermediate arithmetic is carried in `acc`, the result rounded once.";
  d.inputs = {"q", "k", "v", "mask"};
  d.min_inputs = 3;
  d.max_inputs = 4;
  d.attrs = {attr_float("scale", 0.0, "score scale; 0 means 1/sqrt(D)"),
             attr_bool("causal", false, "admit only keys j <= p"),
             attr_int("window", 0, "sliding window size (0: none); implies causal"),
             attr_int("sink", 0, "attention sinks kept visible by the window"),
             attr_sym("offset", sym::Expr(0), "absolute position of query row 0"),
             attr_float("softcap", 0.0, "logit soft-cap (0: none)"), attr_acc()};
  d.pattern = OpPattern::Opaque;
  d.infer = [](const InferContext& ctx) {
    for (size_t i = 0; i < 3; ++i) {
      require_rank(ctx, i, 4);
      require_same_dtype(ctx, 0, i);
    }
    require_float(ctx, 0);
    accumulator(ctx, input(ctx, 0).dtype);
    const auto& q = input(ctx, 0).shape;
    const auto& k = input(ctx, 1).shape;
    const auto& v = input(ctx, 2).shape;
    require_equal_dims(ctx, q[0], k[0], "batch of q and k");
    require_equal_dims(ctx, q[0], v[0], "batch of q and v");
    require_equal_dims(ctx, k[1], v[1], "sequence length of k and v");
    require_equal_dims(ctx, k[2], v[2], "kv heads of k and v");
    require_equal_dims(ctx, q[3], k[3], "head dim of q and k");
    if (!k[2].is_const() || !q[2].is_const()) fail(ctx, ErrorKind::Shape, "head counts must be constants");
    if (q[2].value() % k[2].value() != 0) {
      fail(ctx, ErrorKind::Shape, "query heads {} are not a multiple of kv heads {}", q[2].value(), k[2].value());
    }
    if (has_input(ctx, 3)) {
      require_dtype(ctx, 3, DType::boolean);
      require_rank(ctx, 3, 2);
      require_equal_dims(ctx, input(ctx, 3).shape[0], q[1], "mask rows and Sq");
      require_equal_dims(ctx, input(ctx, 3).shape[1], k[1], "mask columns and Skv");
    }
    if (ctx.attrs.get_int("window") < 0) fail(ctx, ErrorKind::Attribute, "window must be >= 0");
    if (ctx.attrs.get_int("sink") < 0) fail(ctx, ErrorKind::Attribute, "sink must be >= 0");
    if (ctx.attrs.get_float("softcap") < 0) fail(ctx, ErrorKind::Attribute, "softcap must be >= 0");
    return std::vector<TensorType>{TensorType{input(ctx, 0).dtype, {q[0], q[1], q[2], v[3]}}};
  };
  r.add(std::move(d));
}

void rope_op(OpRegistry& r) {
  OpDef d;
  d.name = "rope";
  d.family = "attention";
  d.summary = "rotary position embedding";
  d.semantics =
      "x: [B, S, H, D] with D even. Token s has position p = offset + s. For i in [0, D/2): "
      "angle = p * theta^(-2i/D); the pair (x1, x2) is rotated to (x1 cos(angle) - x2 sin(angle), "
      "x1 sin(angle) + x2 cos(angle)). style=\"neox\" pairs x[..., i] with x[..., i + D/2] (rotate_half, used by "
      "Llama, Gemma, Mistral); style=\"interleaved\" pairs x[..., 2i] with x[..., 2i + 1] (GPT-J). The angle "
      "is defined exactly; implementations compute it in at least f32. Gemma-3 uses theta = 10000 on local "
      "layers and 1000000 on global layers.";
  d.inputs = {"x"};
  d.attrs = {attr_float("theta", 10000.0, "rotary base"), attr_sym("offset", sym::Expr(0), "position of token 0"),
             attr_string("style", "neox", {"neox", "interleaved"}, "how dims are paired")};
  d.pattern = OpPattern::Injective;
  d.infer = [](const InferContext& ctx) {
    require_float(ctx, 0);
    require_rank(ctx, 0, 4);
    const sym::Expr& dim = input(ctx, 0).shape[3];
    if (sym::prove_divisible(dim, 2, ctx.ranges) != sym::Truth::True) {
      fail(ctx, ErrorKind::Shape, "head dim {} is not provably even", sym::to_string(dim));
    }
    if (ctx.attrs.get_float("theta") <= 1.0) fail(ctx, ErrorKind::Attribute, "theta must be > 1");
    return std::vector<TensorType>{input(ctx, 0)};
  };
  r.add(std::move(d));
}

}  // namespace

void register_attention_ops(OpRegistry& r) {
  mask_op(r, false);
  mask_op(r, true);
  attention_op(r);
  rope_op(r);
}

}  // namespace difftest::ops
