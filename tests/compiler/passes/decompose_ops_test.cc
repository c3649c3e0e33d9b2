// DecomposeOps: IR-in/IR-out cases, cases whose decomposition must stay within the composite's
// own error bounds (interpreted by the reference and compiled at O0), and the property over
// generated programs steered toward the composite ops.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "fuzz/generator.h"
#include "tests/support/pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

using testing::expect_rewrite;
using testing::expect_unchanged;

TEST(DecomposeOps, SoftmaxBecomesMaxSubExpSumDiv) {
  expect_rewrite("DecomposeOps", R"(
program @p(n: 1..8) {
  %x: f32[n, 6] = param
  %0: f32[n, 6] = softmax(%x)
  %1: f32[n, 6] = exp(%0)
  return %1
}
)",
                 R"(
program @p(n: 1..8) {
  %x: f32[n, 6] = param
  %0_max: f32[n, 1] = max(%x, axes=[1], keepdims=true)
  %0_sub: f32[n, 6] = sub(%x, %0_max)
  %0_exp: f32[n, 6] = exp(%0_sub)
  %0_sum: f32[n, 1] = sum(%0_exp, axes=[1], keepdims=true)
  %0: f32[n, 6] = div(%0_exp, %0_sum)
  %1: f32[n, 6] = exp(%0)
  return %1
}
)",
                 "the max subtraction is part of softmax's definition; the result keeps its name and users");
}

TEST(DecomposeOps, F16LogSoftmaxIsComputedInItsAccumulatorAndRoundedOnce) {
  expect_rewrite("DecomposeOps", R"(
program @p(n: 1..8) {
  %x: f16[4, n] = param
  %0: f16[4, n] = log_softmax(%x, axis=0, acc=f32)
  return %0
}
)",
                 R"(
program @p(n: 1..8) {
  %x: f16[4, n] = param
  %0_cast_f32: f32[4, n] = cast(%x, dtype=f32)
  %0_max: f32[1, n] = max(%0_cast_f32, axes=[0], keepdims=true)
  %0_sub: f32[4, n] = sub(%0_cast_f32, %0_max)
  %0_exp: f32[4, n] = exp(%0_sub)
  %0_sum: f32[1, n] = sum(%0_exp, axes=[0], keepdims=true)
  %0_log: f32[1, n] = log(%0_sum)
  %0_logsub: f32[4, n] = sub(%0_sub, %0_log)
  %0: f16[4, n] = cast(%0_logsub, dtype=f16)
  return %0
}
)",
                 "acc=f32: every step in f32, one rounding to f16 at the end, as the op defines it");
}

TEST(DecomposeOps, LeavesMatmulAndPrimitiveOpsAlone) {
  expect_unchanged("DecomposeOps", R"(
program @p(n: 1..8) {
  %a: f32[n, 4] = param
  %b: f32[4, 3] = param
  %g: f32[2] = param
  %be: f32[2] = param
  %0: f32[n, 3] = matmul(%a, %b, acc=f64)
  %1: f32[n, 3] = silu(%0)
  %2: f32[n, 3] = exp(%1)
  %3: f32[1, 2, 2*n] = reshape(%a, shape=[1, 2, 2*n])
  %4: f32[1, 2, 2*n] = group_norm(%3, %g, %be, num_groups=2)
  return %2, %4
}
)",
                   "must not decompose matmul; silu is a primitive here and group_norm is not decomposed");
}

TEST(DecomposeOps, LeavesAttentionWithASymbolicHeadDimAndDefaultScale) {
  expect_unchanged("DecomposeOps", R"(
program @p(d: 1..8) {
  %q: f32[1, 2, 2, d] = param
  %k: f32[1, 3, 2, d] = param
  %v: f32[1, 3, 2, 4] = param
  %0: f32[1, 2, 2, 4] = attention(%q, %k, %v)
  return %0
}
)",
                   "1/sqrt(d) of a symbolic head dim cannot be written as a constant");
}

