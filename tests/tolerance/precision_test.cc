// computed_in (tolerance/precision.h): the program as a level that computes its floats in bf16 or
// f16 runs it. Text in, text out (the expected text written by hand), and the narrowed program's
// reference against the program's on inputs that the narrowing rounds.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "fuzz/generator.h"
#include "reference/reference.h"
#include "tests/support/ir_util.h"
#include "tolerance/precision.h"

namespace difftest::tolerance {
namespace {

TEST(ComputedIn, FloatsNarrowBetweenCastsAtTheEdgesAndIntegersAndAccumulatorsStay) {
  const Program p = testing::verified_program(R"(program @mlp(n: 1..8) {
  %x: f32[n, 4] = param
  %w: f32[4, 3] = param
  %i: i32[3] = param
  %c: f32[] = const 0.1
  %y: f32[n, 3] = matmul(%x, %w, acc=f32)
  %z: f32[n, 3] = mul(%y, %c)
  %f: f32[3] = cast(%i, dtype=f32)
  %s: f32[n, 3] = add(%z, %f)
  %h: f16[n, 3] = cast(%s, dtype=f16)
  %k: i32[n, 3] = cast(%h, dtype=i32)
  return %s, %h, %k, %i
}
)",
                                                "mlp.ir");
  EXPECT_EQ(print(computed_in(p, DType::bf16)), R"(program @mlp(n: 1..8) {
  %x: f32[n, 4] = param
  %x_in: bf16[n, 4] = cast(%x, dtype=bf16)
  %w: f32[4, 3] = param
  %w_in: bf16[4, 3] = cast(%w, dtype=bf16)
  %i: i32[3] = param
  %c: bf16[] = const 0.1
  %y: bf16[n, 3] = matmul(%x_in, %w_in, acc=f32)
  %z: bf16[n, 3] = mul(%y, %c)
  %f: bf16[3] = cast(%i, dtype=bf16)
  %s: bf16[n, 3] = add(%z, %f)
  %h: bf16[n, 3] = cast(%s, dtype=bf16)
  %k: i32[n, 3] = cast(%h, dtype=i32)
  %s_out: f32[n, 3] = cast(%s)
  %h_out: f16[n, 3] = cast(%h, dtype=f16)
  return %s_out, %h_out, %k, %i
}
)");
}

// q4f16_1 fixes its scales as f16: quantize computes them as f16 from the narrowed weights, and
// dequantize, which takes only f16 scales, runs on the level's bf16 scale cast back to f16.
TEST(ComputedIn, AQuantizationFormatKeepsItsDtypesBetweenCasts) {
  const Program p = testing::verified_program(R"(program @q() {
  %w: f32[1, 32] = param
  %packed: u32[1, 4], %scales: f16[1, 1] = quantize(%w, format="q4f16_1", group=32)
  %y: f16[1, 32] = dequantize(%packed, %scales, format="q4f16_1", group=32)
  %z: f16[1, 32] = mul(%y, %y)
  return %z
}
)",
                                                "q.ir");
  EXPECT_EQ(print(computed_in(p, DType::bf16)), R"(program @q() {
  %w: f32[1, 32] = param
  %w_in: bf16[1, 32] = cast(%w, dtype=bf16)
  %packed: u32[1, 4], %scales: f16[1, 1] = quantize(%w_in, format="q4f16_1", group=32)
  %scales_in: bf16[1, 1] = cast(%scales, dtype=bf16)
  %scales_as_declared: f16[1, 1] = cast(%scales_in, dtype=f16)
  %y: f16[1, 32] = dequantize(%packed, %scales_as_declared, format="q4f16_1", group=32)
  %y_in: bf16[1, 32] = cast(%y, dtype=bf16)
  %z: bf16[1, 32] = mul(%y_in, %y_in)
  %z_out: f16[1, 32] = cast(%z, dtype=f16)
  return %z_out
}
)");
}

TEST(ComputedIn, AProgramWithoutNarrowerFloatsIsItself) {
  const Program p = testing::verified_program(R"(program @ints() {
  %a: i32[4] = param
  %b: f64[4] = cast(%a, dtype=f64)
  return %b
}
)",
                                                "ints.ir");
  EXPECT_TRUE(computed_in(p, DType::bf16).same_as(p));
  EXPECT_FALSE(narrows(p, DType::f16));
}

// 1 + 2^-10 is an f32 and an f16 but not a bf16 (8 significant bits): the bf16 program's
// reference rounds it to 1 where it enters, so x * 1024 - 1024 is 0 there and 1 in f32 and f16.
TEST(ComputedIn, TheNarrowedReferenceRoundsWhereTheLevelRounds) {
  const Program p = testing::verified_program(R"(program @tiny() {
  %x: f32[1] = param
  %c: f32[] = const 1024
  %y: f32[1] = mul(%x, %c)
  %z: f32[1] = sub(%y, %c)
  return %z
}
)",
                                                "tiny.ir");
  std::map<std::string, Tensor> inputs;
  inputs["x"] = Tensor::from_doubles(DType::f32, {1}, {1 + 1.0 / 1024});
  EXPECT_EQ(reference::evaluate(p, {}, inputs, reference::Mode::Native).outputs.at(0).get(0), 1.0);
  EXPECT_EQ(reference::evaluate(computed_in(p, DType::f16), {}, inputs, reference::Mode::Native).outputs.at(0).get(0), 1.0);
  EXPECT_EQ(reference::evaluate(computed_in(p, DType::bf16), {}, inputs, reference::Mode::Native).outputs.at(0).get(0), 0.0);
}

// Every generated program has a narrowed form that verifies, in both precisions: no op the
// generator draws refuses bf16 or f16 operands.
TEST(ComputedIn, EveryGeneratedProgramNarrowsToAVerifiedProgram) {
  int narrowed = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    const Program p = generate_program(seed);
    for (const DType precision : {DType::bf16, DType::f16}) {
      try {
        const Program q = computed_in(p, precision);
        verify(q);
        narrowed += !q.same_as(p);
      } catch (const UserError& e) {
        ADD_FAILURE() << "seed " << seed << " in " << dtype_name(precision) << ": " << e.what();
      }
    }
  }
  EXPECT_GT(narrowed, 500);
}

}  // namespace
}  // namespace difftest::tolerance
