#include "compiler/codegen/contract_multiply_adds.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include <vector>

#include "compiler/faults/faults.h"

namespace difftest::codegen {

// Test faults of this file (docs/faults.md): off unless switched on.

const faults::Fault kFmaContractionDropsAddendSign({
    .name = "fma-contraction-drops-addend-sign",
    .pass = "ContractMultiplyAdds",
    .description = "ContractMultiplyAdds rewrites fsub (fmul x, y), z as fma(x, y, z), not fma(x, y, -z): the "
        "subtrahend's negation is lost, so a product minus a value computes the product plus it wherever the two "
        "meet in one kernel of a contracting variant (O3)",
    .models = "sign tracking through an fma rewrite (llvm/llvm-project#220602: ComplexDeinterleaving applied the "
        "product's sign to the addend of an fma)",
});

namespace {

// A product the sum `user` may absorb: an fmul in the user's block that nothing else reads (a
// product read twice would be computed twice, once fused and once not, as the DAG combiner avoids).
llvm::BinaryOperator* absorbable_product(llvm::Value* operand, const llvm::Instruction& user) {
  auto* product = llvm::dyn_cast<llvm::BinaryOperator>(operand);
  if (!product || product->getOpcode() != llvm::Instruction::FMul) return nullptr;
  if (product->getParent() != user.getParent() || !product->hasOneUse()) return nullptr;
  return product;
}

bool is_contractible_type(const llvm::Type* t) {
  const llvm::Type* element = t->getScalarType();
  return element->isFloatTy() || element->isDoubleTy();
}

// `sum` as one fma, built before it, and the product it absorbed; {nullptr, nullptr} when neither
// operand is an absorbable product.
struct Contraction {
  llvm::Value* fma;
  llvm::BinaryOperator* product;
};

Contraction contracted(llvm::BinaryOperator& sum, bool drop_addend_sign) {
  const bool subtract = sum.getOpcode() == llvm::Instruction::FSub;
  llvm::IRBuilder<> b(&sum);
  llvm::Value *x = nullptr, *y = nullptr, *z = nullptr;
  llvm::BinaryOperator* product = absorbable_product(sum.getOperand(0), sum);
  if (product) {
    x = product->getOperand(0);
    y = product->getOperand(1);
    z = subtract && !drop_addend_sign ? b.CreateFNeg(sum.getOperand(1)) : sum.getOperand(1);
  } else if ((product = absorbable_product(sum.getOperand(1), sum))) {
    x = subtract ? b.CreateFNeg(product->getOperand(0)) : product->getOperand(0);
    y = product->getOperand(1);
    z = sum.getOperand(0);
  } else {
    return {nullptr, nullptr};
  }
  return {b.CreateIntrinsic(llvm::Intrinsic::fma, {sum.getType()}, {x, y, z}), product};
}

}  // namespace

int contract_multiply_adds(llvm::Module& m, const FaultSet& faults) {
  const bool drop_addend_sign = faults.contains(kFmaContractionDropsAddendSign);
  int count = 0;
  for (llvm::Function& f : m) {
    for (llvm::BasicBlock& block : f) {
      std::vector<llvm::BinaryOperator*> sums;
      for (llvm::Instruction& i : block) {
        auto* sum = llvm::dyn_cast<llvm::BinaryOperator>(&i);
        if (sum && (sum->getOpcode() == llvm::Instruction::FAdd || sum->getOpcode() == llvm::Instruction::FSub) &&
            is_contractible_type(sum->getType())) {
          sums.push_back(sum);
        }
      }
      for (llvm::BinaryOperator* sum : sums) {
        const Contraction c = contracted(*sum, drop_addend_sign);
        if (!c.fma) continue;
        sum->replaceAllUsesWith(c.fma);
        sum->eraseFromParent();
        c.product->eraseFromParent();
        ++count;
      }
    }
  }
  return count;
}

}  // namespace difftest::codegen
