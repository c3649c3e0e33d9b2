#include "compiler/codegen/codegen.h"

#include <fmt/format.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <map>
#include <set>

#include "compiler/ir/diagnostics.h"
#include "compiler/loop/printer.h"

namespace difftest::codegen {

namespace {

using loop::BinOp;
using loop::CmpOp;
using loop::Expr;
using loop::ExprKind;
using loop::Stmt;
using loop::StmtKind;

bool is_narrow_float(DType t) { return t == DType::f16 || t == DType::bf16; }
bool is_unsigned(DType t) { return is_unsigned_int(t) || is_bool(t); }

class FunctionEmitter {
 public:
  FunctionEmitter(llvm::Module& m, llvm::Function* fn) : ctx_(m.getContext()), mod_(m), b_(ctx_), fn_(fn) {}

  void emit(const loop::PrimFunc& f) {
    entry_ = llvm::BasicBlock::Create(ctx_, "entry", fn_);
    b_.SetInsertPoint(entry_);
    llvm::Value* bufs = fn_->getArg(0);
    llvm::Value* dims = fn_->getArg(1);
    for (size_t i = 0; i < f.dims.size(); ++i) {
      llvm::Value* at = b_.CreateConstInBoundsGEP1_64(b_.getInt64Ty(), dims, i);
      vars_[f.dims[i].node().name] = b_.CreateLoad(b_.getInt64Ty(), at, f.dims[i].node().name);
    }
    for (size_t i = 0; i < f.params.size(); ++i) {
      const loop::Buffer& p = f.params[i];
      llvm::Value* at = b_.CreateConstInBoundsGEP1_64(b_.getInt8PtrTy(), bufs, i);
      llvm::Value* raw = b_.CreateLoad(b_.getInt8PtrTy(), at);
      buffers_[p.name()] = b_.CreateBitCast(raw, mem_type(p.dtype())->getPointerTo(), p.name());
    }
    emit(f.body);
    b_.CreateRetVoid();
  }

 private:
  // ------------------------------------------------------------------------------ types
  llvm::Type* reg_type(DType t) {
    switch (t) {
      case DType::f64: return b_.getDoubleTy();
      case DType::f32:
      case DType::f16:
      case DType::bf16: return b_.getFloatTy();
      case DType::i64: return b_.getInt64Ty();
      case DType::i32:
      case DType::u32: return b_.getInt32Ty();
      case DType::i8:
      case DType::u8: return b_.getInt8Ty();
      case DType::boolean: return b_.getInt1Ty();
    }
    return nullptr;
  }
  llvm::Type* mem_type(DType t) {
    if (is_narrow_float(t)) return b_.getInt16Ty();
    if (is_bool(t)) return b_.getInt8Ty();
    return reg_type(t);
  }

