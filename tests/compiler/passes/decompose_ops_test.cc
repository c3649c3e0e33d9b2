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
  const Program after = pipeline::find_pass("DecomposeOps").graph(p, testing::test_context());
  verify(after);
  RC_CLASSIFY(!after.same_as(p), "decomposed something");
  const auto preserved = testing::preserves_reference(p, after);
  if (!preserved) RC_FAIL(preserved.message());
}

}  // namespace
}  // namespace difftest
