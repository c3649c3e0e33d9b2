#include "compiler/codegen/scalar_halves_as_bits.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include <unordered_map>
#include <utility>
#include <vector>

namespace difftest::codegen {

namespace {

bool is_half(const llvm::Value* v) { return v->getType()->isHalfTy(); }

bool touches_half(const llvm::Instruction& i) {
  if (is_half(&i)) return true;
  for (const llvm::Value* operand : i.operands()) {
    if (is_half(operand)) return true;
  }
  return false;
}

// The f32 functions whose result is exact for an f16 operand (the result is an f16 value).
bool is_exact_on_halves(llvm::Intrinsic::ID id) {
  switch (id) {
    case llvm::Intrinsic::fabs:
    case llvm::Intrinsic::floor:
    case llvm::Intrinsic::ceil:
    case llvm::Intrinsic::trunc:
    case llvm::Intrinsic::rint:
    case llvm::Intrinsic::nearbyint:
    case llvm::Intrinsic::round:
      return true;
    default:
      return false;
  }
}

bool is_handled(const llvm::Instruction& i) {
  for (const llvm::Value* operand : i.operands()) {
    // A half operand is an instruction of the function or a number (not undef, not an argument).
    if (is_half(operand) && !llvm::isa<llvm::Instruction>(operand) && !llvm::isa<llvm::ConstantFP>(operand))
      return false;
  }
  if (const auto* load = llvm::dyn_cast<llvm::LoadInst>(&i)) return load->isSimple();
  if (const auto* store = llvm::dyn_cast<llvm::StoreInst>(&i)) return store->isSimple();
  if (const auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&i)) {
    return is_exact_on_halves(call->getIntrinsicID()) && is_half(call);
  }
  switch (i.getOpcode()) {
    case llvm::Instruction::FPTrunc:
      return i.getOperand(0)->getType()->isFloatTy();
    case llvm::Instruction::FPExt:
      return true;
    case llvm::Instruction::BitCast:
      return i.getType()->isIntegerTy(16) || i.getOperand(0)->getType()->isIntegerTy(16);
    case llvm::Instruction::FNeg:
    case llvm::Instruction::FAdd:
    case llvm::Instruction::FSub:
    case llvm::Instruction::FMul:
    case llvm::Instruction::FDiv:
    case llvm::Instruction::FCmp:
    case llvm::Instruction::Select:
      return true;
    default:
      return false;
  }
}

// Builds, for each scalar half value of one function, its bits (i16) and its value (f32), each
// just before the instruction that defined the half value, so both dominate all its uses.
class HalfRewriter {
 public:
  explicit HalfRewriter(llvm::LLVMContext& ctx)
      : i16_(llvm::Type::getInt16Ty(ctx)), f32_(llvm::Type::getFloatTy(ctx)) {}

  llvm::Value* bits(llvm::Value* h) {
    if (auto* c = llvm::dyn_cast<llvm::ConstantFP>(h)) {
      return llvm::ConstantInt::get(i16_, c->getValueAPF().bitcastToAPInt());
    }
    auto [at, inserted] = bits_.try_emplace(h, nullptr);
    if (inserted) at->second = build_bits(*llvm::cast<llvm::Instruction>(h));
    return at->second;
  }

  llvm::Value* value(llvm::Value* h) {
    if (auto* c = llvm::dyn_cast<llvm::Constant>(h)) return llvm::ConstantExpr::getFPExtend(c, f32_);
    auto [at, inserted] = values_.try_emplace(h, nullptr);
    if (inserted) {
      llvm::Value* b = bits(h);
      llvm::IRBuilder<> at_definition(llvm::cast<llvm::Instruction>(h));
      at->second = at_definition.CreateIntrinsic(llvm::Intrinsic::convert_from_fp16, {f32_}, {b});
    }
    return at->second;
  }