  // ------------------------------------------------------------------------- rounding
  // f32 register value -> the nearest bf16 (ties to even), still as f32. NaN -> quiet NaN.
  llvm::Value* round_bf16(llvm::Value* v) {
    llvm::Value* bits = b_.CreateBitCast(v, b_.getInt32Ty());
    llvm::Value* lsb = b_.CreateAnd(b_.CreateLShr(bits, 16), 1);
    llvm::Value* r = b_.CreateAnd(b_.CreateAdd(b_.CreateAdd(bits, b_.getInt32(0x7FFF)), lsb), b_.getInt32(0xFFFF0000u));
    llvm::Value* nan = b_.CreateFCmpUNO(v, v);
    return b_.CreateBitCast(b_.CreateSelect(nan, b_.getInt32(0x7FC00000), r), b_.getFloatTy());
  }
  llvm::Value* round_f16(llvm::Value* v) { return b_.CreateFPExt(b_.CreateFPTrunc(v, b_.getHalfTy()), b_.getFloatTy()); }
  // Rounds an f32 register to t (identity for f32/f64 and non-floats).
  llvm::Value* round(llvm::Value* v, DType t) {
    if (t == DType::f16) return round_f16(v);
    if (t == DType::bf16) return round_bf16(v);
    return v;
  }
  // f64 -> f32 rounding to odd, so that a second rounding to f16/bf16 (>= 2 bits narrower)
  // equals the direct rounding of the f64 value.
  llvm::Value* double_to_float_odd(llvm::Value* d) {
    llvm::Value* f = b_.CreateFPTrunc(d, b_.getFloatTy());
    llvm::Value* back = b_.CreateFPExt(f, b_.getDoubleTy());
    llvm::Value* inexact = b_.CreateFCmpONE(back, d);
    // Rounded away from zero: step one ulp toward zero (magnitude bits - 1), then make odd.
    llvm::Value* away = b_.CreateFCmpOGT(call_intrinsic(llvm::Intrinsic::fabs, back),
                                         call_intrinsic(llvm::Intrinsic::fabs, d));
    llvm::Value* bits = b_.CreateBitCast(f, b_.getInt32Ty());
    llvm::Value* toward = b_.CreateSelect(away, b_.CreateSub(bits, b_.getInt32(1)), bits);
    llvm::Value* odd = b_.CreateOr(toward, b_.getInt32(1));
    return b_.CreateBitCast(b_.CreateSelect(inexact, odd, bits), b_.getFloatTy());
  }
  // i64 -> f64 rounded to odd: magnitudes from 2^53 lose their low 11 bits into a sticky bit, so
  // a later rounding to f32/f16/bf16 equals the direct rounding of the integer.
  llvm::Value* i64_to_double_odd(llvm::Value* v) {
    llvm::Value* neg = b_.CreateICmpSLT(v, b_.getInt64(0));
    llvm::Value* mag = b_.CreateSelect(neg, b_.CreateNeg(v), v);  // INT64_MIN stays 2^63 read as unsigned
    llvm::Value* big = b_.CreateICmpUGE(mag, b_.getInt64(uint64_t{1} << 53));
    llvm::Value* sticky = b_.CreateZExt(b_.CreateICmpNE(b_.CreateAnd(mag, b_.getInt64(0x7FF)), b_.getInt64(0)), b_.getInt64Ty());
    llvm::Value* odd = b_.CreateOr(b_.CreateLShr(mag, 11), sticky);
    llvm::Value* big_d = b_.CreateFMul(b_.CreateUIToFP(odd, b_.getDoubleTy()), llvm::ConstantFP::get(b_.getDoubleTy(), 2048.0));
    llvm::Value* d = b_.CreateSelect(big, big_d, b_.CreateUIToFP(mag, b_.getDoubleTy()));
    return b_.CreateSelect(neg, b_.CreateFNeg(d), d);
  }

  // A value of float dtype `from` (register form) as float dtype `to`, rounded once.
  llvm::Value* float_to_float(llvm::Value* v, DType from, DType to) {
    if (from == to) return v;
    if (to == DType::f64) return b_.CreateFPExt(v, b_.getDoubleTy());
    if (from == DType::f64) {
      if (to == DType::f32) return b_.CreateFPTrunc(v, b_.getFloatTy());
      return round(double_to_float_odd(v), to);
    }
    return round(v, to);  // f32/f16/bf16 registers are f32 already
  }

  llvm::Value* call_intrinsic(llvm::Intrinsic::ID id, llvm::Value* x) {
    llvm::Function* f = llvm::Intrinsic::getDeclaration(&mod_, id, {x->getType()});
    return b_.CreateCall(f, {x});
  }

  llvm::Value* libm(const std::string& name, std::vector<llvm::Value*> args) {
    llvm::Type* t = args[0]->getType();
    const std::string sym = t->isFloatTy() ? name + "f" : name;
    std::vector<llvm::Type*> params(args.size(), t);
    llvm::FunctionCallee f = mod_.getOrInsertFunction(sym, llvm::FunctionType::get(t, params, false));
    return b_.CreateCall(f, args);
  }

