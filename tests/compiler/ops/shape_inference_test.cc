// Shape and dtype inference per op family, symbolic cases included. Expected types are written
// by hand from each op's documented semantics.
#include <gtest/gtest.h>

#include "compiler/ops/op.h"
#include "tests/support/ir_util.h"

namespace difftest {
namespace {

using testing::inference_error;
using testing::inferred;
using Types = std::vector<std::string>;

const std::string kDims = "n: 1..64, m: 1..64";

void expect_error(const std::string& body, ErrorKind kind, const std::string& fragment, const std::string& dims = kDims) {
  const UserError e = inference_error(dims, body);
  EXPECT_EQ(e.kind(), kind) << e.what();
  EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
}

TEST(ElementwiseInference, BroadcastingAndDtypes) {
  EXPECT_EQ(inferred(kDims, "  %a: f32[n, 1, 4] = param\n  %b: f32[3, 1] = param\n  %r: f32[] = add(%a, %b)"),
            Types{"f32[n, 3, 4]"});
  EXPECT_EQ(inferred(kDims, "  %a: f32[n, 4] = param\n  %r: f32[] = sub(%a, %a)"), Types{"f32[n, 4]"});
  EXPECT_EQ(inferred(kDims, "  %a: i32[n] = param\n  %b: i32[1] = param\n  %r: f32[] = less(%a, %b)"),
            Types{"bool[n]"});
  EXPECT_EQ(inferred(kDims,
                     "  %c: bool[n, 1] = param\n  %a: f16[4] = param\n  %b: f16[1, 4] = param\n"
                     "  %r: f32[] = where(%c, %a, %b)"),
            Types{"f16[n, 4]"});
  EXPECT_EQ(inferred(kDims, "  %a: f16[n] = param\n  %r: f32[] = cast(%a, dtype=i8)"), Types{"i8[n]"});
  expect_error("  %a: f32[n, 4] = param\n  %b: f32[m, 4] = param\n  %r: f32[] = add(%a, %b)", ErrorKind::Shape,
               "cannot broadcast");
  expect_error("  %a: f32[4] = param\n  %b: f16[4] = param\n  %r: f32[] = mul(%a, %b)", ErrorKind::TypeMismatch,
               "same dtype");
  expect_error("  %a: i32[4] = param\n  %r: f32[] = exp(%a)", ErrorKind::TypeMismatch, "float");
  expect_error("  %a: i32[4] = param\n  %r: f32[] = div(%a, %a)", ErrorKind::TypeMismatch, "float");
  expect_error("  %a: f32[4] = param\n  %r: f32[] = logical_not(%a)", ErrorKind::TypeMismatch, "bool");
  expect_error("  %a: u8[4] = param\n  %r: f32[] = clip(%a, min=-1, max=3)", ErrorKind::Attribute, "range of u8");
}

TEST(ReductionInference, AxesKeepdimsAndArg) {
  EXPECT_EQ(inferred(kDims, "  %a: f32[n, m, 4] = param\n  %r: f32[] = sum(%a, axes=[-1], keepdims=true)"),
            Types{"f32[n, m, 1]"});
  EXPECT_EQ(inferred(kDims, "  %a: f32[n, m, 4] = param\n  %r: f32[] = mean(%a, axes=[0, 2])"), Types{"f32[m]"});
  EXPECT_EQ(inferred(kDims, "  %a: f32[n, m] = param\n  %r: f32[] = max(%a)"), Types{"f32[]"});
  EXPECT_EQ(inferred(kDims, "  %a: f16[n, m] = param\n  %r: f32[] = argmax(%a, axis=0)"), Types{"i64[m]"});
  expect_error("  %a: f32[n, m] = param\n  %r: f32[] = sum(%a, axes=[0, -2])", ErrorKind::Attribute, "twice");
  expect_error("  %a: f32[n, m] = param\n  %r: f32[] = sum(%a, axes=[2])", ErrorKind::Attribute, "out of range");
  expect_error("  %a: i32[n] = param\n  %r: f32[] = mean(%a)", ErrorKind::TypeMismatch, "float");
  expect_error("  %a: f32[n] = param\n  %r: f32[] = sum(%a, acc=f16)", ErrorKind::Attribute, "narrower");
}

TEST(LinalgInference, MatmulAndLinear) {
  EXPECT_EQ(inferred(kDims, "  %a: f32[n, 8] = param\n  %b: f32[8, m] = param\n  %r: f32[] = matmul(%a, %b)"),
            Types{"f32[n, m]"});
  EXPECT_EQ(inferred(kDims,
                     "  %a: f16[n, 640] = param\n  %b: f16[m, 640] = param\n"
                     "  %r: f32[] = matmul(%a, %b, transpose_b=true, acc=f32)"),
            Types{"f16[n, m]"});
  EXPECT_EQ(inferred(kDims,
                     "  %a: f32[2, 1, n, 8] = param\n  %b: f32[3, 8, m] = param\n  %r: f32[] = matmul(%a, %b)"),
            Types{"f32[2, 3, n, m]"});
  EXPECT_EQ(inferred(kDims,
                     "  %x: f32[2, n, 8] = param\n  %w: f32[m, 8] = param\n  %b: f32[m] = param\n"
                     "  %r: f32[] = linear(%x, %w, %b)"),
            Types{"f32[2, n, m]"});
  expect_error("  %a: f32[n, 8] = param\n  %b: f32[9, m] = param\n  %r: f32[] = matmul(%a, %b)", ErrorKind::Shape,
               "reduction dims (K)");
  expect_error("  %a: f32[n, 8] = param\n  %b: f32[8, m] = param\n  %r: f32[] = matmul(%a, %b, transpose_a=true)",
               ErrorKind::Shape, "not provably equal");
}

TEST(NormalizationInference, WeightsMustMatchTheNormalizedDim) {
  EXPECT_EQ(inferred(kDims, "  %a: f16[n, 4] = param\n  %r: f32[] = softmax(%a, axis=0)"), Types{"f16[n, 4]"});
  EXPECT_EQ(inferred(kDims,
                     "  %a: bf16[n, 640] = param\n  %w: bf16[640] = param\n"
                     "  %r: f32[] = rms_norm(%a, %w, eps=1e-06, weight_offset=1, acc=f32)"),
            Types{"bf16[n, 640]"});
  EXPECT_EQ(inferred(kDims,
                     "  %a: f32[2, 6, n] = param\n  %g: f32[6] = param\n  %b: f32[6] = param\n"
                     "  %r: f32[] = group_norm(%a, %g, %b, num_groups=3)"),
            Types{"f32[2, 6, n]"});
  expect_error("  %a: f32[n, 4] = param\n  %r: f32[] = softmax(%a, axis=2)", ErrorKind::Attribute, "out of range");
  expect_error("  %a: f32[n, 8] = param\n  %w: f32[4] = param\n  %r: f32[] = rms_norm(%a, %w)", ErrorKind::Shape,
               "weight length");
  expect_error(
      "  %a: f32[2, 6, n] = param\n  %g: f32[6] = param\n  %b: f32[6] = param\n"
      "  %r: f32[] = group_norm(%a, %g, %b, num_groups=4)",
      ErrorKind::Shape, "divisible");
  expect_error("  %a: f32[2, 6] = param\n  %g: f32[6] = param\n  %r: f32[] = instance_norm(%a, %g, %g)",
               ErrorKind::Shape, "rank >= 3");
}

TEST(ShapeOpInference, ReshapeIsCheckedSymbolically) {
  EXPECT_EQ(inferred(kDims, "  %a: f32[n, 64] = param\n  %r: f32[] = reshape(%a, shape=[n*2, 32])"),
            Types{"f32[2*n, 32]"});
  EXPECT_EQ(inferred(kDims, "  %a: f32[n, 64] = param\n  %r: f32[] = reshape(%a, shape=[-1, 16])"),
            Types{"f32[4*n, 16]"});
  EXPECT_EQ(inferred(kDims, "  %a: f32[n, m] = param\n  %r: f32[] = reshape(%a, shape=[-1])"), Types{"f32[m*n]"});
  expect_error("  %a: f32[n, 64] = param\n  %r: f32[] = reshape(%a, shape=[n, 33])", ErrorKind::Shape,
               "cannot reshape f32[n, 64] (64*n elements) to [n, 33] (33*n elements)");
  expect_error("  %a: f32[n, 3] = param\n  %r: f32[] = reshape(%a, shape=[-1, 2])", ErrorKind::Shape,
               "cannot infer -1");
  expect_error("  %a: f32[n, 4] = param\n  %r: f32[] = reshape(%a, shape=[-1, -1])", ErrorKind::Attribute,
               "more than one -1");
}

TEST(ShapeOpInference, ConcatSplitPermute) {
  EXPECT_EQ(inferred(kDims, "  %a: f32[n, 4] = param\n  %b: f32[m, 4] = param\n  %r: f32[] = concat(%a, %b)"),
            Types{"f32[m + n, 4]"});
  EXPECT_EQ(inferred(kDims,
                     "  %a: f32[n, 4] = param\n  %b: f32[n, m] = param\n  %r: f32[] = concat(%a, %b, %a, axis=-1)"),
            Types{"f32[n, m + 8]"});
  EXPECT_EQ(inferred(kDims, "  %a: f32[n, 8] = param\n  %r: f32[], %s: f32[] = split(%a, sections=2, axis=1)"),
            (Types{"f32[n, 4]", "f32[n, 4]"}));
  EXPECT_EQ(inferred(kDims,
                     "  %a: f32[8, n] = param\n  %r: f32[], %s: f32[], %t: f32[] = split(%a, indices=[1, 3])"),
            (Types{"f32[1, n]", "f32[2, n]", "f32[5, n]"}));
  EXPECT_EQ(inferred(kDims, "  %a: f32[2*n] = param\n  %r: f32[], %s: f32[] = split(%a, sections=2)"),
            (Types{"f32[n]", "f32[n]"}));
  EXPECT_EQ(inferred(kDims, "  %a: f32[n, m, 4] = param\n  %r: f32[] = permute_dims(%a, axes=[2, 0, 1])"),
            Types{"f32[4, n, m]"});
  EXPECT_EQ(inferred(kDims, "  %a: f32[n, m] = param\n  %r: f32[] = permute_dims(%a)"), Types{"f32[m, n]"});
  expect_error("  %a: f32[n, 4] = param\n  %b: f32[m, 5] = param\n  %r: f32[] = concat(%a, %b)", ErrorKind::Shape,
               "dim 1 of operand 1");
  expect_error("  %a: f32[n] = param\n  %r: f32[], %s: f32[] = split(%a, sections=2)", ErrorKind::Shape,
               "divisible");
  expect_error("  %a: f32[n, m] = param\n  %r: f32[] = permute_dims(%a, axes=[0, 0])", ErrorKind::Attribute,
               "permutation");
}

TEST(ShapeOpInference, SlicesFollowPythonSemantics) {
  EXPECT_EQ(inferred(kDims, "  %a: f32[n, 8] = param\n  %r: f32[] = strided_slice(%a, axes=[1], begin=[1], end=[-1])"),
            Types{"f32[n, 6]"});
  EXPECT_EQ(inferred(kDims,
                     "  %a: f32[8] = param\n"
                     "  %r: f32[] = strided_slice(%a, axes=[0], begin=[-1], end=[-2147483647], strides=[-1])"),
            Types{"f32[8]"});
  EXPECT_EQ(inferred(kDims,
                     "  %a: f32[n] = param\n  %r: f32[] = strided_slice(%a, axes=[0], begin=[0], end=[n], strides=[2])"),
            Types{"f32[(n + 1) // 2]"});
  EXPECT_EQ(inferred("n: 2..64",
                     "  %a: f32[n] = param\n  %r: f32[] = strided_slice(%a, axes=[0], begin=[1], end=[2147483647])"),
            Types{"f32[n - 1]"});
  EXPECT_EQ(inferred(kDims, "  %a: f32[n, 8] = param\n  %r: f32[] = strided_slice(%a, axes=[1], begin=[20], end=[30])"),
            Types{"f32[n, 0]"});
  expect_error("  %a: f32[n] = param\n  %r: f32[] = strided_slice(%a, axes=[0], begin=[m - 2], end=[n])",
               ErrorKind::Attribute, "not provably >= 0");
  expect_error("  %a: f32[n] = param\n  %r: f32[] = strided_slice(%a, axes=[0], begin=[0], end=[4], strides=[0])",
               ErrorKind::Attribute, "nonzero");
  EXPECT_EQ(inferred(kDims,
                     "  %a: f32[n, 8] = param\n  %s: f32[n, 3] = param\n"
                     "  %r: f32[] = slice_scatter(%a, %s, axis=1, begin=2, end=8, step=2)"),
            Types{"f32[n, 8]"});
  expect_error(
      "  %a: f32[n, 8] = param\n  %s: f32[n, 4] = param\n"
      "  %r: f32[] = slice_scatter(%a, %s, axis=1, begin=2, end=8, step=2)",
      ErrorKind::Shape, "src dim 1");
}

TEST(ShapeOpInference, GatherAndFriends) {
  EXPECT_EQ(inferred(kDims, "  %x: f16[m, 8] = param\n  %i: i32[n, 2] = param\n  %r: f32[] = take(%x, %i)"),
            Types{"f16[n, 2, 8]"});
  EXPECT_EQ(inferred(kDims, "  %x: f16[m, 8] = param\n  %i: i64[] = param\n  %r: f32[] = take(%x, %i, axis=1)"),
            Types{"f16[m]"});
  expect_error("  %x: f16[m, 8] = param\n  %i: f32[2] = param\n  %r: f32[] = take(%x, %i)", ErrorKind::TypeMismatch,
               "i32 or i64");
  EXPECT_EQ(inferred(kDims, "  %x: f32[n, 1, 4] = param\n  %r: f32[] = squeeze(%x)"), Types{"f32[n, 4]"});
  expect_error("  %x: f32[n, 1, 4] = param\n  %r: f32[] = squeeze(%x, axes=[0])", ErrorKind::Shape, "not 1");
  EXPECT_EQ(inferred(kDims, "  %x: f32[n, 4] = param\n  %r: f32[] = expand_dims(%x, axis=-1)"),
            Types{"f32[n, 4, 1]"});
  EXPECT_EQ(inferred(kDims, "  %x: f32[n, 4] = param\n  %r: f32[] = repeat(%x, repeats=3)"), Types{"f32[3*n, 4]"});
  EXPECT_EQ(inferred(kDims, "  %x: f32[4] = param\n  %r: f32[] = broadcast_to(%x, shape=[n, m, 4])"),
            Types{"f32[n, m, 4]"});
  expect_error("  %x: f32[3] = param\n  %r: f32[] = broadcast_to(%x, shape=[n, 4])", ErrorKind::Shape,
               "cannot broadcast");
}

TEST(CreationInference, SymbolicShapes) {
  EXPECT_EQ(inferred(kDims, "  %r: f32[] = arange(end=n)"), Types{"i64[n]"});
  EXPECT_EQ(inferred(kDims, "  %r: f32[] = arange(start=1, end=2*n + 1, step=2, dtype=f32)"), Types{"f32[n]"});
  EXPECT_EQ(inferred(kDims, "  %r: f32[] = full(shape=[n, m], value=2, dtype=i8)"), Types{"i8[n, m]"});
  EXPECT_EQ(inferred(kDims, "  %r: f32[] = zeros(shape=[m // 2 + 1])"), Types{"f32[m // 2 + 1]"});
  expect_error("  %r: f32[] = full(shape=[n], value=0.5, dtype=i32)", ErrorKind::Attribute, "not representable");
  expect_error("  %r: f32[] = arange(end=n, step=0)", ErrorKind::Attribute, "nonzero");
}

TEST(AttentionInference, MasksAttentionRope) {
  EXPECT_EQ(inferred(kDims, "  %r: f32[] = causal_mask(q_len=n, kv_len=m)"), Types{"bool[n, m]"});
  EXPECT_EQ(inferred(kDims, "  %r: f32[] = sliding_window_mask(q_len=1, kv_len=m, window=512, sink=4, offset=m - 1)"),
            Types{"bool[1, m]"});
  EXPECT_EQ(inferred(kDims,
                     "  %q: f16[1, n, 4, 8] = param\n  %k: f16[1, m, 2, 8] = param\n  %v: f16[1, m, 2, 16] = param\n"
                     "  %r: f32[] = attention(%q, %k, %v, causal=true, window=512, acc=f32)"),
            Types{"f16[1, n, 4, 16]"});
  expect_error(
      "  %q: f16[1, n, 3, 8] = param\n  %k: f16[1, m, 2, 8] = param\n  %v: f16[1, m, 2, 8] = param\n"
      "  %r: f32[] = attention(%q, %k, %v)",
      ErrorKind::Shape, "multiple of kv heads");
  expect_error(
      "  %q: f16[1, n, 2, 8] = param\n  %k: f16[1, m, 2, 8] = param\n  %v: f16[1, n, 2, 8] = param\n"
      "  %r: f32[] = attention(%q, %k, %v)",
      ErrorKind::Shape, "sequence length of k and v");
  expect_error("  %r: f32[] = sliding_window_mask(q_len=n, kv_len=n, window=0, sink=0)", ErrorKind::Attribute,
               "window must be >= 1");
  EXPECT_EQ(inferred(kDims, "  %x: f32[1, n, 2, 8] = param\n  %r: f32[] = rope(%x, theta=1000000, offset=m)"),
            Types{"f32[1, n, 2, 8]"});
  expect_error("  %x: f32[1, n, 2, 7] = param\n  %r: f32[] = rope(%x)", ErrorKind::Shape, "not provably even");
}

TEST(QuantizationInference, PackedLayouts) {
  EXPECT_EQ(inferred(kDims, "  %w: f16[m, 64] = param\n  %q: f32[], %s: f32[] = quantize(%w, format=\"q4f16_1\", group=32)"),
            (Types{"u32[m, 8]", "f16[m, 2]"}));
  // K = 40 with group 32: two groups, rows padded to whole groups (2 * 32 / 8 = 8 words).
  EXPECT_EQ(inferred(kDims, "  %w: f32[m, 40] = param\n  %q: f32[], %s: f32[] = quantize(%w, format=\"q4f32_1\", group=32)"),
            (Types{"u32[m, 8]", "f32[m, 2]"}));
  EXPECT_EQ(inferred(kDims, "  %w: f32[m, 64] = param\n  %q: f32[], %s: f32[] = quantize(%w, format=\"q4_0\", group=32)"),
            (Types{"u8[m, 32]", "f16[m, 2]"}));
  expect_error("  %w: f32[m, 40] = param\n  %q: f32[], %s: f32[] = quantize(%w, format=\"q4_0\", group=32)",
               ErrorKind::Shape, "multiple of 32");
  expect_error("  %w: f32[m, 64] = param\n  %q: f32[], %s: f32[] = quantize(%w, format=\"q4_0\", group=64)",
               ErrorKind::Attribute, "group must be 32");
  EXPECT_EQ(inferred("n: 1..256",
                     "  %w: u32[640, 80] = param\n  %s: f16[640, 20] = param\n"
                     "  %r: f32[] = dequantize(%w, %s, format=\"q4f16_1\", group=32)"),
            Types{"f16[640, 640]"});
  EXPECT_EQ(inferred(kDims,
                     "  %w: u32[m, 8] = param\n  %s: f32[m, 2] = param\n"
                     "  %r: f32[] = dequantize(%w, %s, format=\"q4f32_1\", group=32, k=40)"),
            Types{"f32[m, 40]"});
  EXPECT_EQ(inferred(kDims,
                     "  %w: u8[m, 32] = param\n  %s: f16[m, 2] = param\n"
                     "  %r: f32[] = dequantize(%w, %s, format=\"q4_0\", group=32, dtype=f16)"),
            Types{"f16[m, 64]"});
  expect_error(
      "  %w: u32[m, 7] = param\n  %s: f16[m, 2] = param\n"
      "  %r: f32[] = dequantize(%w, %s, format=\"q4f16_1\", group=32)",
      ErrorKind::Shape, "packed words");
  expect_error(
      "  %w: u32[m, 8] = param\n  %s: f32[m, 2] = param\n"
      "  %r: f32[] = dequantize(%w, %s, format=\"q4f16_1\", group=32)",
      ErrorKind::TypeMismatch, "scales must be f16");
  expect_error(
      "  %w: u32[m, 8] = param\n  %s: f32[m, 2] = param\n"
      "  %r: f32[] = dequantize(%w, %s, format=\"q4f32_1\", group=32, k=70)",
      ErrorKind::Shape, "does not fill");
}

TEST(ConvInference, OutputLengthFormula) {
  EXPECT_EQ(inferred(kDims,
                     "  %x: f32[1, 4, n] = param\n  %w: f32[8, 4, 3] = param\n"
                     "  %r: f32[] = conv1d(%x, %w, padding=1)"),
            Types{"f32[1, 8, n]"});
  // (n + 2p - d*(k-1) - 1) // s + 1 with p=2, d=2, k=3, s=3.
  EXPECT_EQ(inferred(kDims,
                     "  %x: f32[1, 4, n] = param\n  %w: f32[8, 4, 3] = param\n"
                     "  %r: f32[] = conv1d(%x, %w, stride=3, padding=2, dilation=2)"),
            Types{"f32[1, 8, (n - 1) // 3 + 1]"});
  EXPECT_EQ(inferred(kDims,
                     "  %x: f32[1, 4, n] = param\n  %w: f32[6, 2, 3] = param\n  %b: f32[6] = param\n"
                     "  %r: f32[] = conv1d(%x, %w, %b, groups=2)"),
            Types{"f32[1, 6, n - 2]"});
  expect_error("  %x: f32[1, 4, n] = param\n  %w: f32[5, 2, 3] = param\n  %r: f32[] = conv1d(%x, %w, groups=2)",
               ErrorKind::Shape, "divisible by groups");
  EXPECT_EQ(inferred(kDims,
                     "  %x: f16[2, 3, n, m] = param\n  %w: f16[8, 3, 3, 3] = param\n"
                     "  %r: f32[] = conv2d(%x, %w, padding=[1, 1])"),
            Types{"f16[2, 8, n, m]"});
  // (n - 1)*2 - 2*1 + 1*(4 - 1) + 0 + 1 = 2n.
  EXPECT_EQ(inferred(kDims,
                     "  %x: f32[1, 4, n] = param\n  %w: f32[4, 2, 4] = param\n"
                     "  %r: f32[] = conv_transpose1d(%x, %w, stride=2, padding=1)"),
            Types{"f32[1, 2, 2*n]"});
  expect_error(
      "  %x: f32[1, 4, n] = param\n  %w: f32[4, 2, 4] = param\n"
      "  %r: f32[] = conv_transpose1d(%x, %w, stride=2, output_padding=2)",
      ErrorKind::Attribute, "output_padding");
  EXPECT_EQ(inferred(kDims, "  %x: f32[1, 2, n] = param\n  %r: f32[] = upsample_nearest1d(%x, scale=2)"),
            Types{"f32[1, 2, 2*n]"});
}

TEST(OpRegistry, EveryOpIsDocumentedAndTheMarkdownListsIt) {
  const std::string md = ops_markdown();
  size_t count = 0;
  for (const OpDef* op : OpRegistry::get().all()) {
    ++count;
    EXPECT_FALSE(op->semantics.empty()) << op->name;
    EXPECT_NE(md.find("### `" + op->name + "`"), std::string::npos) << op->name;
  }
  EXPECT_GE(count, 80u);
  for (const char* name : {"sliding_window_mask", "attention", "rope", "quantize", "dequantize", "conv_transpose1d",
                           "slice_scatter", "group_norm", "instance_norm", "upsample_nearest1d", "atan2"}) {
    EXPECT_NE(OpRegistry::get().find(name), nullptr) << name;
  }
}

}  // namespace
}  // namespace difftest
