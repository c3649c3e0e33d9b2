// 4-bit weight quantization. The three formats differ in exactly the details that real bugs
// get wrong — nibble order, storage word, zero point, group layout, scale dtype — so each is
// spelled out here and everything else (reference, lowering, tolerance) follows this text.
#include "compiler/ops/infer_util.h"

namespace difftest::ops {

namespace {

struct Format {
  const char* name;
  DType scale_dtype;    // dtype of the stored scales and of MLC's quantization arithmetic
  DType storage_dtype;  // packed code storage
  DType default_out;    // dequantize's result dtype when `dtype` is absent
};

constexpr Format kFormats[] = {
    {"q4f16_1", DType::f16, DType::u32, DType::f16},
    {"q4f32_1", DType::f32, DType::u32, DType::f32},
    {"q4_0", DType::f16, DType::u8, DType::f32},
};

const Format& format_of(const InferContext& ctx) {
  const std::string& f = ctx.attrs.get_string("format");
  for (const auto& fmt : kFormats) {
    if (f == fmt.name) return fmt;
  }
  fail(ctx, ErrorKind::Attribute, "unknown format \"{}\"", f);
}

bool is_ggml(const Format& f) { return f.storage_dtype == DType::u8; }

int64_t checked_group(const InferContext& ctx, const Format& f) {
  const int64_t g = ctx.attrs.get_int("group");
  if (is_ggml(f)) {
    if (g != 32) fail(ctx, ErrorKind::Attribute, "q4_0 blocks hold 32 elements; group must be 32, got {}", g);
  } else if (g < 8 || g % 8 != 0 || g > 4096) {
    fail(ctx, ErrorKind::Attribute, "group must be a multiple of 8 (8 codes per u32 word) in [8, 4096], got {}", g);
  }
  return g;
}

constexpr const char* kFormatsText =
    "Formats (w is [..., N, K], quantized along the last axis K in groups of `group` consecutive elements):\n\n"
    "- `q4f16_1` / `q4f32_1` (MLC-LLM GroupQuantize, NK layout): max_int = 7. Per group, "
    "scale = max|w| / 7 computed in the scale dtype (f16 resp. f32; w is first converted to it), stored in "
    "that dtype. Code q = clip(round_half_even(fl(fl(w / scale) + 7)), 0, 14) with fl the rounding to the "
    "scale dtype; an all-zero group has scale 0 and codes 7. Codes are 0..14, zero point 7. Storage: u32 "
    "words, 8 codes per word, element k of a row in word k // 8 at bits [4 (k % 8), 4 (k % 8) + 4) — "
    "element r of a word sits in bits [4r, 4r+4), lowest nibble first. Rows are padded to whole groups: "
    "packed is u32[..., N, ceil(K / group) * group / 8] with zero nibbles after K, scales is "
    "[..., N, ceil(K / group)]. K need not be a multiple of the group: the last group is partial and its "
    "scale covers only the real elements. Dequantize: w = (q - 7) * scale[k // group], one rounding to the "
    "result dtype (default: the scale dtype).\n"
    "- `q4_0` (GGML block_q4_0): blocks of 32 elements (group must be 32, K a multiple of 32). Per block, "
    "in f32: m = the element of largest magnitude (the first one on ties), d = m / -8, id = 1/d (0 when "
    "d = 0), q = min(15, max(0, trunc(w * id + 8.5))). Codes are 0..15, zero point 8; the scale d is stored "
    "as f16 (round to nearest even) while the codes use the unrounded f32 d, as GGML does. Storage: u8, 16 "
    "bytes per block; byte j of a block holds element j in its low nibble and element j + 16 in its high "
    "nibble. packed is u8[..., N, K / 2], scales f16[..., N, K / 32]. GGML interleaves d with the 16 "
    "bytes in one 18-byte struct; difftest keeps d in the separate scales tensor, with the same nibble "
    "layout. Dequantize: w = (q - 8) * d, exact in f32, one rounding to the result dtype (default f32).";

void add_quantize(OpRegistry& r) {
  OpDef d;
  d.name = "quantize";
  d.family = "quantization";
  d.summary = "pack float weights into 4-bit codes and per-group scales";
  d.semantics = std::string("Returns (packed, scales) for the float weight w.\n\n") + kFormatsText;
  d.inputs = {"w"};
  d.attrs = {attr_string_required("format", {"q4f16_1", "q4f32_1", "q4_0"}, "packing format"),
             attr_int_required("group", "elements per scale group (32 for q4_0)")};
  d.num_results = [](const Attrs&) { return 2; };
  d.pattern = OpPattern::Opaque;
  d.infer = [](const InferContext& ctx) {
    const Format& f = format_of(ctx);
    const int64_t group = checked_group(ctx, f);
    require_float(ctx, 0);
    require_min_rank(ctx, 0, 1);
    const TensorType& w = input(ctx, 0);
    const sym::Expr& k = w.shape.back();
    std::vector<sym::Expr> packed = w.shape, scales = w.shape;
    if (is_ggml(f)) {
      if (sym::prove_divisible(k, 32, ctx.ranges) != sym::Truth::True) {
        fail(ctx, ErrorKind::Shape, "q4_0 needs K provably a multiple of 32, got K = {}", sym::to_string(k));
      }
      packed.back() = simp(ctx, sym::floordiv(k, 2));
      scales.back() = simp(ctx, sym::floordiv(k, 32));
    } else {
      sym::Expr groups = simp(ctx, sym::floordiv(k + (group - 1), group));
      packed.back() = simp(ctx, groups * (group / 8));
      scales.back() = groups;
    }
    return std::vector<TensorType>{TensorType{f.storage_dtype, packed}, TensorType{f.scale_dtype, scales}};
  };
  r.add(std::move(d));
}

void add_dequantize(OpRegistry& r) {
  OpDef d;
  d.name = "dequantize";
  d.family = "quantization";
  d.summary = "decode 4-bit codes and per-group scales into float weights";
  d.semantics = std::string("Inverse of quantize: returns w of shape [..., N, K].\n\n") + kFormatsText;
  d.inputs = {"packed", "scales"};
  d.min_inputs = d.max_inputs = 2;
  d.attrs = {attr_string_required("format", {"q4f16_1", "q4f32_1", "q4_0"}, "packing format"),
             attr_int_required("group", "elements per scale group (32 for q4_0)"),
             attr_sym("k", sym::Expr(0), "K when the last group is partial (0: every packed element)"),
             attr_opt_dtype("dtype", "result dtype (absent: f16 for q4f16_1, f32 for q4f32_1 and q4_0)")};
  d.pattern = OpPattern::Injective;
  d.infer = [](const InferContext& ctx) {
    const Format& f = format_of(ctx);
    const int64_t group = checked_group(ctx, f);
    require_dtype(ctx, 0, f.storage_dtype);
    require_dtype(ctx, 1, f.scale_dtype);
    require_min_rank(ctx, 0, 1);
    const TensorType& packed = input(ctx, 0);
    const TensorType& scales = input(ctx, 1);
    if (scales.rank() != packed.rank()) fail(ctx, ErrorKind::Shape, "packed and scales need the same rank");
    for (int i = 0; i + 1 < packed.rank(); ++i) {
      require_equal_dims(ctx, packed.shape[i], scales.shape[i], fmt::format("dim {} of packed and scales", i));
    }
    const sym::Expr& words = packed.shape.back();
    const sym::Expr& groups = scales.shape.back();
    sym::Expr k;
    if (is_ggml(f)) {
      require_equal_dims(ctx, words, simp(ctx, groups * 16), "packed bytes and 16 per block");
      k = simp(ctx, groups * 32);
    } else {
      require_equal_dims(ctx, words, simp(ctx, groups * (group / 8)), "packed words and group/8 per group");
      k = simp(ctx, words * 8);
    }
    const sym::Expr& k_attr = ctx.attrs.get_sym("k");
    if (!k_attr.is_const(0)) {
      if (is_ggml(f)) fail(ctx, ErrorKind::Attribute, "q4_0 has whole blocks; k must be 0");
      if (!provably_ge(ctx, k_attr, 1) ||
          !provably_equal(ctx, sym::floordiv(k_attr + (group - 1), group), groups)) {
        fail(ctx, ErrorKind::Shape, "k = {} does not fill {} groups of {}", sym::to_string(k_attr),
             sym::to_string(groups), group);
      }
      k = k_attr;
    }
    const DType out = ctx.attrs.get_opt_dtype("dtype").value_or(f.default_out);
    if (!is_float(out)) fail(ctx, ErrorKind::Attribute, "dtype must be a float dtype");
    std::vector<sym::Expr> shape = packed.shape;
    shape.back() = k;
    return std::vector<TensorType>{TensorType{out, shape}};
  };
  r.add(std::move(d));
}

}  // namespace

void register_quantization_ops(OpRegistry& r) {
  add_quantize(r);
  add_dequantize(r);
}

}  // namespace difftest::ops