  // -------------------------------------------------------------------------- memory
  llvm::Value* address(const loop::Buffer& buf, llvm::Value* index) {
    const auto it = buffers_.find(buf.name());
    DT_CHECK(it != buffers_.end(), fmt::format("codegen: unknown buffer {}", buf.name()));
    return b_.CreateInBoundsGEP(mem_type(buf.dtype()), it->second, index);
  }
  llvm::Value* load(const loop::Buffer& buf, llvm::Value* index) {
    llvm::Value* raw = b_.CreateLoad(mem_type(buf.dtype()), address(buf, index));
    switch (buf.dtype()) {
      case DType::f16: return b_.CreateFPExt(b_.CreateBitCast(raw, b_.getHalfTy()), b_.getFloatTy());
      case DType::bf16:
        return b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(raw, b_.getInt32Ty()), 16), b_.getFloatTy());
      case DType::boolean: return b_.CreateICmpNE(raw, b_.getInt8(0));
      default: return raw;
    }
  }
  void store(const loop::Buffer& buf, llvm::Value* index, llvm::Value* v) {
    llvm::Value* raw = v;
    switch (buf.dtype()) {
      case DType::f16: raw = b_.CreateBitCast(b_.CreateFPTrunc(v, b_.getHalfTy()), b_.getInt16Ty()); break;
      case DType::bf16:
        raw = b_.CreateTrunc(b_.CreateLShr(b_.CreateBitCast(round_bf16(v), b_.getInt32Ty()), 16), b_.getInt16Ty());
        break;
      case DType::boolean: raw = b_.CreateZExt(v, b_.getInt8Ty()); break;
      default: break;
    }
    b_.CreateStore(raw, address(buf, index));
  }

  // ---------------------------------------------------------------------- expressions
  llvm::Value* emit(const Expr& e) {
    const loop::ExprNode& n = e.node();
    switch (n.kind) {
      case ExprKind::IntImm: return llvm::ConstantInt::get(reg_type(n.dtype), static_cast<uint64_t>(n.int_value), true);
      case ExprKind::FloatImm: return llvm::ConstantFP::get(reg_type(n.dtype), n.float_value);
      case ExprKind::Var: {
        const auto it = vars_.find(n.name);
        DT_CHECK(it != vars_.end(), fmt::format("codegen: unbound variable {}", n.name));
        return it->second;
      }
      case ExprKind::Load: return load(n.buffer, emit(n.operands[0]));
      case ExprKind::Binary: return binary(n.bin, n.dtype, emit(n.operands[0]), emit(n.operands[1]));
      case ExprKind::Compare: return compare(n.cmp, n.operands[0].dtype(), emit(n.operands[0]), emit(n.operands[1]));
      case ExprKind::Not: return b_.CreateNot(emit(n.operands[0]));
      case ExprKind::Cast: return cast(emit(n.operands[0]), n.operands[0].dtype(), n.dtype);
      case ExprKind::Select: return b_.CreateSelect(emit(n.operands[0]), emit(n.operands[1]), emit(n.operands[2]));
      case ExprKind::Call: return call(n);
    }
    return nullptr;
  }

