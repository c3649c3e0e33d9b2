// Lowerings of the attention family: the masks, scaled dot-product attention and rotary
// embeddings. Query row i sits at absolute position p = offset + i and key column j at j; the
// admission rule (mask operand, causal, window, sinks) is written once and shared by the masks
// and attention, so the two can never disagree on an off-by-one.
#include <cmath>

#include "compiler/faults/faults.h"
#include "compiler/passes/legalize/lowering.h"

namespace difftest::passes {

// Test faults of this file (docs/faults.md): off unless switched on.

const faults::Fault kGqaKvHeadModulo({
    .name = "gqa-kv-head-modulo",
    .pass = "LegalizeOps",
    .description = "The attention lowering maps query head h to kv head h % Hkv instead of h / (Hq / Hkv): right "
        "without grouping or with one kv head, wrong for grouped-query attention with several kv heads: tile where "
        "repeat_interleave was meant",
    .models = "tile where repeat_interleave was meant (onnx/onnx#7274, ONNX Attention's GQA function body)",
    .held_out = true,
});

const faults::Fault kRopeThetaLocalEverywhere({
    .name = "rope-theta-local-everywhere",
    .pass = "LegalizeOps",
    .description = "The rope lowering uses theta 10000 whatever the op's theta, so rotary embeddings of global "
        "layers (Gemma-3 uses theta 1e6 there, 1e4 on local layers) rotate with the local base: a per-layer RoPE "
        "parameter replaced by the model-wide default",
    .models = "a per-layer RoPE base replaced by the model-wide default: Gemma-3 uses 10000 on its sliding-window "
        "layers and 1,000,000 on its global ones",
});

const faults::Fault kSlidingWindowSinkIgnored({
    .name = "sliding-window-sink-ignored",
    .pass = "LegalizeOps",
    .description = "The attention and sliding_window_mask lowerings drop the sink keys of a sliding window (j < "
        "sink stays hidden once it leaves the window), so rows past the window lose their attention sinks: "
        "StreamingLLM-style sinks ignored by a kernel that only implements the window",
    .models = "StreamingLLM-style attention sinks dropped by a kernel that only implements the window (Mistral's "
        "SWA with sinks, GPT-OSS)",
});

const faults::Fault kWindowStartIgnoresOffset({
    .name = "window-start-ignores-offset",
    .pass = "LegalizeOps",
    .description = "The attention and mask lowerings start a sliding window at row index i - window instead of "
        "position offset + i - window, so with a KV-cache offset each row also admits up to `offset` keys before "
        "its window; right at offset 0: a window computed in query coordinates, not in cache positions",
    .models = "causal/window alignment with a KV-cache offset (Dao-AILab/flash-attention#951, top-left vs "
        "bottom-right alignment)",
    .held_out = true,
});

namespace {

using loop::Expr;
using loop::Stmt;

// Which keys a query row may attend to (the convention of compiler/ops/attention.cc).
struct Admission {
  bool causal = false;
  int64_t window = 0;  // 0: no window
  int64_t sink = 0;
  Expr offset = 0;
  loop::Buffer mask;  // optional bool[Sq, Skv]
  Expr kv_len = 0;    // the mask's row length
  // Faults window-start-ignores-offset and sliding-window-sink-ignored, of the compile.
  bool window_from_row = false;
  bool sinks_dropped = false;

  void take_faults(const CompileContext& compile) {
    window_from_row = compile.fault(kWindowStartIgnoresOffset);
    sinks_dropped = compile.fault(kSlidingWindowSinkIgnored);
  }

  Expr admits(const Expr& i, const Expr& j) const {
    const Expr p = offset + i;
    Expr ok = loop::imm(1, DType::boolean);
    if (mask.defined()) ok = mask[i * kv_len + j];
    if (causal || window > 0) ok = ok && j <= p;
    if (window > 0) {
      Expr in_window = j > (window_from_row ? i : p) - window;
      if (sink > 0 && !sinks_dropped) in_window = in_window || j < sink;
      ok = ok && in_window;
    }
    return ok;
  }
};

Lowering mask_lowering(bool sliding) {
  return [sliding](LowerContext& c) {
    Admission a{true, sliding ? c.attrs().get_int("window") : 0, sliding ? c.attrs().get_int("sink") : 0,
                to_loop(c.attrs().get_sym("offset")), {}, 0};
    a.take_faults(c.compile);
    return loop_nest(c, c.out_shape(), [&](const std::vector<Expr>& idx) {
      return Stmt::store(c.out[0], flat_index(idx, c.out_shape()), a.admits(idx[0], idx[1]));
    });
  };
}

// ------------------------------------------------------------------------------ attention

// Index expressions and dtypes of one attention call.
struct AttentionShape {
  Expr batch, sq, hq, d, skv, hkv, dv;
  DType acc, out;
};

class AttentionLowering {
 public:
  explicit AttentionLowering(LowerContext& c) : c_(c) {
    const auto& q = c.in_shape(0);
    const auto& k = c.in_shape(1);
    const auto& v = c.in_shape(2);
    s_ = {q[0], q[1], q[2], q[3], k[1], k[2], v[3], c.acc(c.out_dtype()), c.out_dtype()};
    adm_.causal = c.attrs().get_bool("causal");
    adm_.window = c.attrs().get_int("window");
    adm_.sink = c.attrs().get_int("sink");
    adm_.offset = to_loop(c.attrs().get_sym("offset"));
    if (c.in.size() > 3) adm_.mask = c.in[3];
    adm_.kv_len = s_.skv;
    adm_.take_faults(c.compile);
  }

