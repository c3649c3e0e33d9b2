#include "compiler/codegen/contract_multiply_adds.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include <vector>

namespace difftest::codegen {

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

Contraction contracted(llvm::BinaryOperator& sum) {
  const bool subtract = sum.getOpcode() == llvm::Instruction::FSub;
  llvm::IRBuilder<> b(&sum);
  llvm::Value *x = nullptr, *y = nullptr, *z = nullptr;
  llvm::BinaryOperator* product = absorbable_product(sum.getOperand(0), sum);
  if (product) {
    x = product->getOperand(0);
    y = product->getOperand(1);
    z = subtract ? b.CreateFNeg(sum.getOperand(1)) : sum.getOperand(1);
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

int contract_multiply_adds(llvm::Module& m) {
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
        const Contraction c = contracted(*sum);
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