  llvm::Value* binary(BinOp op, DType t, llvm::Value* a, llvm::Value* b) {
    if (is_float(t)) {
      switch (op) {
        case BinOp::Add: return round(b_.CreateFAdd(a, b), t);
        case BinOp::Sub: return round(b_.CreateFSub(a, b), t);
        case BinOp::Mul: return round(b_.CreateFMul(a, b), t);
        case BinOp::Div: return round(b_.CreateFDiv(a, b), t);
        case BinOp::FloorDiv: return call_intrinsic(llvm::Intrinsic::floor, round(b_.CreateFDiv(a, b), t));
        case BinOp::FloorMod: {
          llvm::Value* r = b_.CreateFRem(a, b);  // exact
          llvm::Value* zero = llvm::ConstantFP::get(a->getType(), 0.0);
          llvm::Value* fix = b_.CreateAnd(b_.CreateFCmpUNE(r, zero),
                                          b_.CreateXor(b_.CreateFCmpOLT(r, zero), b_.CreateFCmpOLT(b, zero)));
          return b_.CreateSelect(fix, round(b_.CreateFAdd(r, b), t), r);
        }
        case BinOp::Min:
        case BinOp::Max: {
          // NaN-propagating; otherwise std::min / std::max (which keep `a` on ties).
          llvm::Value* nan = b_.CreateFCmpUNO(a, b);
          llvm::Value* take_b = op == BinOp::Max ? b_.CreateFCmpOLT(a, b) : b_.CreateFCmpOLT(b, a);
          llvm::Value* pick = b_.CreateSelect(take_b, b, a);
          return b_.CreateSelect(nan, llvm::ConstantFP::getNaN(a->getType()), pick);
        }
        default: break;
      }
      DT_CHECK(false, fmt::format("codegen: '{}' on floats", loop::binop_symbol(op)));
    }
    const bool uns = is_unsigned(t);
    llvm::Type* ty = a->getType();
    switch (op) {
      case BinOp::Add: return b_.CreateAdd(a, b);
      case BinOp::Sub: return b_.CreateSub(a, b);
      case BinOp::Mul: return b_.CreateMul(a, b);
      case BinOp::And: return b_.CreateAnd(a, b);
      case BinOp::Or: return b_.CreateOr(a, b);
      case BinOp::BitAnd: return b_.CreateAnd(a, b);
      case BinOp::BitOr: return b_.CreateOr(a, b);
      case BinOp::BitXor: return b_.CreateXor(a, b);
      case BinOp::Shl: return b_.CreateShl(a, b);
      case BinOp::Shr: return uns ? b_.CreateLShr(a, b) : b_.CreateAShr(a, b);
      case BinOp::Min: return b_.CreateSelect(uns ? b_.CreateICmpULT(b, a) : b_.CreateICmpSLT(b, a), b, a);
      case BinOp::Max: return b_.CreateSelect(uns ? b_.CreateICmpULT(a, b) : b_.CreateICmpSLT(a, b), b, a);
      case BinOp::FloorDiv:
      case BinOp::FloorMod: {
        llvm::Value* zero = llvm::ConstantInt::get(ty, 0);
        llvm::Value* by_zero = b_.CreateICmpEQ(b, zero);
        if (uns) {
          llvm::Value* safe = b_.CreateSelect(by_zero, llvm::ConstantInt::get(ty, 1), b);
          llvm::Value* r = op == BinOp::FloorDiv ? b_.CreateUDiv(a, safe) : b_.CreateURem(a, safe);
          return b_.CreateSelect(by_zero, zero, r);
        }
        // Division by 0 gives 0; by -1 wraps (MIN // -1 == MIN, x % -1 == 0) without the trap.
        llvm::Value* minus_one = b_.CreateICmpEQ(b, llvm::ConstantInt::get(ty, static_cast<uint64_t>(-1), true));
        llvm::Value* safe = b_.CreateSelect(b_.CreateOr(by_zero, minus_one), llvm::ConstantInt::get(ty, 1), b);
        llvm::Value* q = b_.CreateSDiv(a, safe);
        llvm::Value* r = b_.CreateSRem(a, safe);
        llvm::Value* adjust = b_.CreateAnd(b_.CreateICmpNE(r, zero),
                                           b_.CreateXor(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(safe, zero)));
        if (op == BinOp::FloorDiv) {
          llvm::Value* fq = b_.CreateSelect(adjust, b_.CreateSub(q, llvm::ConstantInt::get(ty, 1)), q);
          return b_.CreateSelect(by_zero, zero, b_.CreateSelect(minus_one, b_.CreateNeg(a), fq));
        }
        llvm::Value* fr = b_.CreateSelect(adjust, b_.CreateAdd(r, safe), r);
        return b_.CreateSelect(b_.CreateOr(by_zero, minus_one), zero, fr);
      }
      default: break;
    }
    DT_CHECK(false, fmt::format("codegen: '{}' on integers", loop::binop_symbol(op)));
    return nullptr;
  }

  llvm::Value* compare(CmpOp op, DType t, llvm::Value* a, llvm::Value* b) {
    if (is_float(t)) {
      switch (op) {
        case CmpOp::EQ: return b_.CreateFCmpOEQ(a, b);
        case CmpOp::NE: return b_.CreateFCmpUNE(a, b);
        case CmpOp::LT: return b_.CreateFCmpOLT(a, b);
        case CmpOp::LE: return b_.CreateFCmpOLE(a, b);
        case CmpOp::GT: return b_.CreateFCmpOGT(a, b);
        case CmpOp::GE: return b_.CreateFCmpOGE(a, b);
      }
    }
    const bool uns = is_unsigned(t);
    switch (op) {
      case CmpOp::EQ: return b_.CreateICmpEQ(a, b);
      case CmpOp::NE: return b_.CreateICmpNE(a, b);
      case CmpOp::LT: return uns ? b_.CreateICmpULT(a, b) : b_.CreateICmpSLT(a, b);
      case CmpOp::LE: return uns ? b_.CreateICmpULE(a, b) : b_.CreateICmpSLE(a, b);
      case CmpOp::GT: return uns ? b_.CreateICmpUGT(a, b) : b_.CreateICmpSGT(a, b);
      case CmpOp::GE: return uns ? b_.CreateICmpUGE(a, b) : b_.CreateICmpSGE(a, b);
    }
    return nullptr;
  }

