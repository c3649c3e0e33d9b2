// Emitters of the 4-bit formats (export_context.h). ONNX's own QuantizeLinear and
// DequantizeLinear take no per-group scales before opset 21, so the formats are written as
// runtimes run them:
//   - a dequantize whose only use is the weight of a matmul (transpose_b) or linear becomes
//     ORT's MatMulNBits (com.microsoft): the codes repacked as its bytes (element 2i in the low
//     nibble, 2i + 1 in the high one), the scales flattened, and for q4f16_1 / q4f32_1 an
//     explicit zero point of 7 (MatMulNBits' default is 8, q4_0's);
//   - any other dequantize is unpacked in the graph (BitShift, Mod), cast, centred and scaled
//     per group: the dequantize-then-MatMul form;
//   - quantize is its definition in ONNX ops (max |w| per group, Round, Clip, the codes packed
//     with shifts and sums), so a model that quantizes its own weights exports too.
// docs/onnx.md says which formats map exactly.
#include <fmt/format.h>

#include <cmath>

#include "compiler/sym/sym_simplify.h"
#include "interop/onnx/export_context.h"

namespace difftest::interop {

namespace {

using namespace export_util;

bool is_q4_0(const Binding& b) { return b.attrs().get_string("format") == "q4_0"; }

std::string cast(ModelWriter& w, const std::string& x, DType to, const std::string& hint) {
  ::onnx::NodeProto* n = nullptr;
  const std::string c = w.op("Cast", {x}, hint, &n);
  set_attr(*n, "to", int64_t{onnx_dtype(to)});
  return c;
}

std::string reshaped(ModelWriter& w, const std::string& x, const std::vector<sym::Expr>& dims,
                     const std::string& hint) {
  return w.op("Reshape", {x, w.dims(dims)}, hint);
}

std::string last_axis_slice(ModelWriter& w, const std::string& x, int64_t begin, int64_t end, const std::string& hint) {
  return w.op("Slice", {x, w.int64s({begin}), w.int64s({end}), w.int64s({-1})}, hint);
}

std::string concat_last(ModelWriter& w, const std::vector<std::string>& parts, const std::string& hint) {
  ::onnx::NodeProto* n = nullptr;
  const std::string c = w.op("Concat", parts, hint, &n);
  set_attr(*n, "axis", int64_t{-1});
  return c;
}

std::string shift_right(ModelWriter& w, const std::string& x, const std::string& amounts, const std::string& hint) {
  ::onnx::NodeProto* n = nullptr;
  const std::string s = w.op("BitShift", {x, amounts}, hint, &n);
  auto* a = n->add_attribute();
  a->set_name("direction");
  a->set_type(::onnx::AttributeProto::STRING);
  a->set_s("RIGHT");
  return s;
}

std::vector<sym::Expr> with_last(std::vector<sym::Expr> dims, std::initializer_list<sym::Expr> last) {
  dims.pop_back();
  dims.insert(dims.end(), last);
  return dims;
}

sym::Expr c(int64_t v) { return sym::Expr::constant(v); }

// The 4-bit codes of a packed tensor, in u32, one per element along a last axis of
// `codes_per_row` (q4f16_1/q4f32_1: words of 8 nibbles, lowest first; q4_0: per block of 16
// bytes the low nibbles, then the high ones).
std::string unpacked_codes(ModelWriter& w, const Binding& dq, const sym::Expr& codes_per_row) {
  const Value& packed = dq.args()[0];
  const auto& dims = packed.type().shape;
  const std::string u32 =
      packed.type().dtype == DType::u32 ? w.name_of(packed) : cast(w, w.name_of(packed), DType::u32, "packed_u32");
  const std::string sixteen = w.scalar(DType::u32, 16);
  if (is_q4_0(dq)) {
    const sym::Expr blocks = sym::simplify(sym::floordiv(dims.back(), c(16)));
    const std::string by_block = reshaped(w, u32, with_last(dims, {blocks, c(16)}), "blocks");
    const std::string low = w.op("Mod", {by_block, sixteen}, "low");
    const std::string high =
        shift_right(w, by_block, w.initializer(Tensor::from_ints(DType::u32, {}, {4}), "four"), "high");
    return reshaped(w, concat_last(w, {low, high}, "block_codes"), with_last(dims, {codes_per_row}), "codes");
  }
  const std::string nibbles = shift_right(
      w, w.op("Unsqueeze", {u32, w.int64s({-1})}, "words"),
      w.initializer(Tensor::from_ints(DType::u32, {8}, {0, 4, 8, 12, 16, 20, 24, 28}), "nibble_shifts"), "shifted");
  return reshaped(w, w.op("Mod", {nibbles, sixteen}, "nibbles"), with_last(dims, {codes_per_row}), "codes");
}

int64_t zero_point(const Binding& b) { return is_q4_0(b) ? 8 : 7; }

// The dequantize-then-MatMul form: codes in the working dtype, minus the zero point, times the
// group's scale (one product, exact before the final cast), trimmed to k, cast to the result.
void dequantize(ModelWriter& w, const Binding& b) {
  const auto& out_dims = b.result().type().shape;
  const auto& scale_dims = b.args()[1].type().shape;
  const int64_t group = b.attrs().get_int("group");
  const sym::Expr groups = scale_dims.back();
  const sym::Expr padded = sym::simplify(groups * c(group));
  const DType result = b.result().type().dtype, scale = b.args()[1].type().dtype;
  // (q - zp) * scale has at most 4 + 24 significant bits: exact in f64, and in f32 for f16 scales.
  const DType wd = scale == DType::f32 && result != DType::f32 ? DType::f64 : DType::f32;
  const std::string codes = cast(w, unpacked_codes(w, b, padded), wd, "codes_f");
  const std::string centred = w.op("Sub", {codes, w.scalar(wd, static_cast<double>(zero_point(b)))}, "centred");
  const std::string grouped = reshaped(w, centred, with_last(out_dims, {groups, c(group)}), "grouped");
  const std::string scales = w.op("Unsqueeze", {cast(w, in(w, b, 1), wd, "scales_f"), w.int64s({-1})}, "scales_b");
  std::string weights = reshaped(w, w.op("Mul", {grouped, scales}, "scaled"), with_last(out_dims, {padded}), "rows");
  if (!sym::simplify(padded - out_dims.back()).is_const(0)) {
    weights = w.op("Slice", {weights, w.int64s({0}), w.dims({out_dims.back()}), w.int64s({-1})}, "trimmed");
  }
  set_attr(w.node("Cast", {weights}, {out(w, b)}), "to", int64_t{onnx_dtype(result)});
}

// ---- quantize --------------------------------------------------------------------------------

// Per element of [..., G, group]: the index of the first element of largest magnitude, as a
// one-hot mask (ArgMax takes the first of equal maxima).
std::string first_largest(ModelWriter& w, const std::string& x, int64_t group) {
  ::onnx::NodeProto* n = nullptr;
  const std::string magnitude = w.op("Abs", {x}, "magnitude");
  const std::string largest = w.op("ReduceMax", {magnitude}, "largest", &n);
  set_attr(*n, "axes", std::vector<int64_t>{-1});
  set_attr(*n, "keepdims", int64_t{1});
  const std::string is_largest = cast(w, w.op("Equal", {magnitude, largest}, "is_largest"), DType::i32, "is_largest_i");
  const std::string first = w.op("ArgMax", {is_largest}, "first", &n);
  set_attr(*n, "axis", int64_t{-1});
  set_attr(*n, "keepdims", int64_t{1});
  std::vector<int64_t> positions(static_cast<size_t>(group));
  for (int64_t i = 0; i < group; ++i) positions[static_cast<size_t>(i)] = i;
  return w.op("Equal", {w.initializer(Tensor::from_ints(DType::i64, {group}, positions), "positions"), first},
              "one_hot");
}

std::string sum_last(ModelWriter& w, const std::string& x, bool keep, const std::string& hint) {
  ::onnx::NodeProto* n = nullptr;
  const std::string s = w.op("ReduceSum", {x, w.int64s({-1})}, hint, &n);
  set_attr(*n, "keepdims", int64_t{keep ? 1 : 0});
  return s;
}

// Zeros of `dtype` shaped like `dims` with the last dim `length`.
std::string zeros_after(ModelWriter& w, const std::vector<sym::Expr>& dims, const sym::Expr& length, DType dtype) {
  ::onnx::NodeProto* n = nullptr;
  const std::string zeros = w.op("ConstantOfShape", {w.dims(with_last(dims, {length}))}, "pad", &n);
  set_attr(*n, "value", tensor_to_proto(Tensor::from_doubles(dtype, {1}, {0}), "value"));
  return zeros;
}

// q4f16_1 / q4f32_1: scale = max|w| / 7 in the scale dtype, q = clip(round(w / scale + 7), 0, 14)
// (a zero scale divides by 1: the codes are 7); codes packed 8 to a word as sum q_r 16^r.
std::pair<std::string, std::string> quantize_group(ModelWriter& w, const Binding& b) {
  const auto& w_dims = b.args()[0].type().shape;
  const auto& scale_dims = b.results()[1].type().shape;
  const DType sd = b.results()[1].type().dtype;
  const int64_t group = b.attrs().get_int("group");
  const sym::Expr groups = scale_dims.back(), padded = sym::simplify(groups * c(group));
  std::string x = b.args()[0].type().dtype == sd ? in(w, b, 0) : cast(w, in(w, b, 0), sd, "w_s");
  const sym::Expr padding = sym::simplify(padded - w_dims.back());
  const bool partial = !padding.is_const(0);
  if (partial) x = concat_last(w, {x, zeros_after(w, w_dims, padding, sd)}, "w_padded");
  const std::string grouped = reshaped(w, x, with_last(w_dims, {groups, c(group)}), "w_groups");
  ::onnx::NodeProto* n = nullptr;
  const std::string largest = w.op("ReduceMax", {w.op("Abs", {grouped}, "magnitude")}, "largest", &n);
  set_attr(*n, "axes", std::vector<int64_t>{-1});
  set_attr(*n, "keepdims", int64_t{1});
  const std::string scale = w.op("Div", {largest, w.scalar(sd, 7)}, "scale");
  const std::string zero = w.op("Equal", {scale, w.scalar(sd, 0)}, "scale_zero");
  const std::string divisor = w.op("Where", {zero, w.scalar(sd, 1), scale}, "divisor");
  const std::string shifted = w.op("Add", {w.op("Div", {grouped, divisor}, "ratio"), w.scalar(sd, 7)}, "shifted");
  const std::string q = w.op("Clip", {w.op("Round", {shifted}, "rounded"), w.scalar(sd, 0), w.scalar(sd, 14)}, "q");
  // The padding's codes are zero nibbles, not the 7 a zero weight gets.
  std::string codes = reshaped(w, cast(w, q, DType::i64, "q_i"), with_last(w_dims, {padded}), "q_rows");
  if (partial) {
    const std::string real = w.op("Slice", {codes, w.int64s({0}), w.dims({w_dims.back()}), w.int64s({-1})}, "q_real");
    codes = concat_last(w, {real, zeros_after(w, w_dims, padding, DType::i64)}, "q_padded");
  }
  const std::string by_word =
      reshaped(w, codes, with_last(w_dims, {sym::simplify(sym::floordiv(padded, c(8))), c(8)}), "q_words");
  std::vector<int64_t> weights(8);
  for (int r = 0; r < 8; ++r) weights[static_cast<size_t>(r)] = int64_t{1} << (4 * r);
  const std::string words = sum_last(
      w, w.op("Mul", {by_word, w.initializer(Tensor::from_ints(DType::i64, {8}, weights), "nibble_weights")}, "placed"),
      false, "words");
  return {cast(w, words, DType::u32, "packed"), reshaped(w, scale, scale_dims, "scales")};
}

// q4_0 per 32-block in f32: m the first element of largest magnitude, d = m / -8, id = 1/d (0
// for d = 0), q = min(15, max(0, floor(w * id + 8.5))) (floor is trunc here: w * id >= -8);
// byte j = q_j + 16 q_{j+16}; d stored as f16.
std::pair<std::string, std::string> quantize_q4_0(ModelWriter& w, const Binding& b) {
  const auto& w_dims = b.args()[0].type().shape;
  const auto& scale_dims = b.results()[1].type().shape;
  const std::string x = b.args()[0].type().dtype == DType::f32 ? in(w, b, 0) : cast(w, in(w, b, 0), DType::f32, "w_f");
  const std::string blocks = reshaped(w, x, with_last(w_dims, {scale_dims.back(), c(32)}), "w_blocks");
  const std::string zero = w.scalar(DType::f32, 0);
  const std::string m = sum_last(w, w.op("Where", {first_largest(w, blocks, 32), blocks, zero}, "m_only"), true, "m");
  const std::string d = w.op("Div", {m, w.scalar(DType::f32, -8)}, "d");
  const std::string d_zero = w.op("Equal", {d, zero}, "d_zero");
  const std::string id = w.op(
      "Where",
      {d_zero, zero,
       w.op("Div", {w.scalar(DType::f32, 1), w.op("Where", {d_zero, w.scalar(DType::f32, 1), d}, "d_safe")}, "inv")},
      "id");
  const std::string shifted = w.op("Add", {w.op("Mul", {blocks, id}, "scaled"), w.scalar(DType::f32, 8.5)}, "shifted");
  const std::string q = w.op("Clip", {w.op("Floor", {shifted}, "floored"), zero, w.scalar(DType::f32, 15)}, "q");
  const std::string qi = cast(w, q, DType::i64, "q_i");
  const std::string low = last_axis_slice(w, qi, 0, 16, "q_low"), high = last_axis_slice(w, qi, 16, 32, "q_high");
  const std::string bytes = w.op("Add", {low, w.op("Mul", {high, w.int64s({16})}, "high_nibble")}, "bytes");
  return {reshaped(w, cast(w, bytes, DType::u8, "bytes_u8"), b.results()[0].type().shape, "packed"),
          reshaped(w, cast(w, d, DType::f16, "d_f16"), scale_dims, "scales")};
}

void quantize(ModelWriter& w, const Binding& b) {
  const auto [packed, scales] = is_q4_0(b) ? quantize_q4_0(w, b) : quantize_group(w, b);
  w.node("Identity", {packed}, {w.name_of(b.results()[0])});
  w.node("Identity", {scales}, {w.name_of(b.results()[1])});
}

}  // namespace

// ---- MatMulNBits -------------------------------------------------------------------------------

std::optional<std::string> matmul_nbits_obstacle(const Binding& mm, const Binding& dq) {
  const Value& x = mm.args()[0];
  const int64_t group = dq.attrs().get_int("group");
  const auto& wd = dq.result().type().shape;
  const DType t1 = accumulator_of(mm).value_or(x.type().dtype);
  if (t1 != DType::f32 && t1 != DType::f16)
    return fmt::format("MatMulNBits computes in f32 or f16, not {}", dtype_name(t1));
  if (dq.result().type().dtype != x.type().dtype)
    return std::string("the weights' dtype differs from the activation's");
  const DType scale = dq.args()[1].type().dtype;
  if (scale != t1 && !(scale == DType::f16 && t1 == DType::f32)) {
    return fmt::format("{} scales do not convert exactly to {}", dtype_name(scale), dtype_name(t1));
  }
  if (group < 16 || (group & (group - 1)) != 0) return fmt::format("block size {} is not a power of 2 >= 16", group);
  if (wd.size() != 2 || !wd[0].is_const() || !wd[1].is_const())
    return std::string("the weights are not a constant-shaped [N, K]");
  if (mm.op().name == "matmul" && (!mm.attrs().get_bool("transpose_b") || mm.attrs().get_bool("transpose_a"))) {
    return std::string("the matmul does not take the weights transposed");
  }
  return std::nullopt;
}

// A [M.., K] x dequantize(B)[N, K]^T (+ bias) as one MatMulNBits in T1 (the matmul's
// accumulator, or the activation's dtype), cast back to the result's dtype.
void emit_matmul_nbits(ModelWriter& w, const Binding& mm, const Binding& dq) {
  const int64_t group = dq.attrs().get_int("group");
  const int64_t n = dq.result().type().shape[0].value(), k = dq.result().type().shape[1].value();
  const int64_t blocks = (k + group - 1) / group;
  const DType x_dtype = mm.args()[0].type().dtype;
  const DType t1 = accumulator_of(mm).value_or(x_dtype);
  const std::string a = t1 == x_dtype ? in(w, mm, 0) : cast(w, in(w, mm, 0), t1, "a_t1");
  // Codes as MatMulNBits' bytes: [N, blocks, group / 2], element 2i low, 2i + 1 high.
  const std::string codes = unpacked_codes(w, dq, c(blocks * group));
  const std::string pairs = reshaped(w, codes, {c(n), c(blocks * group / 2), c(2)}, "code_pairs");
  const std::string even = last_axis_slice(w, pairs, 0, 1, "even"), odd = last_axis_slice(w, pairs, 1, 2, "odd");
  const std::string byte = w.op("Add", {even, w.op("Mul", {odd, w.scalar(DType::u32, 16)}, "odd_high")}, "byte");
  const std::string b_bytes = reshaped(w, cast(w, byte, DType::u8, "byte_u8"), {c(n), c(blocks), c(group / 2)}, "b");
  const DType scale_dtype = dq.args()[1].type().dtype;
  const std::string scales_t1 = scale_dtype == t1 ? in(w, dq, 1) : cast(w, in(w, dq, 1), t1, "scales_t1");
  const std::string scales = reshaped(w, scales_t1, {c(n * blocks)}, "scales_flat");
  std::vector<std::string> args = {a, b_bytes, scales};
  if (zero_point(dq) != 8) {  // 4-bit zero points, two to a byte, low nibble first
    const auto zp = static_cast<int64_t>(zero_point(dq) * 17);
    const int64_t zp_bytes = n * ((blocks + 1) / 2);
    args.push_back(
        w.initializer(Tensor::from_ints(DType::u8, {zp_bytes}, std::vector<int64_t>(zp_bytes, zp)), "zero_points"));
  }
  if (mm.args().size() > 2) {
    while (args.size() < 5) args.push_back("");
    args.push_back(mm.args()[2].type().dtype == t1 ? in(w, mm, 2) : cast(w, in(w, mm, 2), t1, "bias_t1"));
  }
  const DType result = mm.result().type().dtype;
  const std::string product = result == t1 ? out(w, mm) : w.fresh(out(w, mm) + "_t1");
  ::onnx::NodeProto& node = w.node("MatMulNBits", args, {product});
  node.set_domain(kMicrosoftDomain);
  set_attr(node, "K", k);
  set_attr(node, "N", n);
  set_attr(node, "bits", int64_t{4});
  set_attr(node, "block_size", group);
  if (result != t1) set_attr(w.node("Cast", {product}, {out(w, mm)}), "to", int64_t{onnx_dtype(result)});
}

void register_quantization_onnx_emitters(EmitterTable& t) {
  t.add("dequantize", dequantize);
  t.add("quantize", quantize);
}

}  // namespace difftest::interop
