// The IR's arithmetic as LLVM instructions, on scalar registers or on vectors of them.
//
// Registers hold f16 and bf16 values as f32 that are always exactly representable in the
// narrow type: every operation computes in f32 and rounds to nearest even right away (for
// + - * / and sqrt this equals direct rounding, as f32 has more than 2p + 2 bits). f16 uses
// the F16C conversions; bf16 rounds with integer arithmetic on the f32 bits. Every operation
// takes operands of one shape (all scalars or all <L x T>) and gives that shape, so a
// vectorized loop computes lane by lane exactly what the scalar loop computes.
#pragma once

#include <llvm/IR/IRBuilder.h>

#include <string>
#include <vector>

#include "compiler/context/compile_context.h"
#include "compiler/loop/ir.h"

namespace difftest::codegen {

class Arith {
 public:
  // `faults`: the compile's test faults (codegen's own four live in arith.cc).
  Arith(llvm::IRBuilder<>& b, llvm::Module& m, const FaultSet& faults) : b_(b), mod_(m), faults_(faults) {}

  llvm::Type* reg_type(DType t) const;  // the scalar register type
  llvm::Type* mem_type(DType t) const;  // the in-memory element type
  // `elem`, or a vector of `elem` with as many lanes as `like` has.
  static llvm::Type* shaped(llvm::Type* elem, const llvm::Value* like);

  // Memory element (scalar or vector) <-> register.
  llvm::Value* from_memory(llvm::Value* raw, DType t);
  llvm::Value* to_memory(llvm::Value* v, DType t);

  llvm::Value* round(llvm::Value* v, DType t);  // an f32 register rounded to f16/bf16 (identity otherwise)
  llvm::Value* binary(loop::BinOp op, DType t, llvm::Value* a, llvm::Value* b);
  llvm::Value* compare(loop::CmpOp op, DType t, llvm::Value* a, llvm::Value* b);
  llvm::Value* cast(llvm::Value* v, DType from, DType to);
  // A math call (`sqrt`, `exp`, ..., `isnan`) on operands of dtype t.
  llvm::Value* call(const std::string& name, DType t, const std::vector<llvm::Value*>& args);

 private:
  llvm::Value* from_memory_exact(llvm::Value* raw, DType t);
  llvm::Value* flush_subnormal(llvm::Value* v, DType t);
  llvm::Value* f16_toward_zero(llvm::Value* v);
  llvm::Value* round_bf16(llvm::Value* v);
  llvm::Value* round_f16(llvm::Value* v);
  llvm::Value* double_to_float_odd(llvm::Value* d);
  llvm::Value* i64_to_double_odd(llvm::Value* v);
  llvm::Value* float_to_float(llvm::Value* v, DType from, DType to);
  llvm::Value* call_intrinsic(llvm::Intrinsic::ID id, llvm::Value* x);
  llvm::Value* libm(const std::string& name, const std::vector<llvm::Value*>& args);

  llvm::IRBuilder<>& b_;
  llvm::Module& mod_;
  const FaultSet& faults_;
};

}  // namespace difftest::codegen
