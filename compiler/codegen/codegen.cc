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

#include "compiler/codegen/arith.h"
#include "compiler/codegen/vector_loop.h"
#include "compiler/faults/faults.h"
#include "compiler/loop/analysis.h"
#include "compiler/support/diagnostics.h"
#include "compiler/loop/printer.h"
#include "compiler/loop/visitor.h"

namespace difftest::codegen {

// Test faults of this file (docs/faults.md): off unless switched on.

const faults::Fault kCodegenStuckLoop({
    .name = "codegen-stuck-loop",
    .pass = "codegen",
    .description = "codegen emits latches that add 0 instead of 1 to the outermost loops of elementwise "
        "math-function kernels (exp, log, sqrt, tanh, erf, sin, cos, floor, round), so they never terminate: a "
        "miscompiled loop latch",
    .models = "a miscompiled loop latch",
});

namespace {

using loop::BinOp;
using loop::CmpOp;
using loop::Expr;
using loop::ExprKind;
using loop::Stmt;
using loop::StmtKind;

// The op a PrimFunc was lowered from: LegalizeOps names it `<op>_<k>`.
std::string kernel_op(const std::string& func) {
  const size_t us = func.find_last_of('_');
  if (us == std::string::npos || us + 1 == func.size()) return func;
  const bool numbered = func.find_first_not_of("0123456789", us + 1) == std::string::npos;
  return numbered ? func.substr(0, us) : func;
}

// Fault codegen-stuck-loop: the kernels whose outermost loops never advance.
bool stuck_loop_target(const loop::PrimFunc& f) {
  static const std::set<std::string> ops = {"exp", "log", "sqrt", "tanh", "erf", "sin", "cos", "floor", "round"};
  return ops.count(kernel_op(f.name)) > 0;
}

class FunctionEmitter {
 public:
  FunctionEmitter(llvm::Module& m, llvm::Function* fn, const FaultSet& faults)
      : ctx_(m.getContext()), mod_(m), b_(ctx_), faults_(faults), arith_{b_, mod_, faults}, fn_(fn) {}