  // One row of weights in `acc`, reused by every (b, i, h): sized by the symbolic Skv, so it
  // lives on the heap once per call rather than per row.
  Stmt lower() {
    weights_ = c_.scratch("weights", s_.acc, {s_.skv});
    max_ = c_.scratch("row_max", s_.acc);
    seen_ = c_.scratch("seen", DType::boolean);
    sum_ = c_.scratch("row_sum", s_.acc);
    const Stmt rows = loop_nest(c_, {s_.batch, s_.sq, s_.hq}, [&](const std::vector<Expr>& idx) {
      return row(idx[0], idx[1], idx[2]);
    });
    Stmt body = Stmt::allocate(sum_, loop::Scope::Local, rows);
    body = Stmt::allocate(seen_, loop::Scope::Local, body);
    body = Stmt::allocate(max_, loop::Scope::Local, body);
    return Stmt::allocate(weights_, loop::Scope::Global, body);
  }

 private:
  Expr acc_load(const loop::Buffer& b, const Expr& index) const { return loop::cast(s_.acc, b[index]); }
  Expr zero() const { return loop::imm(0, s_.acc); }

  // The kv head query head h reads: consecutive query heads share one.
  Expr kv_head(const Expr& h) const {
    if (c_.compile.fault(kGqaKvHeadModulo)) return floormod(h, s_.hkv);
    return floordiv(h, floordiv(s_.hq, s_.hkv));
  }

  Expr scale() const {
    const double attr = c_.attrs().get_float("scale");
    if (attr != 0) return loop::imm(attr, s_.acc);
    // 1/sqrt(D) rounded once to acc, whatever D is (it may be symbolic).
    return loop::cast(s_.acc, loop::imm(1, DType::f64) / Expr::call("sqrt", {loop::cast(DType::f64, s_.d)}));
  }

  // s = scale * dot(q[b, i, h, :], k[b, j, g, :]), soft-capped, all in acc.
  Stmt score_into(const Expr& b, const Expr& i, const Expr& h, const Expr& j, const std::function<Stmt(const Expr&)>& then) {
    const Expr g = kv_head(h);
    return reduce_into(
        c_, s_.acc, zero(), s_.d,
        [&](const Expr& acc, const Expr& d) {
          const Expr qv = acc_load(c_.in[0], flat_index({b, i, h, d}, c_.in_shape(0)));
          const Expr kv = acc_load(c_.in[1], flat_index({b, j, g, d}, c_.in_shape(1)));
          return acc + qv * kv;
        },
        [&](const Expr& dot) {
          Expr s = dot * scale();
          const double cap = c_.attrs().get_float("softcap");
          if (cap > 0) {
            const Expr capv = loop::imm(cap, s_.acc);
            s = capv * Expr::call("tanh", {s / capv});
          }
          return then(s);
        });
  }

  // Pass 1: the admitted scores into weights_, their max into max_, seen_ whether any key is.
  Stmt scores_and_max(const Expr& b, const Expr& i, const Expr& h) {
    const Expr j = c_.fresh_var("j");
    const Stmt admitted = score_into(b, i, h, j, [&](const Expr& s) {
      return Stmt::seq({Stmt::store(weights_, j, s),
                        Stmt::store(max_, 0, loop::select(seen_[0], loop::max(max_[0], s), s)),
                        Stmt::store(seen_, 0, loop::imm(1, DType::boolean))});
    });
    return Stmt::seq({Stmt::store(seen_, 0, loop::imm(0, DType::boolean)),
                      Stmt::for_loop(j, 0, s_.skv, loop::ForKind::Serial,
                                     Stmt::if_then_else(adm_.admits(i, j), admitted))});
  }