// The decomposition of `text`, checked against the composite's own bounds under the reference
// and, compiled at O0, against the same bounds.
void expect_exact_decomposition(const std::string& text, const std::string& intent) {
  const Program before = testing::parse_case(text);
  const Program after = testing::run_graph_pass("DecomposeOps", before);
  ASSERT_FALSE(after.same_as(before)) << intent;
  for (const auto& b : after.bindings()) {
    if (!b.is_call()) continue;
    for (const char* composite : {"softmax", "log_softmax", "rms_norm", "layer_norm", "gelu", "attention"}) {
      EXPECT_NE(b.op().name, composite) << intent;
    }
  }
  EXPECT_TRUE(testing::preserves_reference(before, after)) << intent;
  EXPECT_TRUE(testing::compiled_agrees(after, {"LegalizeOps"})) << intent;
}

TEST(DecomposeOps, RmsNormAlongALeadingAxisWithGemmaOffset) {
  expect_exact_decomposition(R"(
program @p(n: 1..8) {
  %x: f16[5, n, 3] = param
  %w: f16[n] = param
  %0: f16[5, n, 3] = rms_norm(%x, %w, axis=1, weight_offset=1, acc=f32)
  return %0
}
)",
                             "the weight is reshaped to [n, 1] to broadcast along the trailing axis");
}

TEST(DecomposeOps, LayerNormInBf16WithoutAnAccumulator) {
  expect_exact_decomposition(R"(
program @p(n: 1..8) {
  %x: bf16[n, 16] = param
  %g: bf16[16] = param
  %b: bf16[16] = param
  %0: bf16[n, 16] = layer_norm(%x, %g, %b, eps=0.001)
  return %0
}
)",
                             "without acc every step rounds to bf16, exactly as the op's bound allows");
}

TEST(DecomposeOps, GeluBothFormulasOverAWideRange) {
  for (const char* dtype : {"f32", "f16", "bf16"}) {
    for (const char* form : {"none", "tanh"}) {
      const std::string t = dtype;
      expect_exact_decomposition(R"(
program @p(n: 1..8) {
  %x: )" + t + R"([n, 32] = param
  %s: )" + t + R"([] = const 6
  %0: )" + t + R"([n, 32] = mul(%x, %s)
  %1: )" + t + R"([n, 32] = gelu(%0, approximate=")" + form + R"(")
  return %1
}
)",
                                 t + " gelu " + form + ": 1 + erf/tanh cancels for negative x");
    }
  }
}

TEST(DecomposeOps, GqaAttentionWithWindowSinkSoftcapAndUserMask) {
  expect_exact_decomposition(R"(
program @p(s: 1..6) {
  %q: f16[2, s, 4, 8] = param
  %k: f16[2, s, 2, 8] = param
  %v: f16[2, s, 2, 3] = param
  %m: bool[s, s] = param
  %0: f16[2, s, 4, 3] = attention(%q, %k, %v, %m, window=2, sink=1, softcap=2, acc=f32)
  return %0
}
)",
                             "query head h reads kv head h // 2; rows the user mask hides entirely are 0");
}

TEST(DecomposeOps, CausalAttentionWithOffsetAndExplicitScale) {
  expect_exact_decomposition(R"(
program @p(s: 1..4, t: 1..6) {
  %q: f32[1, s, 2, 4] = param
  %k: f32[1, s + t, 2, 4] = param
  %v: f32[1, s + t, 2, 5] = param
  %0: f32[1, s, 2, 5] = attention(%q, %k, %v, causal=true, offset=t, scale=0.3)
  return %0
}
)",
                             "decoding against a cache: query row i sits at position t + i");
}

RC_GTEST_PROP(DecomposeOps, PreservesTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 6;
  for (const char* op : {"softmax", "log_softmax", "rms_norm", "layer_norm", "gelu", "attention"}) {
    options.weights[op] = 200;
  }
  const Program p = generate_program(choices, options);
  const Program after = pipeline::find_pass("DecomposeOps").graph(p, testing::planted_context());
  verify(after);
  RC_CLASSIFY(!after.same_as(p), "decomposed something");
  const auto preserved = testing::preserves_reference(p, after);
  if (!preserved) RC_FAIL(preserved.message());
}

}  // namespace
}  // namespace difftest
