// Lowerings of quantize and dequantize for the MLC (q4f16_1, q4f32_1) and GGML (q4_0) 4-bit
// formats, from the bit layouts of compiler/ops/quantization.cc. The packing is written with
// integer shifts and masks on the storage dtype; the float arithmetic follows each format's
// definition operation by operation, so exact weights give bit-identical codes and scales.
#include <utility>

#include "compiler/faults/faults.h"
#include "compiler/passes/legalize/lowering.h"

namespace difftest::passes {

// Test faults of this file (docs/faults.md): off unless switched on.

const faults::Fault kDequantizeGroupIndexTail({
    .name = "dequantize-group-index-tail",
    .pass = "LegalizeOps",
    .description = "The dequantize lowering indexes the scales with a row stride of K // group instead of ceil(K / "
        "group), so when the group does not divide K (a partial last group) every row after the first reads another "
        "row's scales: a group-index bug on the partial-tail path of a quantized weight",
    .models = "a group-index bug on the partial-tail path of a quantized weight",
});

const faults::Fault kQ4_0NibbleOrderSwapped({
    .name = "q4-0-nibble-order-swapped",
    .pass = "LegalizeOps",
    .description = "The dequantize lowering decodes q4_0 element j (j < 16) from the high nibble of byte j and "
        "element j + 16 from the low one: a decoder written for the sequential nibble order (2j low, 2j + 1 high) "
        "reading GGML's split block layout",
    .models = "a decoder written for the sequential nibble order (element 2j low, 2j + 1 high) reading GGML's split "
        "`block_q4_0` layout",
});

const faults::Fault kQ4f16_1ZeroPoint8({
    .name = "q4f16-1-zero-point-8",
    .pass = "LegalizeOps",
    .description = "The dequantize lowering subtracts 8 instead of 7 from q4f16_1 codes, so every weight is one "
        "scale too small: GGML's zero point applied to MLC's symmetric 0..14 codes (a zero-point mismatch between "
        "the quantizer and a dequantizer shared across formats)",
    .models = "a zero-point mismatch between quantizer and dequantizer: GGML's zero point applied to MLC's "
        "symmetric 0..14 codes by a decoder shared between formats",
});

namespace {

using loop::BinOp;
using loop::Expr;
using loop::Stmt;

bool is_ggml(const LowerContext& c) { return c.attrs().get_string("format") == "q4_0"; }
DType scale_dtype(const LowerContext& c) { return c.attrs().get_string("format") == "q4f32_1" ? DType::f32 : DType::f16; }

Expr shr(const Expr& a, const Expr& b) { return Expr::binary(BinOp::Shr, a, b); }
Expr shl(const Expr& a, const Expr& b) { return Expr::binary(BinOp::Shl, a, b); }
Expr bit_and(const Expr& a, const Expr& b) { return Expr::binary(BinOp::BitAnd, a, b); }
Expr bit_or(const Expr& a, const Expr& b) { return Expr::binary(BinOp::BitOr, a, b); }
Expr fabs(const Expr& x) { return Expr::call("fabs", {x}); }

// The weight tensor [..., N, K] seen as rows of K: the leading dims flatten into one.
Expr row_count(const std::vector<Expr>& shape) {
  Expr rows = 1;
  for (size_t d = 0; d + 1 < shape.size(); ++d) rows = rows * shape[d];
  return rows;
}

// --------------------------------------------------------------------------- MLC quantize

// Per (row, group): scale = fl(max |fl(w)| / 7) over the group's real elements, then 8 codes
// per u32 word, element e of a word in bits [4e, 4e + 4); padding after K stays 0.
class MlcQuantize {
 public:
  explicit MlcQuantize(LowerContext& c)
      : c_(c), t_(scale_dtype(c)), k_(c.in_shape(0).back()), group_(c.attrs().get_int("group")) {}

  Stmt lower() {
    const Expr groups = c_.out_shape(1).back();
    return loop_nest(c_, {row_count(c_.in_shape(0)), groups}, [&](const std::vector<Expr>& idx) {
      return group_stmt(idx[0], idx[1], groups);
    });
  }

 private:
  Expr weight(const Expr& row, const Expr& k) const { return loop::cast(t_, c_.in[0][row * k_ + k]); }

