// ScheduleGEMV (its cases: tests/passes/ScheduleGEMV/): one-row matmul/linear at K that are not lane multiples
// (constant and symbolic) compiled at O3 against the reference, a dequantize inlined into the
// weight loads (as fusion writes it), and the property that it preserves the reference.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "fuzz/generator.h"
#include "tests/compiler/passes/schedule_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

using testing::rule_fires_and_agrees;

TEST(ScheduleGEMV, KThatAreNotLaneMultiples) {
  for (const int k : {16, 17, 33, 70}) {
    const std::string text = "program @p(n: 1..13) {\n  %x: f32[1, " + std::to_string(k) + "] = param\n  %w: f32[n, " +
                             std::to_string(k) + "] = param\n  %bias: f32[n] = param\n" +
                             "  %y: f32[1, n] = linear(%x, %w, %bias)\n  return %y\n}\n";
    EXPECT_TRUE(rule_fires_and_agrees("ScheduleGEMV", text)) << "K = " << k;
  }
  EXPECT_TRUE(rule_fires_and_agrees("ScheduleGEMV", R"(
program @p(k: 1..70, n: 1..33) {
  %x: f16[1, 1, k] = param
  %w: f16[n, k] = param
  %y: f16[1, 1, n] = matmul(%x, %w, transpose_b=true, acc=f32)
  %z: f16[1, 1, n] = matmul(%x, %w, transpose_b=true)
  %v: bf16[k] = param
  %u: bf16[n, k] = param
  %t: bf16[n] = linear(%v, %u, acc=f32)
  return %y, %z, %t
}
)",
                                    3));
}

// linear(x, dequantize(wq, sq)) with the dequantize inlined into the weight loads, as loop
// fusion writes it: the weight is an expression over packed u32 codes and f16 scales.
constexpr const char* kDequantProgram = R"(
program @p() {
  %x: f16[1, 96] = param
  %wq: u32[5, 12] = param
  %sq: f16[5, 3] = param
  %w: f16[5, 96] = dequantize(%wq, %sq, format="q4f16_1", group=32)
  %y: f16[1, 5] = linear(%x, %w, acc=f32)
  return %y
}
)";

constexpr const char* kFusedModule = R"(func @fused(x: f16[1, 96], wq: u32[5, 12], sq: f16[5, 3], y: f16[1, 5]) dims() {
  for (i0, 0, 1) serial {
    for (i1, 0, 5) serial {
      alloc acc2: f32[1] local {
        acc2[0] = 0.0:f32
        for (k3, 0, 96) serial {
          acc2[0] = (acc2[0] + (cast<f32>(x[((i0 * 96) + k3)]) * cast<f32>(cast<f16>((cast<f32>((cast<i32>(((wq[((i1 * 12) + (k3 // 8))] >> cast<u32>(((k3 % 8) * 4))) & 15:u32)) - 7:i32)) * cast<f32>(sq[((i1 * 3) + (k3 // 32))]))))))
        }
        y[((i0 * 5) + i1)] = cast<f16>(acc2[0])
      }
    }
  }
}
call @fused(x, wq, sq, y) dims()
)";

TEST(ScheduleGEMV, MatchesADequantizeInlinedIntoTheWeight) {
  const loop::Module fused = loop::parse_module(kFusedModule, "<fused>");
  const Program p = testing::parse_case(kDequantProgram);
  ASSERT_TRUE(testing::module_agrees(p, fused)) << "the hand-fused module itself must be right";
  const loop::Module after = testing::run_loop_pass("ScheduleGEMV", fused);
  EXPECT_FALSE(after.funcs[0].body.same_as(fused.funcs[0].body)) << "a dequantized weight is still a GEMV weight";
  EXPECT_EQ(testing::occurrences(after, "parallel"), 1);
  EXPECT_TRUE(testing::module_agrees(p, after));
}

// Eight 4-bit codes share a u32 word (k // 8): eight lanes decode one word, so after
// LoopSimplify each vector loads its word once (the index no longer moves with the lane), and
// four unrolled chains of partial sums cover a 32-element quantization group.
TEST(ScheduleGEMV, PackedWeightsGiveOneWordPerVector) {
  const loop::Module fused = loop::parse_module(kFusedModule, "<fused>");
  const loop::Module simplified = testing::run_loop_pass("LoopSimplify", testing::run_loop_pass("ScheduleGEMV", fused));
  const std::string text = loop::print(simplified);
  EXPECT_EQ(testing::occurrences(simplified, "for (k3l, 0, 8) vectorized"), 1) << text;
  EXPECT_EQ(testing::occurrences(simplified, "for (k3w, 0, 4) unrolled"), 1) << text;
  EXPECT_EQ(testing::occurrences(simplified, "alloc acc2l: f32[32]"), 1) << text;
  for (size_t at = text.find("wq["); at != std::string::npos; at = text.find("wq[", at + 1)) {
    const std::string index = text.substr(at, text.find(']', at) - at);
    EXPECT_EQ(index.find("k3l"), std::string::npos) << "the word index moves with the lane: " << index;
  }
  EXPECT_TRUE(testing::module_agrees(testing::parse_case(kDequantProgram), simplified));
}

RC_GTEST_PROP(ScheduleGEMV, PreservesTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 3;
  options.max_elements = int64_t{1} << 12;
  options.template_percent = 0;
  options.weights = {{"matmul", 200}, {"linear", 200}};
  const Program p = generate_program(choices, options);
  const auto agrees = testing::compiled_agrees(p, {"LegalizeOps", "ScheduleGEMV"}, 3);
  if (!agrees) RC_FAIL(agrees.message());
}

}  // namespace
}  // namespace difftest
