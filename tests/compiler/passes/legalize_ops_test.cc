// LegalizeOps: graph text in, loop text out (each op a PrimFunc written from its semantics, the
// program a sequence of calls, symbolic extents kept), and the property that generated
// programs lowered by it alone agree with the reference. Every op's numerics at O0 are covered
// op by op in tests/compiler/o0_agreement_test.cc; these cases pin down the lowering's shape
// where a wrong one would still often agree (broadcast index, floor division, nibble order,
// accumulator dtype).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "fuzz/generator.h"
#include "tests/support/pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

void expect_lowering(const std::string& in, const std::string& want, const std::string& intent) {
  pipeline::RunOptions options;
  options.context.target = &target::text_default_target();  // the expected texts carry no target line
  const loop::Module got = pipeline::run_passes(testing::parse_case(in), {"LegalizeOps"}, options).module;
  loop::verify(got);
  EXPECT_EQ(loop::print(got), loop::print(loop::parse_module(want, "<want>"))) << "LegalizeOps: " << intent;
}

TEST(LegalizeOps, BroadcastsAnOperandAlongTheSymbolicAxisAndKeepsTheDim) {
  expect_lowering(R"(program @f(n: 1..8) {
  %a: f32[n, 4] = param
  %b: f32[4] = param
  %c: f32[n, 4] = add(%a, %b)
  return %c
}
)",
                  R"(
func @add_0(a: f32[n, 4], b: f32[4], c: f32[n, 4]) dims(n) {
  for (i0, 0, n) serial {
    for (i1, 0, 4) serial {
      c[((i0 * 4) + i1)] = (a[((i0 * 4) + i1)] + b[i1])
    }
  }
}

call @add_0(a, b, c) dims(n)
outputs(c)
)",
                  "b is indexed by the last axis only; the extent stays n, not a guessed constant");
}

TEST(LegalizeOps, IntegerFloorDivideLowersToFloorDivisionNotTruncation) {
  expect_lowering(R"(program @f() {
  %a: i32[6] = param
  %b: i32[6] = param
  %c: i32[6] = floor_divide(%a, %b)
  return %c
}
)",
                  R"(
func @floor_divide_0(a: i32[6], b: i32[6], c: i32[6]) dims() {
  for (i0, 0, 6) serial {
    c[i0] = (a[i0] // b[i0])
  }
}

call @floor_divide_0(a, b, c) dims()
outputs(c)
)",
                  "the loop IR's // floors, as the op does");
}

TEST(LegalizeOps, Q4f16_1DecodesLowNibbleFirstWithZeroPoint7AndOneScalePerGroup) {
  expect_lowering(R"(program @f() {
  %w: u32[2, 8] = param
  %s: f16[2, 2] = param
  %d: f16[2, 64] = dequantize(%w, %s, format="q4f16_1", group=32)
  return %d
}
)",
                  R"(
func @dequantize_0(w: u32[2, 8], s: f16[2, 2], d: f16[2, 64]) dims() {
  for (i0, 0, (1 * 2)) serial {
    for (i1, 0, 64) serial {
      d[((i0 * 64) + i1)] = cast<f16>((cast<f32>((cast<i32>(((w[((i0 * 8) + (i1 // 8))] >> cast<u32>(((i1 % 8) * 4))) & 15:u32)) - 7:i32)) * cast<f32>(s[((i0 * 2) + (i1 // 32))])))
    }
  }
}

call @dequantize_0(w, s, d) dims()
outputs(d)
)",
                  "MLC's layout: element j in bits 4*(j%8) of word j//8, code - 7, scale of group j//32");
}

TEST(LegalizeOps, MatmulAccumulatesInTheDeclaredDtypeAndEachOpIsOneCall) {
  expect_lowering(R"(program @f(m: 1..4) {
  %x: f16[m, 8] = param
  %w: f16[3, 8] = param
  %y: f16[m, 3] = matmul(%x, %w, transpose_b=true, acc=f32)
  %z: f16[m, 3] = exp(%y)
  return %z
}
)",
                  R"(
func @matmul_0(x: f16[m, 8], w: f16[3, 8], y: f16[m, 3]) dims(m) {
  for (i0, 0, m) serial {
    for (i1, 0, 3) serial {
      alloc acc2: f32[1] local {
        acc2[0] = 0.0:f32
        for (k3, 0, 8) serial {
          acc2[0] = (acc2[0] + (cast<f32>(x[((i0 * 8) + k3)]) * cast<f32>(w[((i1 * 8) + k3)])))
        }
        y[((i0 * 3) + i1)] = cast<f16>(acc2[0])
      }
    }
  }
}

func @exp_1(y: f16[m, 3], z: f16[m, 3]) dims(m) {
  for (i0, 0, m) serial {
    for (i1, 0, 3) serial {
      z[((i0 * 3) + i1)] = exp(y[((i0 * 3) + i1)])
    }
  }
}

call @matmul_0(x, w, y) dims(m)
call @exp_1(y, z) dims(m)
outputs(z)
)",
                  "an f32 accumulator rounded to f16 once per output; transpose_b reads w by row");
}

RC_GTEST_PROP(LegalizeOps, LoweredProgramsAgreeWithTheReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 6;
  const Program p = generate_program(choices, options);
  const auto agrees = testing::compiled_agrees(p, {"LegalizeOps"}, 0);
  if (!agrees) RC_FAIL(agrees.message());
}

}  // namespace
}  // namespace difftest