  // The IR's cast semantics (compiler/tensor/float_format.h): float -> int rounds toward zero
  // and saturates, NaN -> 0; int -> int keeps the low bits; anything -> bool is `!= 0`.
  llvm::Value* cast(llvm::Value* v, DType from, DType to) {
    if (from == to) return v;
    if (is_bool(to)) {
      if (is_float(from)) return b_.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0));
      return b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
    }
    if (is_float(from) && is_float(to)) return float_to_float(v, from, to);
    if (is_float(from)) {
      const auto id = is_unsigned_int(to) ? llvm::Intrinsic::fptoui_sat : llvm::Intrinsic::fptosi_sat;
      llvm::Function* f = llvm::Intrinsic::getDeclaration(&mod_, id, {reg_type(to), v->getType()});
      return b_.CreateCall(f, {v});
    }
    if (is_float(to)) {
      const bool uns = is_unsigned(from);
      if (to == DType::f32 || to == DType::f64) {
        return uns ? b_.CreateUIToFP(v, reg_type(to)) : b_.CreateSIToFP(v, reg_type(to));
      }
      // To f64 first (exact below 2^53; i64 beyond that is rounded to odd), then one rounding.
      llvm::Value* d = from == DType::i64 ? i64_to_double_odd(v)
                                          : (uns ? b_.CreateUIToFP(v, b_.getDoubleTy()) : b_.CreateSIToFP(v, b_.getDoubleTy()));
      return float_to_float(d, DType::f64, to);
    }
    return is_unsigned(from) ? b_.CreateZExtOrTrunc(v, reg_type(to)) : b_.CreateSExtOrTrunc(v, reg_type(to));
  }

  llvm::Value* call(const loop::ExprNode& n) {
    const DType t = n.operands[0].dtype();
    std::vector<llvm::Value*> args;
    for (const auto& o : n.operands) args.push_back(emit(o));
    if (n.name == "isnan") return b_.CreateFCmpUNO(args[0], args[0]);
    static const std::map<std::string, llvm::Intrinsic::ID> exact = {{"sqrt", llvm::Intrinsic::sqrt},
                                                                      {"fabs", llvm::Intrinsic::fabs},
                                                                      {"floor", llvm::Intrinsic::floor},
                                                                      {"ceil", llvm::Intrinsic::ceil},
                                                                      {"round", llvm::Intrinsic::rint}};
    if (const auto it = exact.find(n.name); it != exact.end()) return round(call_intrinsic(it->second, args[0]), t);
    return round(libm(n.name, args), t);
  }

  // ----------------------------------------------------------------------- statements
  void emit(const Stmt& s) {
    const loop::StmtNode& n = s.node();
    switch (n.kind) {
      case StmtKind::For: emit_for(n); break;
      case StmtKind::Store: store(n.buffer, emit(n.index), emit(n.value)); break;
      case StmtKind::Allocate: emit_allocate(n); break;
      case StmtKind::IfThenElse: emit_if(n); break;
      case StmtKind::Seq:
        for (const auto& b : n.body) emit(b);
        break;
      case StmtKind::Evaluate: emit(n.value); break;
    }
  }

  void emit_for(const loop::StmtNode& n) {
    llvm::Value* lo = emit(n.min);
    llvm::Value* end = b_.CreateAdd(lo, emit(n.extent));
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    auto* header = llvm::BasicBlock::Create(ctx_, "for." + n.var.node().name, fn_);
    auto* body = llvm::BasicBlock::Create(ctx_, "body." + n.var.node().name, fn_);
    auto* exit = llvm::BasicBlock::Create(ctx_, "end." + n.var.node().name, fn_);
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    llvm::PHINode* i = b_.CreatePHI(b_.getInt64Ty(), 2, n.var.node().name);
    i->addIncoming(lo, pre);
    b_.CreateCondBr(b_.CreateICmpSLT(i, end), body, exit);
    b_.SetInsertPoint(body);
    vars_[n.var.node().name] = i;
    emit(n.body[0]);
    vars_.erase(n.var.node().name);
    i->addIncoming(b_.CreateAdd(i, b_.getInt64(1)), b_.GetInsertBlock());
    b_.CreateBr(header);
    b_.SetInsertPoint(exit);
  }

  void emit_allocate(const loop::StmtNode& n) {
    const loop::Buffer& buf = n.buffer;
    const Expr numel = buf.numel();
    llvm::Type* elem = mem_type(buf.dtype());
    if (n.scope == loop::Scope::Local && numel.kind() == ExprKind::IntImm) {
      // Allocas go to the entry block so a loop around the allocation does not grow the stack.
      llvm::IRBuilder<> at_entry(entry_, entry_->begin());
      buffers_[buf.name()] = at_entry.CreateAlloca(elem, at_entry.getInt64(static_cast<uint64_t>(numel.node().int_value)), buf.name());
      emit(n.body[0]);
      buffers_.erase(buf.name());
      return;
    }
    llvm::FunctionCallee malloc_fn =
        mod_.getOrInsertFunction("malloc", llvm::FunctionType::get(b_.getInt8PtrTy(), {b_.getInt64Ty()}, false));
    llvm::FunctionCallee free_fn =
        mod_.getOrInsertFunction("free", llvm::FunctionType::get(b_.getVoidTy(), {b_.getInt8PtrTy()}, false));
    llvm::Value* bytes = b_.CreateMul(emit(numel), b_.getInt64(static_cast<uint64_t>(dtype_bytes(buf.dtype()))));
    llvm::Value* raw = b_.CreateCall(malloc_fn, {b_.CreateSelect(b_.CreateICmpEQ(bytes, b_.getInt64(0)), b_.getInt64(1), bytes)});
    buffers_[buf.name()] = b_.CreateBitCast(raw, elem->getPointerTo(), buf.name());
    emit(n.body[0]);
    buffers_.erase(buf.name());
    b_.CreateCall(free_fn, {raw});
  }

  void emit_if(const loop::StmtNode& n) {
    llvm::Value* cond = emit(n.value);
    auto* then_bb = llvm::BasicBlock::Create(ctx_, "then", fn_);
    auto* else_bb = n.body.size() > 1 ? llvm::BasicBlock::Create(ctx_, "else", fn_) : nullptr;
    auto* join = llvm::BasicBlock::Create(ctx_, "endif", fn_);
    b_.CreateCondBr(cond, then_bb, else_bb ? else_bb : join);
    b_.SetInsertPoint(then_bb);
    emit(n.body[0]);
    b_.CreateBr(join);
    if (else_bb) {
      b_.SetInsertPoint(else_bb);
      emit(n.body[1]);
      b_.CreateBr(join);
    }
    b_.SetInsertPoint(join);
  }

  llvm::LLVMContext& ctx_;
  llvm::Module& mod_;
  llvm::IRBuilder<> b_;
  llvm::Function* fn_;
  llvm::BasicBlock* entry_ = nullptr;
  std::map<std::string, llvm::Value*> vars_;
  std::map<std::string, llvm::Value*> buffers_;
};

}  // namespace

