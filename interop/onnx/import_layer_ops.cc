// Translators of the layer ops (import_context.h): InstanceNormalization, ConvTranspose, Resize
// (nearest, integer scales along the last axis) and ORT's MatMulNBits (com.microsoft), the 4-bit
// weight product difftest's exporter writes for q4 weights. MatMulNBits is read as its
// definition: the codes decoded from the bytes, minus the zero point, times the block's scale
// (one rounding in T1), then a matmul against the transposed weights.
#include <fmt/format.h>

#include "interop/onnx/import_context.h"

namespace difftest::interop {

namespace {

using namespace import_util;

std::vector<Value> instance_normalization(const NodeImport& n) {
  n.only_attrs({"epsilon"});
  require_float(n, n.input(0));
  if (rank_of(n.input(0)) < 3) {
    n.unsupported("InstanceNormalization without a spatial dim",
                  fmt::format("{}: instance_norm needs [N, C, L...] with at least one L", n.where()));
  }
  return {n.call("instance_norm", {n.input(0), n.input(1), n.input(2)}, {{"eps", n.attr_float("epsilon", 1e-5)}})};
}

std::vector<Value> conv_transpose(const NodeImport& n) {
  n.only_attrs({"kernel_shape", "strides", "pads", "output_padding", "dilations", "group", "auto_pad"});
  const Value x = n.input(0);
  require_float(n, x);
  if (rank_of(x) != 3) {
    n.unsupported(fmt::format("ConvTranspose over {} spatial dims", rank_of(x) - 2),
                  fmt::format("{}: difftest has conv_transpose1d only", n.where()));
  }
  if (n.attr_string("auto_pad", "NOTSET") != "NOTSET") {
    n.unsupported("attribute ConvTranspose.auto_pad", fmt::format("{}: only explicit pads are supported", n.where()));
  }
  const auto one = [&](const std::string& name, int64_t fallback) {
    const std::vector<int64_t> v = n.attr_ints(name);
    return v.empty() ? fallback : v[0];
  };
  std::vector<int64_t> pads = n.attr_ints("pads");
  if (pads.empty()) pads = {0, 0};
  if (pads.size() != 2 || pads[0] != pads[1]) {
    n.unsupported("ConvTranspose with asymmetric pads", fmt::format("{}: the pads differ at the two ends", n.where()));
  }
  std::vector<Value> args = {x, n.input(1)};
  if (n.has_input(2)) args.push_back(n.input(2));
  return {n.call("conv_transpose1d", args,
                 {{"stride", one("strides", 1)},
                  {"padding", pads[0]},
                  {"output_padding", one("output_padding", 0)},
                  {"dilation", one("dilations", 1)},
                  {"groups", n.attr_int("group", 1)}})};
}

// Nearest resizing by [1, 1, s] with s a whole number reads x[l // s] under asymmetric
// coordinates with floor rounding, and under half_pixel with either rounding preference (the
// source coordinate l / s + (1/s - 1) / 2 is within 1/2 - 1/(2s) of l // s): upsample_nearest1d.
std::vector<Value> resize(const NodeImport& n) {
  n.only_attrs({"mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a", "exclude_outside",
                "extrapolation_value"});
  const Value x = n.input(0);
  const std::string mode = n.attr_string("mode", "nearest");
  const std::string coords = n.attr_string("coordinate_transformation_mode", "half_pixel");
  const std::string rounding = n.attr_string("nearest_mode", "round_prefer_floor");
  const bool floors = (coords == "asymmetric" && rounding == "floor") ||
                      (coords == "half_pixel" && (rounding == "round_prefer_floor" || rounding == "round_prefer_ceil"));
  if (mode != "nearest" || !floors || rank_of(x) != 3 || n.has_input(3) || !n.has_input(2)) {
    n.unsupported("Resize other than nearest upsampling by scales",
                  fmt::format("{}: only mode=nearest on [N, C, L] with scales (asymmetric + floor, or half_pixel) "
                              "maps to upsample_nearest1d",
                              n.where()));
  }
  const std::optional<Tensor> scales = n.constant_input(2);
  if (!scales || scales->numel() != 3 || scales->get(0) != 1 || scales->get(1) != 1 || scales->get(2) < 1 ||
      scales->get(2) != static_cast<double>(static_cast<int64_t>(scales->get(2)))) {
    n.unsupported("Resize scales", fmt::format("{}: the scales must be [1, 1, s] with s a whole number", n.where()));
  }
  return {n.call("upsample_nearest1d", {x}, {{"scale", static_cast<int64_t>(scales->get(2))}})};
}

// The 4-bit values of a u8 tensor [.., W] as [.., 2 W], low nibble first.
Value nibbles(const NodeImport& n, const Value& bytes) {
  const Value sixteen = n.scalar(DType::u8, 16);
  const int rank = rank_of(bytes);
  const Value low = n.call("expand_dims", {n.call("floor_mod", {bytes, sixteen})}, {{"axis", int64_t{rank}}});
  const Value high = n.call("expand_dims", {n.call("floor_divide", {bytes, sixteen})}, {{"axis", int64_t{rank}}});
  std::vector<sym::Expr> shape = dims_of(bytes);
  shape.back() = sym::Expr::constant(2) * shape.back();
  return n.call("reshape", {n.call("concat", {low, high}, {{"axis", int64_t{rank}}})}, {{"shape", shape}});
}

Value trimmed(const NodeImport& n, const Value& x, int64_t axis, int64_t length) {
  if (dims_of(x)[static_cast<size_t>(axis)].is_const(length)) return x;
  return n.call("strided_slice", {x},
                {{"axes", std::vector<int64_t>{axis}},
                 {"begin", std::vector<sym::Expr>{sym::Expr::constant(0)}},
                 {"end", std::vector<sym::Expr>{sym::Expr::constant(length)}},
                 {"strides", std::vector<int64_t>{1}}});
}

std::vector<Value> matmul_nbits(const NodeImport& n) {
  n.only_attrs({"K", "N", "bits", "block_size", "accuracy_level"});
  const Value a = n.input(0), b = n.input(1), scales = n.input(2);
  const DType t1 = dtype_of(a);
  const int64_t k = n.attr_int("K", 0), cols = n.attr_int("N", 0), block = n.attr_int("block_size", 0);
  if (n.attr_int("bits", 4) != 4) n.unsupported("MatMulNBits with bits != 4", fmt::format("{}: only 4-bit", n.where()));
  if (n.has_input(4))
    n.unsupported("MatMulNBits.g_idx", fmt::format("{}: act-order (g_idx) is not supported", n.where()));
  if (k <= 0 || cols <= 0 || block < 16 || (block & (block - 1)) != 0 || (t1 != DType::f32 && t1 != DType::f16)) {
    n.unsupported("MatMulNBits attributes", fmt::format("{}: K, N must be positive, block_size a power of 2 >= 16 and "
                                                        "A f32 or f16",
                                                        n.where()));
  }
  const int64_t blocks = (k + block - 1) / block;
  const auto c = [](int64_t v) { return sym::Expr::constant(v); };
  if (dtype_of(b) != DType::u8 || dims_of(b) != std::vector<sym::Expr>{c(cols), c(blocks), c(block / 2)}) {
    n.unsupported("MatMulNBits.B layout", fmt::format("{}: B must be u8[{}, {}, {}] for K={}, N={}, block_size={}",
                                                      n.where(), cols, blocks, block / 2, k, cols, block));
  }
  const Value codes = n.call("cast", {nibbles(n, b)}, {{"dtype", t1}});  // [N, blocks, block]
  Value zero_point = n.scalar(t1, 8);
  if (n.has_input(3)) {
    const Value zp = n.input(3);
    if (dtype_of(zp) == DType::u8) {  // packed, two to a byte
      const Value rows = n.call("reshape", {zp}, {{"shape", std::vector<sym::Expr>{c(cols), c((blocks + 1) / 2)}}});
      zero_point = n.call("cast", {trimmed(n, nibbles(n, rows), 1, blocks)}, {{"dtype", t1}});
    } else {
      zero_point = n.call("reshape", {zp}, {{"shape", std::vector<sym::Expr>{c(cols), c(blocks)}}});
    }
    zero_point = n.call("expand_dims", {zero_point}, {{"axis", int64_t{2}}});
  }
  const Value per_block = n.call("reshape", {scales}, {{"shape", std::vector<sym::Expr>{c(cols), c(blocks), c(1)}}});
  const Value decoded = n.call("mul", {n.call("sub", {codes, zero_point}), per_block});
  const Value weights =
      trimmed(n, n.call("reshape", {decoded}, {{"shape", std::vector<sym::Expr>{c(cols), c(blocks * block)}}}), 1, k);
  AttrList attrs = {{"transpose_b", true}};
  if (t1 == DType::f16) attrs.emplace_back("acc", DType::f32);  // ORT accumulates f16 products in f32
  Value y = n.call("matmul", {a, weights}, attrs);
  if (n.has_input(5)) y = n.call("add", {y, n.input(5)});
  return {y};
}

}  // namespace

const std::map<std::string, Translator>& layer_translators() {
  static const std::map<std::string, Translator> table = {
      {"ConvTranspose", conv_transpose},
      {"InstanceNormalization", instance_normalization},
      {"Resize", resize},
  };
  return table;
}

const std::map<std::string, Translator>& microsoft_translators() {
  static const std::map<std::string, Translator> table = {{"MatMulNBits", matmul_nbits}};
  return table;
}

}  // namespace difftest::interop