  // What replaces `user`, an instruction reading half values without giving one; nullptr for a
  // store (built, nothing to replace).
  llvm::Value* rewrite_user(llvm::Instruction& user) {
    llvm::IRBuilder<> b(&user);
    if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&user)) {
      llvm::Value* address =
          b.CreatePointerCast(store->getPointerOperand(), i16_->getPointerTo(store->getPointerAddressSpace()));
      b.CreateAlignedStore(bits(store->getValueOperand()), address, store->getAlign());
      return nullptr;
    }
    if (auto* compare = llvm::dyn_cast<llvm::FCmpInst>(&user)) {
      return b.CreateFCmp(compare->getPredicate(), value(compare->getOperand(0)), value(compare->getOperand(1)));
    }
    if (user.getOpcode() == llvm::Instruction::BitCast) return bits(user.getOperand(0));
    // fpext to f32, or to f64 (exact either way).
    llvm::Value* widened = value(user.getOperand(0));
    return user.getType()->isFloatTy() ? widened : b.CreateFPExt(widened, user.getType());
  }

 private:
  llvm::Value* to_bits(llvm::IRBuilder<>& b, llvm::Value* f32) {
    return b.CreateIntrinsic(llvm::Intrinsic::convert_to_fp16, {f32_}, {f32});
  }

  llvm::Value* build_bits(llvm::Instruction& h) {
    llvm::IRBuilder<> b(&h);
    if (auto* load = llvm::dyn_cast<llvm::LoadInst>(&h)) {
      llvm::Value* address =
          b.CreatePointerCast(load->getPointerOperand(), i16_->getPointerTo(load->getPointerAddressSpace()));
      return b.CreateAlignedLoad(i16_, address, load->getAlign());
    }
    if (auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&h)) {
      if (call->getIntrinsicID() == llvm::Intrinsic::fabs) return b.CreateAnd(bits(call->getArgOperand(0)), 0x7FFF);
      return to_bits(b, b.CreateUnaryIntrinsic(call->getIntrinsicID(), value(call->getArgOperand(0))));
    }
    switch (h.getOpcode()) {
      case llvm::Instruction::FPTrunc:
        return to_bits(b, h.getOperand(0));
      case llvm::Instruction::BitCast:
        return h.getOperand(0);
      case llvm::Instruction::FNeg:
        return b.CreateXor(bits(h.getOperand(0)), 0x8000);
      case llvm::Instruction::Select:
        return b.CreateSelect(h.getOperand(0), bits(h.getOperand(1)), bits(h.getOperand(2)));
      default:  // fadd, fsub, fmul, fdiv
        return to_bits(b, b.CreateBinOp(static_cast<llvm::Instruction::BinaryOps>(h.getOpcode()),
                                        value(h.getOperand(0)), value(h.getOperand(1))));
    }
  }

  llvm::Type* i16_;
  llvm::Type* f32_;
  std::unordered_map<llvm::Value*, llvm::Value*> bits_, values_;
};

bool rewrite(llvm::Function& f) {
  std::vector<llvm::Instruction*> halves;
  for (llvm::BasicBlock& block : f) {
    for (llvm::Instruction& i : block) {
      if (!touches_half(i)) continue;
      if (!is_handled(i)) return false;
      halves.push_back(&i);
    }
  }
  if (halves.empty()) return false;
  HalfRewriter rewriter(f.getContext());
  // Every replacement first, then the uses: a new select may read an fcmp not yet replaced.
  std::vector<std::pair<llvm::Instruction*, llvm::Value*>> replaced;
  for (llvm::Instruction* i : halves) {
    if (is_half(i)) {
      rewriter.bits(i);
    } else if (llvm::Value* by = rewriter.rewrite_user(*i)) {
      replaced.emplace_back(i, by);
    }
  }
  for (auto& [old, by] : replaced) old->replaceAllUsesWith(by);
  for (llvm::Instruction* i : halves) i->dropAllReferences();
  for (llvm::Instruction* i : halves) i->eraseFromParent();
  return true;
}

}  // namespace

int scalar_halves_as_bits(llvm::Module& m) {
  int rewritten = 0;
  for (llvm::Function& f : m) rewritten += rewrite(f) ? 1 : 0;
  return rewritten;
}

}  // namespace difftest::codegen