  Stmt group_stmt(const Expr& row, const Expr& g, const Expr& groups) {
    const Expr lo = g * group_;
    return reduce_into(
        c_, t_, loop::imm(0, t_), group_,
        [&](const Expr& acc, const Expr& e) {
          const Expr k = lo + e;
          // Padding elements load an in-bounds element and count as 0.
          return loop::max(acc, loop::select(k < k_, fabs(weight(row, loop::min(k, k_ - 1))), loop::imm(0, t_)));
        },
        [&](const Expr& max_abs) {
          const loop::Buffer scale = c_.scratch("scale", t_);
          const Stmt words = pack_words(row, g, groups, scale[0]);
          return Stmt::allocate(scale, loop::Scope::Local,
                                Stmt::seq({Stmt::store(scale, 0, max_abs / loop::imm(7, t_)),
                                           Stmt::store(c_.out[1], row * groups + g, scale[0]), words}));
        });
  }

  // clip(round_half_even(fl(fl(w / scale) + 7)), 0, 14); 7 for an all-zero group.
  Expr code(const Expr& row, const Expr& k, const Expr& scale) const {
    // Padding elements load the row's last real element (in bounds) and become 0 below.
    const Expr u = weight(row, loop::min(k, k_ - 1)) / scale + loop::imm(7, t_);
    const Expr q = loop::min(loop::max(Expr::call("round", {u}), loop::imm(0, t_)), loop::imm(14, t_));
    const Expr c = loop::select(scale == loop::imm(0, t_), loop::imm(7, DType::u32), loop::cast(DType::u32, q));
    return loop::select(k < k_, c, loop::imm(0, DType::u32));
  }

  Stmt pack_words(const Expr& row, const Expr& g, const Expr& groups, const Expr& scale) {
    const int64_t words_per_group = group_ / 8;
    const Expr per_row = groups * words_per_group;
    return loop_nest(c_, {words_per_group}, [&](const std::vector<Expr>& w) {
      const Expr word = g * words_per_group + w[0];
      return reduce_into(
          c_, DType::u32, loop::imm(0, DType::u32), 8,
          [&](const Expr& acc, const Expr& e) {
            return bit_or(acc, shl(code(row, word * 8 + e, scale), loop::cast(DType::u32, e * 4)));
          },
          [&](const Expr& bits) { return Stmt::store(c_.out[0], row * per_row + word, bits); });
    });
  }