std::string symbol_name(const std::string& prefix, const std::string& func) { return prefix + func; }

std::unique_ptr<llvm::Module> emit_module(const loop::Module& m, const std::string& prefix, llvm::LLVMContext& ctx) {
  auto mod = std::make_unique<llvm::Module>(prefix + "module", ctx);
  llvm::Type* i8pp = llvm::Type::getInt8PtrTy(ctx)->getPointerTo();
  llvm::Type* i64p = llvm::Type::getInt64PtrTy(ctx);
  auto* sig = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {i8pp, i64p}, false);
  std::set<std::string> seen;
  for (const auto& f : m.funcs) {
    const std::string sym = symbol_name(prefix, f.name);
    DT_CHECK(seen.insert(sym).second, fmt::format("codegen: duplicate symbol {}", sym));
    llvm::Function* fn = llvm::Function::Create(sig, llvm::Function::ExternalLinkage, sym, *mod);
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    FunctionEmitter(*mod, fn).emit(f);
  }
  std::string problems;
  llvm::raw_string_ostream os(problems);
  DT_CHECK(!llvm::verifyModule(*mod, &os), "codegen produced invalid LLVM IR: " + os.str());
  return mod;
}

std::string emit_llvm_text(const loop::Module& m, const std::string& prefix) {
  llvm::LLVMContext ctx;
  auto mod = emit_module(m, prefix, ctx);
  std::string text;
  llvm::raw_string_ostream os(text);
  mod->print(os, nullptr);
  return os.str();
}

}  // namespace difftest::codegen
