// contract_multiply_adds on LLVM IR text: which sums absorb their products, and which do not.
// The values an FMA gives are checked end to end by MachineCode.ContractionFollowsTheVariant...
#include "compiler/codegen/contract_multiply_adds.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/support/llvm_ir_text.h"

namespace difftest::codegen {
namespace {

testing::RewrittenIr contract(const std::string& text, const FaultSet& faults = {}) {
  return testing::rewrite_llvm_text(text, [&](llvm::Module& m) { return contract_multiply_adds(m, faults); });
}

TEST(ContractMultiplyAdds, ASumOfAProductUsedOnceBecomesOneFma) {
  const testing::RewrittenIr c = contract(R"(
define float @f(float %a, float %b, float %c) {
  %p = fmul float %a, %b
  %s = fadd float %p, %c
  ret float %s
}
define <16 x float> @g(<16 x float> %a, <16 x float> %b, <16 x float> %c) {
  %p = fmul <16 x float> %a, %b
  %s = fadd <16 x float> %c, %p
  ret <16 x float> %s
}
)");
  EXPECT_EQ(c.count, 2);
  EXPECT_NE(c.ir.find("call float @llvm.fma.f32(float %a, float %b, float %c)"), std::string::npos) << c.ir;
  EXPECT_NE(c.ir.find("call <16 x float> @llvm.fma.v16f32(<16 x float> %a, <16 x float> %b, <16 x float> %c)"),
            std::string::npos)
      << c.ir;
  EXPECT_EQ(c.ir.find("fmul"), std::string::npos) << c.ir;
  EXPECT_EQ(c.ir.find("fadd"), std::string::npos) << c.ir;
}

// A product minus a term, and a term minus a product.
const char* kDifferences = R"(
define double @minuend(double %a, double %b, double %c) {
  %p = fmul double %a, %b
  %s = fsub double %p, %c
  ret double %s
}
define double @subtrahend(double %a, double %b, double %c) {
  %p = fmul double %a, %b
  %s = fsub double %c, %p
  ret double %s
}
)";

TEST(ContractMultiplyAdds, ADifferenceNegatesTheTermOrTheProduct) {
  const testing::RewrittenIr c = contract(kDifferences);
  EXPECT_EQ(c.count, 2);
  const size_t subtrahend = c.ir.find("@subtrahend");
  ASSERT_NE(subtrahend, std::string::npos);
  const std::string first = c.ir.substr(0, subtrahend), second = c.ir.substr(subtrahend);
  EXPECT_NE(first.find("fneg double %c"), std::string::npos) << first;
  EXPECT_NE(first.find("@llvm.fma.f64(double %a, double %b, double %"), std::string::npos) << first;
  EXPECT_NE(second.find("fneg double %a"), std::string::npos) << second;
  EXPECT_NE(second.find("double %b, double %c)"), std::string::npos) << second;
}

// The fault of this step (docs/faults.md): a product minus a term keeps the term's sign.
TEST(ContractMultiplyAdds, TheAddendSignFaultDropsOnlyTheMinuendsNegation) {
  const testing::RewrittenIr c = contract(kDifferences, FaultSet::of({"fma-contraction-drops-addend-sign"}));
  EXPECT_EQ(c.count, 2);
  const size_t subtrahend = c.ir.find("@subtrahend");
  ASSERT_NE(subtrahend, std::string::npos);
  const std::string first = c.ir.substr(0, subtrahend), second = c.ir.substr(subtrahend);
  EXPECT_EQ(first.find("fneg"), std::string::npos) << first;
  EXPECT_NE(first.find("@llvm.fma.f64(double %a, double %b, double %c)"), std::string::npos) << first;
  EXPECT_NE(second.find("fneg double %a"), std::string::npos) << "the product's side is untouched: " << second;
}

TEST(ContractMultiplyAdds, LeavesProductsReadTwiceOrInAnotherBlockAndNarrowFloats) {
  const testing::RewrittenIr c = contract(R"(
define float @twice(float %a, float %b, float %c) {
  %p = fmul float %a, %b
  %s = fadd float %p, %c
  %t = fadd float %s, %p
  ret float %t
}
define float @elsewhere(float %a, float %b, float %c) {
entry:
  %p = fmul float %a, %b
  br label %next
next:
  %s = fadd float %p, %c
  ret float %s
}
define half @narrow(half %a, half %b, half %c) {
  %p = fmul half %a, %b
  %s = fadd half %p, %c
  ret half %s
}
)");
  EXPECT_EQ(c.count, 0) << c.ir;
  EXPECT_EQ(c.ir.find("llvm.fma"), std::string::npos) << c.ir;
}

TEST(ContractMultiplyAdds, OfTwoProductsTheFirstOperandIsAbsorbed) {
  const testing::RewrittenIr c = contract(R"(
define float @f(float %a, float %b, float %x, float %y) {
  %p = fmul float %a, %b
  %q = fmul float %x, %y
  %s = fadd float %p, %q
  ret float %s
}
)");
  EXPECT_EQ(c.count, 1);
  EXPECT_NE(c.ir.find("%q = fmul float %x, %y"), std::string::npos) << c.ir;
  EXPECT_NE(c.ir.find("@llvm.fma.f32(float %a, float %b, float %q)"), std::string::npos) << c.ir;
}

}  // namespace
}  // namespace difftest::codegen