  void emit(const loop::PrimFunc& f) {
    if (faults_.contains(kCodegenStuckLoop)) stuck_outer_loops_ = stuck_loop_target(f);
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
  llvm::Type* mem_type(DType t) const { return arith_.mem_type(t); }

  // -------------------------------------------------------------------------- memory
  llvm::Value* address(const loop::Buffer& buf, llvm::Value* index) {
    const auto it = buffers_.find(buf.name());
    DT_CHECK(it != buffers_.end(), fmt::format("codegen: unknown buffer {}", buf.name()));
    return b_.CreateInBoundsGEP(mem_type(buf.dtype()), it->second, index);
  }
  llvm::Value* load(const loop::Buffer& buf, llvm::Value* index) {
    return arith_.from_memory(b_.CreateLoad(mem_type(buf.dtype()), address(buf, index)), buf.dtype());
  }
  void store(const loop::Buffer& buf, llvm::Value* index, llvm::Value* v) {
    b_.CreateStore(arith_.to_memory(v, buf.dtype()), address(buf, index));
  }

  // ---------------------------------------------------------------------- expressions
  llvm::Value* emit(const Expr& e) {
    const loop::ExprNode& n = e.node();
    switch (n.kind) {
      case ExprKind::IntImm: return llvm::ConstantInt::get(arith_.reg_type(n.dtype), static_cast<uint64_t>(n.int_value), true);
      case ExprKind::FloatImm: return llvm::ConstantFP::get(arith_.reg_type(n.dtype), n.float_value);
      case ExprKind::Var: {
        const auto it = vars_.find(n.name);
        DT_CHECK(it != vars_.end(), fmt::format("codegen: unbound variable {}", n.name));
        return it->second;
      }
      case ExprKind::Load: return load(n.buffer, emit(n.operands[0]));
      default: return combine(n, [this](const Expr& o) { return emit(o); });
    }
  }

  // An operator node applied to its emitted operands (scalars, or vectors of one width).
  template <typename EmitOperand>
  llvm::Value* combine(const loop::ExprNode& n, EmitOperand&& operand) {
    switch (n.kind) {
      case ExprKind::Binary: return arith_.binary(n.bin, n.dtype, operand(n.operands[0]), operand(n.operands[1]));
      case ExprKind::Compare: return arith_.compare(n.cmp, n.operands[0].dtype(), operand(n.operands[0]), operand(n.operands[1]));
      case ExprKind::Not: return b_.CreateNot(operand(n.operands[0]));
      case ExprKind::Cast: return arith_.cast(operand(n.operands[0]), n.operands[0].dtype(), n.dtype);
      case ExprKind::Select: return b_.CreateSelect(operand(n.operands[0]), operand(n.operands[1]), operand(n.operands[2]));
      case ExprKind::Call: {
        std::vector<llvm::Value*> args;
        for (const auto& o : n.operands) args.push_back(operand(o));
        return arith_.call(n.name, n.operands[0].dtype(), args);
      }
      default: break;
    }
    DT_CHECK(false, "codegen: not an operator node");
    return nullptr;
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
    if (n.for_kind == loop::ForKind::Parallel) {
      emit_parallel_for(n);
      return;
    }
    const bool stuck = stuck_outer_loops_ && loop_depth_ == 0;  // fault codegen-stuck-loop keeps its loop
    if (const auto stores = vector_loop_stores(n); stores && !stuck) {
      emit_vector_loop(n, *stores);
      return;
    }
    llvm::Value* lo = emit(n.min);
    emit_serial_loop(n, lo, b_.CreateAdd(lo, emit(n.extent)));
  }

  // ------------------------------------------------------------------ vectorized loops
  // vector_loop.h says which loops; each store is emitted once, over every lane.
  void emit_vector_loop(const loop::StmtNode& n, const std::vector<Stmt>& stores) {
    lane_var_ = n.var.node().name;
    lane_base_ = emit(n.min);
    lanes_ = static_cast<unsigned>(n.extent.node().int_value);
    for (const auto& s : stores) {
      llvm::Value* v = arith_.to_memory(emit_lanes(s.node().value), s.node().buffer.dtype());
      b_.CreateAlignedStore(v, vector_address(s.node().buffer, s.node().index), element_align(s.node().buffer));
    }
    lane_var_.clear();
  }

  // An expression's value in every lane: a vector, or a splat of what does not depend on the lane.
  llvm::Value* emit_lanes(const Expr& e) {
    if (!uses_var(e, lane_var_)) return b_.CreateVectorSplat(lanes_, emit(e));
    const loop::ExprNode& n = e.node();
    switch (n.kind) {
      case ExprKind::Var: {  // the lane variable
        std::vector<uint64_t> steps(lanes_);
        for (unsigned i = 0; i < lanes_; ++i) steps[i] = i;
        return b_.CreateAdd(b_.CreateVectorSplat(lanes_, lane_base_), llvm::ConstantDataVector::get(ctx_, steps));
      }
      case ExprKind::Load: return load_lanes(n.buffer, n.operands[0]);
      default: return combine(n, [this](const Expr& o) { return emit_lanes(o); });
    }
  }

  // Consecutive elements are one vector load; any other index gathers lane by lane.
  llvm::Value* load_lanes(const loop::Buffer& buf, const Expr& index) {
    llvm::Type* elem = mem_type(buf.dtype());
    if (lane_stride(index, lane_var_) == 1) {
      auto* ty = llvm::FixedVectorType::get(elem, lanes_);
      return arith_.from_memory(b_.CreateAlignedLoad(ty, vector_address(buf, index), element_align(buf)), buf.dtype());
    }
    llvm::Value* at = emit_lanes(index);
    llvm::Value* raw = llvm::UndefValue::get(llvm::FixedVectorType::get(elem, lanes_));
    for (unsigned i = 0; i < lanes_; ++i) {
      llvm::Value* x = b_.CreateLoad(elem, address(buf, b_.CreateExtractElement(at, i)));
      raw = b_.CreateInsertElement(raw, x, i);
    }
    return arith_.from_memory(raw, buf.dtype());
  }

  // The address of lane 0's element, as a pointer to a vector of all lanes' elements.
  llvm::Value* vector_address(const loop::Buffer& buf, const Expr& index) {
    vars_[lane_var_] = lane_base_;
    llvm::Value* first = address(buf, emit(index));
    vars_.erase(lane_var_);
    return b_.CreateBitCast(first, llvm::FixedVectorType::get(mem_type(buf.dtype()), lanes_)->getPointerTo());
  }

  llvm::Align element_align(const loop::Buffer& buf) const {
    return llvm::Align(mem_type(buf.dtype())->getPrimitiveSizeInBits() / 8);
  }

  // for i in [lo, end): the body, with loop metadata for vectorized / unrolled loops.
  void emit_serial_loop(const loop::StmtNode& n, llvm::Value* lo, llvm::Value* end) {
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
    ++loop_depth_;
    emit(n.body[0]);
    --loop_depth_;
    vars_.erase(n.var.node().name);
    llvm::Value* step = b_.getInt64(1);
    if (stuck_outer_loops_ && loop_depth_ == 0) step = b_.getInt64(0);  // fault codegen-stuck-loop
    // No signed wrap: the body runs only while i < end, so i + 1 <= end. Stated, LLVM can tell
    // an index counting up from 0 is never negative and turn the floor divisions and modulos of
    // index arithmetic into shifts and masks.
    i->addIncoming(b_.CreateNSWAdd(i, step), b_.GetInsertBlock());
    llvm::BranchInst* latch = b_.CreateBr(header);
    if (llvm::MDNode* md = loop_metadata(n)) latch->setMetadata(llvm::LLVMContext::MD_loop, md);
    b_.SetInsertPoint(exit);
  }

  // Hints only: the loop optimizers decide legality, so the result never depends on them. They
  // act at LLVM levels >= 1 (level 0 runs no IR passes).
  llvm::MDNode* loop_metadata(const loop::StmtNode& n) {
    std::vector<llvm::Metadata*> hints;
    auto flag = [&](const char* name) {
      hints.push_back(llvm::MDNode::get(
          ctx_, {llvm::MDString::get(ctx_, name), llvm::ConstantAsMetadata::get(b_.getTrue())}));
    };
    if (n.for_kind == loop::ForKind::Vectorized) {
      // A forced vectorization lets LLVM reorder a float reduction (LoopVectorizeHints::
      // allowReordering), which changes results; a loop that reads a buffer it writes gets no
      // hint, and LLVM vectorizes it only when that keeps the scalar order.
      if (reads_what_it_writes(n.body[0])) return nullptr;
      flag("llvm.loop.vectorize.enable");
      if (n.extent.kind() == ExprKind::IntImm && n.extent.node().int_value >= 2) {
        // A constant extent: a width that fits it (a power of two up to 8).
        uint32_t width = 2;
        while (width < 8 && width * 2 <= static_cast<uint64_t>(n.extent.node().int_value)) width *= 2;
        hints.push_back(llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.vectorize.width"),
                                                 llvm::ConstantAsMetadata::get(b_.getInt32(width))}));
      }
    } else if (n.for_kind == loop::ForKind::Unrolled) {
      flag("llvm.loop.unroll.full");
    } else {
      return nullptr;
    }
    // A loop ID is a distinct node whose first operand is itself.
    auto self = llvm::MDNode::getTemporary(ctx_, {});
    hints.insert(hints.begin(), self.get());
    llvm::MDNode* id = llvm::MDNode::getDistinct(ctx_, hints);
    id->replaceOperandWith(0, id);
    return id;
  }

