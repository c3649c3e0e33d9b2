// scalar_halves_as_bits on LLVM IR text: which half values become i16 bits and F16C conversions.
// The values are checked end to end by Codegen.F16RoundsAfterEveryOperation at the fast effort.
#include "compiler/codegen/scalar_halves_as_bits.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/support/llvm_ir_text.h"

namespace difftest::codegen {
namespace {

testing::RewrittenIr rewrite(const std::string& text) {
  return testing::rewrite_llvm_text(text, scalar_halves_as_bits);
}

bool has(const std::string& ir, const std::string& what) { return ir.find(what) != std::string::npos; }

// The functions' bodies (the declarations of the half intrinsics they called stay).
std::string bodies(const std::string& ir) { return ir.substr(0, ir.rfind("\n}\n")); }

// What the emitter writes for an f16 add: widen both operands, add in f32, round, store.
TEST(ScalarHalvesAsBits, LoadsStoresAndRoundingsBecomeBitsAndConversions) {
  const testing::RewrittenIr r = rewrite(R"(
define void @add(half* %x, half* %y, half* %out) {
  %a = load half, half* %x, align 2
  %b = load half, half* %y, align 2
  %wa = fpext half %a to float
  %wb = fpext half %b to float
  %s = fadd float %wa, %wb
  %h = fptrunc float %s to half
  store half %h, half* %out, align 2
  ret void
}
)");
  EXPECT_EQ(r.count, 1);
  EXPECT_FALSE(has(bodies(r.ir), " half ")) << r.ir;
  EXPECT_TRUE(has(r.ir, "load i16, i16*")) << r.ir;
  EXPECT_TRUE(has(r.ir, "call float @llvm.convert.from.fp16.f32(i16")) << r.ir;
  EXPECT_TRUE(has(r.ir, "fadd float")) << r.ir;
  EXPECT_TRUE(has(r.ir, "call i16 @llvm.convert.to.fp16.f32(float %s)")) << r.ir;
  EXPECT_TRUE(has(r.ir, "store i16")) << r.ir;
}

// InstCombine narrows fptrunc(fadd(fpext a, fpext b)) to fadd half: it is done in f32 again.
TEST(ScalarHalvesAsBits, ArithmeticOnHalvesIsDoneInF32AndRounded) {
  const testing::RewrittenIr r = rewrite(R"(
define double @f(half* %x, half* %out) {
  %a = load half, half* %x, align 2
  %m = fmul half %a, 0xH3C01
  %q = fdiv half %m, %a
  %n = fneg half %q
  %abs = call half @llvm.fabs.f16(half %n)
  %fl = call half @llvm.floor.f16(half %abs)
  %gt = fcmp ogt half %fl, %a
  %pick = select i1 %gt, half %fl, half %n
  store half %pick, half* %out, align 2
  %wide = fpext half %a to double
  ret double %wide
}
declare half @llvm.fabs.f16(half)
declare half @llvm.floor.f16(half)
)");
  EXPECT_EQ(r.count, 1);
  EXPECT_FALSE(has(bodies(r.ir), " half ")) << r.ir;
  EXPECT_TRUE(has(r.ir, "fmul float")) << r.ir;
  EXPECT_TRUE(has(r.ir, "0x3FF0040000000000")) << "1 + 2^-10 as an f32 constant:\n" << r.ir;
  EXPECT_TRUE(has(r.ir, "fdiv float")) << r.ir;
  EXPECT_TRUE(has(r.ir, "xor i16")) << "the negation flips the sign bit:\n" << r.ir;
  EXPECT_TRUE(has(r.ir, "and i16")) << "the absolute value clears it:\n" << r.ir;
  EXPECT_TRUE(has(r.ir, "@llvm.floor.f32(float")) << r.ir;
  EXPECT_TRUE(has(r.ir, "fcmp ogt float")) << r.ir;
  EXPECT_TRUE(has(r.ir, "select i1 %")) << r.ir;
  EXPECT_TRUE(has(r.ir, "fpext float")) << r.ir;
}

TEST(ScalarHalvesAsBits, LeavesAFunctionWithAHalfItCannotRewriteAndVectors) {
  const testing::RewrittenIr r = rewrite(R"(
define half @phi(i1 %c, half %a, half %b) {
entry:
  br i1 %c, label %then, label %join
then:
  br label %join
join:
  %p = phi half [ %a, %entry ], [ %b, %then ]
  ret half %p
}
define void @vector(<8 x half>* %x, <8 x float>* %out) {
  %v = load <8 x half>, <8 x half>* %x, align 2
  %w = fpext <8 x half> %v to <8 x float>
  store <8 x float> %w, <8 x float>* %out, align 4
  ret void
}
)");
  EXPECT_EQ(r.count, 0) << r.ir;
  EXPECT_TRUE(has(r.ir, "phi half")) << r.ir;
  EXPECT_TRUE(has(r.ir, "fpext <8 x half>")) << r.ir;
  EXPECT_FALSE(has(r.ir, "convert")) << r.ir;
}

}  // namespace
}  // namespace difftest::codegen