  // Pass 2: exp(s - max) for admitted keys (0 for the others) and their sum; pass 3: divide.
  Stmt softmax(const Expr& i) {
    const Expr j = c_.fresh_var("j");
    const Expr e = Expr::call("exp", {weights_[j] - max_[0]});
    const Stmt exps = Stmt::if_then_else(adm_.admits(i, j),
                                         Stmt::seq({Stmt::store(weights_, j, e),
                                                    Stmt::store(sum_, 0, sum_[0] + weights_[j])}),
                                         Stmt::store(weights_, j, zero()));
    const Expr j2 = c_.fresh_var("j");
    return Stmt::seq({Stmt::store(sum_, 0, zero()), Stmt::for_loop(j, 0, s_.skv, loop::ForKind::Serial, exps),
                      Stmt::for_loop(j2, 0, s_.skv, loop::ForKind::Serial,
                                     Stmt::store(weights_, j2, weights_[j2] / sum_[0]))});
  }

  // Pass 4: out[b, i, h, :] = sum_j w_j v[b, j, g, :]; non-admitted keys have weight 0.
  Stmt weighted_values(const Expr& b, const Expr& i, const Expr& h) {
    const Expr g = kv_head(h);
    return loop_nest(c_, {s_.dv}, [&](const std::vector<Expr>& dd) {
      return reduce_into(
          c_, s_.acc, zero(), s_.skv,
          [&](const Expr& acc, const Expr& j) {
            return acc + weights_[j] * acc_load(c_.in[2], flat_index({b, j, g, dd[0]}, c_.in_shape(2)));
          },
          [&](const Expr& acc) { return Stmt::store(c_.out[0], out_index(b, i, h, dd[0]), loop::cast(s_.out, acc)); });
    });
  }

  Expr out_index(const Expr& b, const Expr& i, const Expr& h, const Expr& d) const {
    return flat_index({b, i, h, d}, c_.out_shape());
  }

  // A row with no admitted key is 0 (the documented convention, not NaN from 0/0).
  Stmt empty_row(const Expr& b, const Expr& i, const Expr& h) {
    return loop_nest(c_, {s_.dv}, [&](const std::vector<Expr>& dd) {
      return Stmt::store(c_.out[0], out_index(b, i, h, dd[0]), loop::imm(0, s_.out));
    });
  }

  Stmt row(const Expr& b, const Expr& i, const Expr& h) {
    return Stmt::seq({scores_and_max(b, i, h),
                      Stmt::if_then_else(seen_[0], Stmt::seq({softmax(i), weighted_values(b, i, h)}),
                                         empty_row(b, i, h))});
  }

  LowerContext& c_;
  AttentionShape s_;
  Admission adm_;
  loop::Buffer weights_, max_, seen_, sum_;
};

// ----------------------------------------------------------------------------------- rope

// Angles, cos/sin and the rotation in f64 (the op asks for at least f32), rounded once.
Stmt rope(LowerContext& c) {
  const auto& shape = c.in_shape(0);
  const Expr half = floordiv(shape[3], 2);
  const bool neox = c.attrs().get_string("style") == "neox";
  const Expr offset = to_loop(c.attrs().get_sym("offset"));
  double theta_value = c.attrs().get_float("theta");
  if (c.compile.fault(kRopeThetaLocalEverywhere)) theta_value = 10000;
  const Expr theta = loop::imm(theta_value, DType::f64);
  const DType t = c.out_dtype();
  return loop_nest(c, {shape[0], shape[1], shape[2], half}, [&](const std::vector<Expr>& idx) {
    const Expr& i = idx[3];
    const Expr pos = loop::cast(DType::f64, offset + idx[1]);
    const Expr exponent = loop::cast(DType::f64, i * -2) / loop::cast(DType::f64, shape[3]);
    const Expr angle = pos * Expr::call("pow", {theta, exponent});
    const Expr cos = Expr::call("cos", {angle}), sin = Expr::call("sin", {angle});
    const Expr d1 = neox ? i : i * 2, d2 = neox ? i + half : i * 2 + 1;
    const Expr at1 = flat_index({idx[0], idx[1], idx[2], d1}, shape);
    const Expr at2 = flat_index({idx[0], idx[1], idx[2], d2}, shape);
    const Expr x1 = loop::cast(DType::f64, c.in[0][at1]), x2 = loop::cast(DType::f64, c.in[0][at2]);
    return Stmt::seq({Stmt::store(c.out[0], at1, loop::cast(t, x1 * cos - x2 * sin)),
                      Stmt::store(c.out[0], at2, loop::cast(t, x1 * sin + x2 * cos))});
  });
}

}  // namespace

void register_attention_lowerings(LoweringTable& t) {
  t.add("causal_mask", mask_lowering(false));
  t.add("sliding_window_mask", mask_lowering(true));
  t.add("attention", [](LowerContext& c) { return AttentionLowering(c).lower(); });
  t.add("rope", rope);
}

}  // namespace difftest::passes