  static bool reads_what_it_writes(const Stmt& body) {
    const loop::Footprint a = loop::footprint(body);
    for (const auto& b : a.stored) {
      if (a.loaded.count(b)) return true;
    }
    return false;
  }

  // The body goes to an internal function `void(i8* closure, i64 lo, i64 hi)` that runs
  // iterations [lo, hi); the runtime pool (compiler/runtime/thread_pool.h) calls it on chunks.
  // The closure is a struct of every variable and buffer pointer in scope, in name order.
  void emit_parallel_for(const loop::StmtNode& n) {
    std::vector<std::pair<std::string, llvm::Value*>> captured;
    for (const auto& [name, v] : vars_) captured.emplace_back("v:" + name, v);
    for (const auto& [name, v] : buffers_) captured.emplace_back("b:" + name, v);
    std::vector<llvm::Type*> fields;
    for (const auto& c : captured) fields.push_back(c.second->getType());
    llvm::StructType* closure_ty = llvm::StructType::get(ctx_, fields);

    auto* body_ty = llvm::FunctionType::get(b_.getVoidTy(), {b_.getInt8PtrTy(), b_.getInt64Ty(), b_.getInt64Ty()}, false);
    auto* body_fn = llvm::Function::Create(body_ty, llvm::Function::InternalLinkage,
                                           fn_->getName() + ".parallel." + n.var.node().name, mod_);
    body_fn->addFnAttr(llvm::Attribute::NoUnwind);
    {
      FunctionEmitter inner(mod_, body_fn, faults_);
      inner.stuck_outer_loops_ = stuck_outer_loops_;
      inner.loop_depth_ = loop_depth_;
      inner.entry_ = llvm::BasicBlock::Create(ctx_, "entry", body_fn);
      inner.b_.SetInsertPoint(inner.entry_);
      llvm::Value* env = inner.b_.CreateBitCast(body_fn->getArg(0), closure_ty->getPointerTo());
      for (size_t k = 0; k < captured.size(); ++k) {
        llvm::Value* v = inner.b_.CreateLoad(fields[k], inner.b_.CreateStructGEP(closure_ty, env, static_cast<unsigned>(k)));
        const std::string& key = captured[k].first;
        (key[0] == 'v' ? inner.vars_ : inner.buffers_)[key.substr(2)] = v;
      }
      inner.emit_serial_loop(n, body_fn->getArg(1), body_fn->getArg(2));
      inner.b_.CreateRetVoid();
    }

    llvm::Value* env = llvm::IRBuilder<>(entry_, entry_->begin()).CreateAlloca(closure_ty, nullptr, "closure");
    for (size_t k = 0; k < captured.size(); ++k) {
      b_.CreateStore(captured[k].second, b_.CreateStructGEP(closure_ty, env, static_cast<unsigned>(k)));
    }
    llvm::Value* lo = emit(n.min);
    llvm::Value* end = b_.CreateAdd(lo, emit(n.extent));
    llvm::FunctionCallee run = mod_.getOrInsertFunction(
        "difftest_parallel_for",
        llvm::FunctionType::get(b_.getVoidTy(), {body_ty->getPointerTo(), b_.getInt8PtrTy(), b_.getInt64Ty(), b_.getInt64Ty()}, false));
    b_.CreateCall(run, {body_fn, b_.CreateBitCast(env, b_.getInt8PtrTy()), lo, end});
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
  const FaultSet& faults_;
  Arith arith_;
  llvm::Function* fn_;
  llvm::BasicBlock* entry_ = nullptr;
  int loop_depth_ = 0;              // For loops around the statement being emitted
  bool stuck_outer_loops_ = false;  // fault codegen-stuck-loop is on and this is a target kernel
  std::map<std::string, llvm::Value*> vars_;
  std::map<std::string, llvm::Value*> buffers_;
  std::string lane_var_;  // the variable of the vectorized loop being emitted as vectors
  llvm::Value* lane_base_ = nullptr;
  unsigned lanes_ = 0;
};

}  // namespace

std::string symbol_name(const std::string& prefix, const std::string& func) { return prefix + func; }

std::unique_ptr<llvm::Module> emit_module(const loop::Module& m, const std::string& prefix, llvm::LLVMContext& ctx,
                                          const FaultSet& faults) {
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
    // Host features, generic tuning: LLVM 14's Zen 3 model unrolls so much more than the
    // generic one that every compile took 1.7x the CPU, and a kernel's code should not depend on
    // which x86 model compiled it beyond the instructions it may use.
    fn->addFnAttr("tune-cpu", "generic");
    FunctionEmitter(*mod, fn, faults).emit(f);
  }
  std::string problems;
  llvm::raw_string_ostream os(problems);
  DT_CHECK(!llvm::verifyModule(*mod, &os), "codegen produced invalid LLVM IR: " + os.str());
  return mod;
}

std::string emit_llvm_text(const loop::Module& m, const std::string& prefix, const FaultSet& faults) {
  llvm::LLVMContext ctx;
  auto mod = emit_module(m, prefix, ctx, faults);
  std::string text;
  llvm::raw_string_ostream os(text);
  mod->print(os, nullptr);
  return os.str();
}

}  // namespace difftest::codegen