  LowerContext& c_;
  DType t_;
  Expr k_;
  int64_t group_;
};

// -------------------------------------------------------------------------- GGML quantize

// Per 32-element block, in f32: m = the first element of largest magnitude, d = m / -8,
// id = 1/d (0 when d = 0), q = min(15, max(0, trunc(w * id + 8.5))); d stored as f16. Byte j
// of a block holds element j in its low nibble and j + 16 in its high nibble.
Stmt ggml_quantize(LowerContext& c) {
  const Expr k = c.in_shape(0).back();
  const Expr blocks = c.out_shape(1).back();
  return loop_nest(c, {row_count(c.in_shape(0)), blocks}, [&](const std::vector<Expr>& idx) {
    const Expr base = idx[0] * k + idx[1] * 32;
    auto w = [&](const Expr& e) { return loop::cast(DType::f32, c.in[0][base + e]); };
    const loop::Buffer amax = c.scratch("amax", DType::f32), m = c.scratch("m", DType::f32);
    const loop::Buffer d = c.scratch("d", DType::f32), id = c.scratch("id", DType::f32);
    const Expr e = c.fresh_var("e");
    const Expr larger = fabs(w(e)) > amax[0];  // strict: the first one wins ties
    const Stmt scan = Stmt::for_loop(e, 0, 32, loop::ForKind::Serial,
                                     Stmt::seq({Stmt::store(m, 0, loop::select(larger, w(e), m[0])),
                                                Stmt::store(amax, 0, loop::select(larger, fabs(w(e)), amax[0]))}));
    const Expr zero = loop::imm(0, DType::f32);
    auto code = [&](const Expr& j) {
      const Expr t = w(j) * id[0] + loop::imm(8.5, DType::f32);
      const Expr q = loop::cast(DType::i32, t);  // truncates toward zero
      return loop::cast(DType::u8, loop::min(loop::max(q, loop::imm(0, DType::i32)), loop::imm(15, DType::i32)));
    };
    const Stmt bytes = loop_nest(c, {16}, [&](const std::vector<Expr>& j) {
      const Expr byte = bit_or(code(j[0]), shl(code(j[0] + 16), loop::imm(4, DType::u8)));
      return Stmt::store(c.out[0], idx[0] * (blocks * 16) + idx[1] * 16 + j[0], byte);
    });
    Stmt body = Stmt::seq({
        Stmt::store(amax, 0, zero), Stmt::store(m, 0, zero), scan,
        Stmt::store(d, 0, m[0] / loop::imm(-8, DType::f32)),
        Stmt::store(id, 0, loop::select(d[0] != zero, loop::imm(1, DType::f32) / d[0], zero)),
        Stmt::store(c.out[1], idx[0] * blocks + idx[1], loop::cast(DType::f16, d[0])),
        bytes,
    });
    for (const auto& b : {amax, m, d, id}) body = Stmt::allocate(b, loop::Scope::Local, body);
    return body;
  });
}

// ------------------------------------------------------------------------------ dequantize

// (q - zero_point) * scale is exact in f32 for an f16 scale; for an f32 scale it is exact in
// f64, or correctly rounded by one f32 multiply when f32 is also the result dtype.
DType product_type(DType scale, DType out) {
  if (out == DType::f64) return DType::f64;
  if (scale == DType::f16 || out == DType::f32) return DType::f32;
  return DType::f64;
}

// The 4-bit code of element k of a row (as i32) from the row's packed storage starting at `base`.
Expr mlc_code(const LowerContext& c, const Expr& base, const Expr& k) {
  const Expr word = c.in[0][base + floordiv(k, 8)];
  const Expr shift = loop::cast(DType::u32, floormod(k, 8) * 4);
  return loop::cast(DType::i32, bit_and(shr(word, shift), loop::imm(15, DType::u32)));
}

Expr ggml_code(const LowerContext& c, const Expr& base, const Expr& k) {
  const Expr at = floormod(k, 32);
  const Expr byte = c.in[0][base + floordiv(k, 32) * 16 + floormod(at, 16)];
  Expr low = bit_and(byte, loop::imm(15, DType::u8)), high = shr(byte, loop::imm(4, DType::u8));
  // A decoder written for a sequential nibble layout (element 2j low, 2j + 1 high) reading
  // GGML's split layout gets the two halves of every byte backwards.
  if (c.compile.fault(kQ4_0NibbleOrderSwapped)) std::swap(low, high);
  return loop::cast(DType::i32, loop::select(at < 16, low, high));
}

Stmt dequantize(LowerContext& c) {
  const bool ggml = is_ggml(c);
  const int64_t group = ggml ? 32 : c.attrs().get_int("group");
  const Expr per_row = c.in_shape(0).back(), groups = c.in_shape(1).back();
  const Expr k = c.out_shape().back();
  const DType out = c.out_dtype(), pt = product_type(c.in_dtype(1), out);
  int64_t zero_point = ggml ? 8 : 7;
  // GGML's zero point applied to MLC codes (a dequantizer shared between the two formats).
  if (c.compile.fault(kQ4f16_1ZeroPoint8) && c.attrs().get_string("format") == "q4f16_1") zero_point = 8;
  Expr scales_per_row = groups;
  // The scale row stride taken as K // group, forgetting the partial last group: right only
  // when the group divides K.
  if (c.compile.fault(kDequantizeGroupIndexTail)) scales_per_row = floordiv(k, group);
  return loop_nest(c, {row_count(c.out_shape()), k}, [&](const std::vector<Expr>& idx) {
    const Expr& row = idx[0];
    const Expr q = ggml ? ggml_code(c, row * per_row, idx[1]) : mlc_code(c, row * per_row, idx[1]);
    const Expr level = loop::cast(pt, q - loop::imm(zero_point, DType::i32));
    const Expr scale = loop::cast(pt, c.in[1][row * scales_per_row + floordiv(idx[1], group)]);
    return Stmt::store(c.out[0], row * k + idx[1], loop::cast(out, level * scale));
  });
}

}  // namespace

void register_quantization_lowerings(LoweringTable& t) {
  t.add("quantize", [](LowerContext& c) { return is_ggml(c) ? ggml_quantize(c) : MlcQuantize(c).lower(); });
  t.add("dequantize", dequantize);
}

}  // namespace difftest::passes
