// One hand-written inference case per registered op (symbolic wherever the op allows), and
// a check that the table covers the whole registry, so a new op cannot arrive untested.
#include <gtest/gtest.h>

#include <set>

#include "compiler/ops/op.h"
#include "tests/support/ir_util.h"

namespace difftest {
namespace {

struct Case {
  const char* op;
  const char* body;  // bindings; the last one calls `op`
  std::vector<std::string> expected;
};

const char* kX = "  %x: f32[n, 4] = param\n";
const char* kI = "  %i: i32[n, 4] = param\n";
const char* kB = "  %b: bool[n, 4] = param\n";

std::string with(const char* prelude, const std::string& call) { return std::string(prelude) + call; }

std::vector<std::pair<Case, std::string>> cases() {
  std::vector<std::pair<Case, std::string>> out;
  auto add = [&](const char* op, std::string body, std::vector<std::string> expected) {
    out.push_back({Case{op, "", std::move(expected)}, std::move(body)});
  };
  for (const char* op : {"exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "silu", "gelu", "erf", "sin", "cos",
                         "floor", "round", "leaky_relu"}) {
    add(op, with(kX, std::string("  %r: f32[] = ") + op + "(%x)"), {"f32[n, 4]"});
  }
  for (const char* op : {"neg", "abs", "relu"}) add(op, with(kI, std::string("  %r: f32[] = ") + op + "(%i)"), {"i32[n, 4]"});
  add("clip", with(kI, "  %r: f32[] = clip(%i, min=-3, max=3)"), {"i32[n, 4]"});
  for (const char* op : {"add", "sub", "mul", "maximum", "minimum", "floor_divide", "floor_mod"}) {
    add(op, with(kI, "  %j: i32[4] = param\n  %r: f32[] = " + std::string(op) + "(%i, %j)"), {"i32[n, 4]"});
  }
  for (const char* op : {"div", "pow", "atan2"}) {
    add(op, with(kX, "  %y: f32[1, 4] = param\n  %r: f32[] = " + std::string(op) + "(%y, %x)"), {"f32[n, 4]"});
  }
  for (const char* op : {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}) {
    add(op, with(kX, "  %r: f32[] = " + std::string(op) + "(%x, %x)"), {"bool[n, 4]"});
  }
  for (const char* op : {"logical_and", "logical_or", "logical_xor"}) {
    add(op, with(kB, "  %c: bool[] = param\n  %r: f32[] = " + std::string(op) + "(%b, %c)"), {"bool[n, 4]"});
  }
  add("logical_not", with(kB, "  %r: f32[] = logical_not(%b)"), {"bool[n, 4]"});
  add("where", std::string(kB) + kX + "  %z: f32[] = param\n  %r: f32[] = where(%b, %x, %z)", {"f32[n, 4]"});
  add("cast", with(kX, "  %r: f32[] = cast(%x, dtype=bf16)"), {"bf16[n, 4]"});
  for (const char* op : {"sum", "mean", "prod", "max", "min"}) {
    add(op, with(kX, "  %r: f32[] = " + std::string(op) + "(%x, axes=[1])"), {"f32[n]"});
  }
  add("argmax", with(kX, "  %r: f32[] = argmax(%x, axis=0, keepdims=true)"), {"i64[1, 4]"});
  add("argmin", with(kX, "  %r: f32[] = argmin(%x)"), {"i64[n]"});
  add("matmul", with(kX, "  %w: f32[m, 4] = param\n  %r: f32[] = matmul(%x, %w, transpose_b=true)"), {"f32[n, m]"});
  add("linear", with(kX, "  %w: f32[m, 4] = param\n  %r: f32[] = linear(%x, %w)"), {"f32[n, m]"});
  add("softmax", with(kX, "  %r: f32[] = softmax(%x)"), {"f32[n, 4]"});
  add("log_softmax", with(kX, "  %r: f32[] = log_softmax(%x, axis=0)"), {"f32[n, 4]"});
  add("rms_norm", with(kX, "  %w: f32[4] = param\n  %r: f32[] = rms_norm(%x, %w)"), {"f32[n, 4]"});
  add("layer_norm", with(kX, "  %w: f32[n] = param\n  %r: f32[] = layer_norm(%x, %w, %w, axis=0)"), {"f32[n, 4]"});
  add("group_norm", "  %x: f32[n, 4, m] = param\n  %g: f32[4] = param\n  %r: f32[] = group_norm(%x, %g, %g, num_groups=2)",
      {"f32[n, 4, m]"});
  add("instance_norm", "  %x: f32[n, 4, m] = param\n  %g: f32[4] = param\n  %r: f32[] = instance_norm(%x, %g, %g)",
      {"f32[n, 4, m]"});
  add("reshape", with(kX, "  %r: f32[] = reshape(%x, shape=[2, n*2])"), {"f32[2, 2*n]"});
  add("permute_dims", with(kX, "  %r: f32[] = permute_dims(%x)"), {"f32[4, n]"});
  add("broadcast_to", with(kX, "  %r: f32[] = broadcast_to(%x, shape=[m, n, 4])"), {"f32[m, n, 4]"});
  add("concat", with(kX, "  %y: f32[m, 4] = param\n  %r: f32[] = concat(%x, %y)"), {"f32[m + n, 4]"});
  add("split", with(kX, "  %r: f32[], %s: f32[] = split(%x, indices=[1], axis=1)"), {"f32[n, 1]", "f32[n, 3]"});
  add("strided_slice", with(kX, "  %r: f32[] = strided_slice(%x, axes=[1], begin=[-3], end=[4], strides=[2])"),
      {"f32[n, 2]"});
  add("squeeze", "  %x: f32[n, 1] = param\n  %r: f32[] = squeeze(%x, axes=[-1])", {"f32[n]"});
  add("expand_dims", with(kX, "  %r: f32[] = expand_dims(%x, axis=1)"), {"f32[n, 1, 4]"});
  add("take", with(kX, "  %t: i64[m] = param\n  %r: f32[] = take(%x, %t, axis=1)"), {"f32[n, m]"});
  add("slice_scatter", with(kX, "  %s: f32[n, 2] = param\n  %r: f32[] = slice_scatter(%x, %s, axis=1, begin=1, end=3)"),
      {"f32[n, 4]"});
  add("repeat", with(kX, "  %r: f32[] = repeat(%x, repeats=2, axis=1)"), {"f32[n, 8]"});
  add("tril", with(kX, "  %r: f32[] = tril(%x, k=-1)"), {"f32[n, 4]"});
  add("triu", with(kX, "  %r: f32[] = triu(%x)"), {"f32[n, 4]"});
  add("arange", "  %r: f32[] = arange(start=n, end=3*n, dtype=i32)", {"i32[2*n]"});
  add("full", "  %r: f32[] = full(shape=[n, 2], value=-1.5, dtype=f16)", {"f16[n, 2]"});
  add("zeros", "  %r: f32[] = zeros(shape=[m], dtype=u8)", {"u8[m]"});
  add("ones", "  %r: f32[] = ones(shape=[], dtype=bool)", {"bool[]"});
  add("causal_mask", "  %r: f32[] = causal_mask(q_len=n, kv_len=n + m, offset=m)", {"bool[n, m + n]"});
  add("sliding_window_mask", "  %r: f32[] = sliding_window_mask(q_len=n, kv_len=m, window=4, sink=1)",
      {"bool[n, m]"});
  add("attention",
      "  %q: f32[2, n, 8, 16] = param\n  %k: f32[2, m, 2, 16] = param\n  %v: f32[2, m, 2, 4] = param\n"
      "  %mk: bool[n, m] = param\n  %r: f32[] = attention(%q, %k, %v, %mk, softcap=50)",
      {"f32[2, n, 8, 4]"});
  add("rope", "  %x: bf16[1, n, 2, 6] = param\n  %r: f32[] = rope(%x, style=\"interleaved\")", {"bf16[1, n, 2, 6]"});
  add("quantize", "  %w: f32[m, 96] = param\n  %q: f32[], %s: f32[] = quantize(%w, format=\"q4f16_1\", group=64)",
      {"u32[m, 16]", "f16[m, 2]"});
  add("dequantize",
      "  %w: u32[n, 16] = param\n  %s: f16[n, 2] = param\n"
      "  %r: f32[] = dequantize(%w, %s, format=\"q4f16_1\", group=64, k=96, dtype=f32)",
      {"f32[n, 96]"});
  add("conv1d", "  %x: f32[1, 2, n] = param\n  %w: f32[3, 2, 1] = param\n  %r: f32[] = conv1d(%x, %w, stride=2)",
      {"f32[1, 3, (n - 1) // 2 + 1]"});
  add("conv2d",
      "  %x: f32[1, 4, n, m] = param\n  %w: f32[4, 1, 3, 3] = param\n"
      "  %r: f32[] = conv2d(%x, %w, padding=[1, 0], groups=4)",
      {"f32[1, 4, n, m - 2]"});
  add("conv_transpose1d",
      "  %x: f32[1, 2, n] = param\n  %w: f32[2, 3, 3] = param\n  %r: f32[] = conv_transpose1d(%x, %w, dilation=2)",
      {"f32[1, 3, n + 4]"});
  add("upsample_nearest1d", "  %x: f16[1, 2, n] = param\n  %r: f32[] = upsample_nearest1d(%x, scale=3)",
      {"f16[1, 2, 3*n]"});
  return out;
}

TEST(EveryOp, InfersTheDocumentedType) {
  std::set<std::string> covered;
  for (const auto& [c, body] : cases()) {
    covered.insert(c.op);
    EXPECT_EQ(testing::inferred("n: 1..64, m: 4..64", body), c.expected) << c.op << ":\n" << body;
  }
  for (const OpDef* op : OpRegistry::get().all()) EXPECT_TRUE(covered.count(op->name)) << op->name << " has no case";
}

}  // namespace
}  // namespace difftest
