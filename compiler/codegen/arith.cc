#include "compiler/codegen/arith.h"

#include <fmt/format.h>
#include <llvm/IR/Intrinsics.h>

#include <map>

#include "compiler/faults/faults.h"
#include "compiler/support/diagnostics.h"

namespace difftest::codegen {

// Test faults of this file (docs/faults.md): off unless switched on.

const faults::Fault kBf16RoundTruncates({
    .name = "bf16-round-truncates",
    .pass = "codegen",
    .description = "codegen rounds f32 register values to bf16 by dropping the low 16 bits (toward zero) instead of "
        "rounding to nearest even: every inexact bf16 result moves less than one ulp, always toward zero: the "
        "truncating f32-to-bf16 conversion of early bf16 kernels",
    .models = "the truncating f32-to-bf16 conversion of early bf16 kernels",
});

const faults::Fault kF16VectorRoundTruncates({
    .name = "f16-vector-round-truncates",
    .pass = "codegen",
    .description = "codegen rounds f32 vector registers to f16 (after each f16 operation of a vectorized loop body) "
        "toward zero instead of to nearest even: at most one ulp, on the elements that round away from zero, in "
        "vector code only; a float-to-half routine that truncates",
    .models = "a float-to-half conversion that truncates (dmlc/mshadow#368; TVM's bf16 cast 1 ulp low against ONNX "
        "Runtime, apache/tvm#11171)",
    .held_out = true,
});

const faults::Fault kRoundTiesAwayFromZero({
    .name = "round-ties-away-from-zero",
    .pass = "codegen",
    .description = "codegen emits `round` (and every rounding built on it, quantize's included) as llvm.round, "
        "which rounds halves away from zero, instead of rint's ties-to-even: wrong on exact ties only; the ONNX "
        "Round lowering that gives round(0.5) = 1",
    .models = "ONNX `Round` lowered to `llvm.round` (apache/tvm#18590)",
    .held_out = true,
});

const faults::Fault kSubnormalLoadsFlushed({
    .name = "subnormal-loads-flushed",
    .pass = "codegen",
    .description = "codegen flushes subnormal float values to signed zero as it loads them (denormals-are-zero), so "
        "a subnormal intermediate stored by one kernel reads as 0 in the next: flush-to-zero turned on by a "
        "fast-math setting",
    .models = "flush-to-zero switched on by a compiler (pytorch/pytorch#126848)",
    .held_out = true,
});

using loop::BinOp;
using loop::CmpOp;

namespace {
bool is_unsigned(DType t) { return is_unsigned_int(t) || is_bool(t); }
llvm::Constant* splat_int(llvm::Type* ty, uint64_t v) { return llvm::ConstantInt::get(ty, v, false); }
}  // namespace

llvm::Type* Arith::reg_type(DType t) const {
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

llvm::Type* Arith::mem_type(DType t) const {
  if (t == DType::f16 || t == DType::bf16) return b_.getInt16Ty();
  if (is_bool(t)) return b_.getInt8Ty();
  return reg_type(t);
}

llvm::Type* Arith::shaped(llvm::Type* elem, const llvm::Value* like) {
  if (const auto* v = llvm::dyn_cast<llvm::FixedVectorType>(like->getType())) {
    return llvm::FixedVectorType::get(elem, v->getNumElements());
  }
  return elem;
}

llvm::Value* Arith::from_memory(llvm::Value* raw, DType t) {
  if (is_float(t) && faults_.contains(kSubnormalLoadsFlushed)) return flush_subnormal(from_memory_exact(raw, t), t);
  return from_memory_exact(raw, t);
}

// Fault subnormal-loads-flushed: a subnormal of the memory dtype becomes a zero of its sign, as
// loads under a denormals-are-zero setting read it.
llvm::Value* Arith::flush_subnormal(llvm::Value* v, DType t) {
  llvm::Value* tiny = b_.CreateFCmpOLT(call_intrinsic(llvm::Intrinsic::fabs, v),
                                       llvm::ConstantFP::get(v->getType(), smallest_normal(t)));
  llvm::Value* zero = b_.CreateFMul(v, llvm::ConstantFP::get(v->getType(), 0.0));  // keeps the sign
  return b_.CreateSelect(tiny, zero, v);
}

llvm::Value* Arith::from_memory_exact(llvm::Value* raw, DType t) {
  switch (t) {
    case DType::f16: return b_.CreateFPExt(b_.CreateBitCast(raw, shaped(b_.getHalfTy(), raw)), shaped(b_.getFloatTy(), raw));
    case DType::bf16:
      return b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(raw, shaped(b_.getInt32Ty(), raw)), 16),
                              shaped(b_.getFloatTy(), raw));
    case DType::boolean: return b_.CreateICmpNE(raw, splat_int(raw->getType(), 0));
    default: return raw;
  }
}

llvm::Value* Arith::to_memory(llvm::Value* v, DType t) {
  switch (t) {
    case DType::f16: return b_.CreateBitCast(b_.CreateFPTrunc(v, shaped(b_.getHalfTy(), v)), shaped(b_.getInt16Ty(), v));
    case DType::bf16:
      return b_.CreateTrunc(b_.CreateLShr(b_.CreateBitCast(round_bf16(v), shaped(b_.getInt32Ty(), v)), 16),
                            shaped(b_.getInt16Ty(), v));
    case DType::boolean: return b_.CreateZExt(v, shaped(b_.getInt8Ty(), v));
    default: return v;
  }
}

// Fault f16-vector-round-truncates: f32 registers rounded to f16 toward zero: the nearest f16,
// stepped one ulp back toward zero where it lies farther from zero than the value (an overflow
// to infinity becomes the largest finite; NaN compares false and is kept). Still as f32.
llvm::Value* Arith::f16_toward_zero(llvm::Value* v) {
  llvm::Value* nearest = b_.CreateFPTrunc(v, shaped(b_.getHalfTy(), v));
  llvm::Value* back = b_.CreateFPExt(nearest, v->getType());
  llvm::Value* away =
      b_.CreateFCmpOGT(call_intrinsic(llvm::Intrinsic::fabs, back), call_intrinsic(llvm::Intrinsic::fabs, v));
  llvm::Value* bits = b_.CreateBitCast(nearest, shaped(b_.getInt16Ty(), v));
  llvm::Value* toward = b_.CreateSelect(away, b_.CreateSub(bits, splat_int(bits->getType(), 1)), bits);
  return b_.CreateFPExt(b_.CreateBitCast(toward, shaped(b_.getHalfTy(), v)), v->getType());
}

// ------------------------------------------------------------------------------ rounding
// f32 register value -> the nearest bf16 (ties to even), still as f32. NaN -> quiet NaN.
llvm::Value* Arith::round_bf16(llvm::Value* v) {
  llvm::Value* bits = b_.CreateBitCast(v, shaped(b_.getInt32Ty(), v));
  llvm::Type* ty = bits->getType();
  llvm::Value* lsb = b_.CreateAnd(b_.CreateLShr(bits, 16), 1);
  llvm::Value* r =
      faults_.contains(kBf16RoundTruncates)
          ? b_.CreateAnd(bits, splat_int(ty, 0xFFFF0000u))
          : b_.CreateAnd(b_.CreateAdd(b_.CreateAdd(bits, splat_int(ty, 0x7FFF)), lsb), splat_int(ty, 0xFFFF0000u));
  llvm::Value* nan = b_.CreateFCmpUNO(v, v);
  return b_.CreateBitCast(b_.CreateSelect(nan, splat_int(ty, 0x7FC00000), r), v->getType());
}

llvm::Value* Arith::round_f16(llvm::Value* v) {
  if (v->getType()->isVectorTy() && faults_.contains(kF16VectorRoundTruncates)) return f16_toward_zero(v);
  return b_.CreateFPExt(b_.CreateFPTrunc(v, shaped(b_.getHalfTy(), v)), v->getType());
}

llvm::Value* Arith::round(llvm::Value* v, DType t) {
  if (t == DType::f16) return round_f16(v);
  if (t == DType::bf16) return round_bf16(v);
  return v;
}

// f64 -> f32 rounding to odd, so that a second rounding to f16/bf16 (>= 2 bits narrower)
// equals the direct rounding of the f64 value.
llvm::Value* Arith::double_to_float_odd(llvm::Value* d) {
  llvm::Value* f = b_.CreateFPTrunc(d, shaped(b_.getFloatTy(), d));
  llvm::Value* back = b_.CreateFPExt(f, d->getType());
  llvm::Value* inexact = b_.CreateFCmpONE(back, d);
  // Rounded away from zero: step one ulp toward zero (magnitude bits - 1), then make odd.
  llvm::Value* away = b_.CreateFCmpOGT(call_intrinsic(llvm::Intrinsic::fabs, back), call_intrinsic(llvm::Intrinsic::fabs, d));
  llvm::Value* bits = b_.CreateBitCast(f, shaped(b_.getInt32Ty(), d));
  llvm::Value* toward = b_.CreateSelect(away, b_.CreateSub(bits, splat_int(bits->getType(), 1)), bits);
  llvm::Value* odd = b_.CreateOr(toward, 1);
  return b_.CreateBitCast(b_.CreateSelect(inexact, odd, bits), f->getType());
}

// i64 -> f64 rounded to odd: magnitudes from 2^53 lose their low 11 bits into a sticky bit, so
// a later rounding to f32/f16/bf16 equals the direct rounding of the integer.
llvm::Value* Arith::i64_to_double_odd(llvm::Value* v) {
  llvm::Type* ty = v->getType();
  llvm::Type* dty = shaped(b_.getDoubleTy(), v);
  llvm::Value* neg = b_.CreateICmpSLT(v, splat_int(ty, 0));
  llvm::Value* mag = b_.CreateSelect(neg, b_.CreateNeg(v), v);  // INT64_MIN stays 2^63 read as unsigned
  llvm::Value* big = b_.CreateICmpUGE(mag, splat_int(ty, uint64_t{1} << 53));
  llvm::Value* sticky = b_.CreateZExt(b_.CreateICmpNE(b_.CreateAnd(mag, 0x7FF), splat_int(ty, 0)), ty);
  llvm::Value* odd = b_.CreateOr(b_.CreateLShr(mag, 11), sticky);
  llvm::Value* big_d = b_.CreateFMul(b_.CreateUIToFP(odd, dty), llvm::ConstantFP::get(dty, 2048.0));
  llvm::Value* d = b_.CreateSelect(big, big_d, b_.CreateUIToFP(mag, dty));
  return b_.CreateSelect(neg, b_.CreateFNeg(d), d);
}

// A value of float dtype `from` (register form) as float dtype `to`, rounded once.
llvm::Value* Arith::float_to_float(llvm::Value* v, DType from, DType to) {
  if (from == to) return v;
  if (to == DType::f64) return b_.CreateFPExt(v, shaped(b_.getDoubleTy(), v));
  if (from == DType::f64) {
    if (to == DType::f32) return b_.CreateFPTrunc(v, shaped(b_.getFloatTy(), v));
    return round(double_to_float_odd(v), to);
  }
  return round(v, to);  // f32/f16/bf16 registers are f32 already
}

llvm::Value* Arith::call_intrinsic(llvm::Intrinsic::ID id, llvm::Value* x) {
  llvm::Function* f = llvm::Intrinsic::getDeclaration(&mod_, id, {x->getType()});
  return b_.CreateCall(f, {x});
}

// libm has scalar functions only: a vector call is made lane by lane.
llvm::Value* Arith::libm(const std::string& name, const std::vector<llvm::Value*>& args) {
  llvm::Type* t = args[0]->getType()->getScalarType();
  const std::string sym = t->isFloatTy() ? name + "f" : name;
  llvm::FunctionCallee f = mod_.getOrInsertFunction(sym, llvm::FunctionType::get(t, std::vector<llvm::Type*>(args.size(), t), false));
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(args[0]->getType());
  if (!vt) return b_.CreateCall(f, args);
  llvm::Value* out = llvm::UndefValue::get(vt);
  for (unsigned lane = 0; lane < vt->getNumElements(); ++lane) {
    std::vector<llvm::Value*> lane_args;
    for (auto* a : args) lane_args.push_back(b_.CreateExtractElement(a, lane));
    out = b_.CreateInsertElement(out, b_.CreateCall(f, lane_args), lane);
  }
  return out;
}

// ---------------------------------------------------------------------------- operations
llvm::Value* Arith::binary(BinOp op, DType t, llvm::Value* a, llvm::Value* b) {
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
      llvm::Value* adjust =
          b_.CreateAnd(b_.CreateICmpNE(r, zero), b_.CreateXor(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(safe, zero)));
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

llvm::Value* Arith::compare(CmpOp op, DType t, llvm::Value* a, llvm::Value* b) {
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
llvm::Value* Arith::cast(llvm::Value* v, DType from, DType to) {
  if (from == to) return v;
  if (is_bool(to)) {
    if (is_float(from)) return b_.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0));
    return b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  }
  if (is_float(from) && is_float(to)) return float_to_float(v, from, to);
  llvm::Type* to_ty = shaped(reg_type(to), v);
  if (is_float(from)) {
    const auto id = is_unsigned_int(to) ? llvm::Intrinsic::fptoui_sat : llvm::Intrinsic::fptosi_sat;
    llvm::Function* f = llvm::Intrinsic::getDeclaration(&mod_, id, {to_ty, v->getType()});
    return b_.CreateCall(f, {v});
  }
  if (is_float(to)) {
    const bool uns = is_unsigned(from);
    if (to == DType::f32 || to == DType::f64) return uns ? b_.CreateUIToFP(v, to_ty) : b_.CreateSIToFP(v, to_ty);
    // To f64 first (exact below 2^53; i64 beyond that is rounded to odd), then one rounding.
    llvm::Type* dty = shaped(b_.getDoubleTy(), v);
    llvm::Value* d = from == DType::i64 ? i64_to_double_odd(v) : (uns ? b_.CreateUIToFP(v, dty) : b_.CreateSIToFP(v, dty));
    return float_to_float(d, DType::f64, to);
  }
  return is_unsigned(from) ? b_.CreateZExtOrTrunc(v, to_ty) : b_.CreateSExtOrTrunc(v, to_ty);
}

llvm::Value* Arith::call(const std::string& name, DType t, const std::vector<llvm::Value*>& args) {
  if (name == "isnan") return b_.CreateFCmpUNO(args[0], args[0]);
  static const std::map<std::string, llvm::Intrinsic::ID> exact = {{"sqrt", llvm::Intrinsic::sqrt},
                                                                    {"fabs", llvm::Intrinsic::fabs},
                                                                    {"floor", llvm::Intrinsic::floor},
                                                                    {"ceil", llvm::Intrinsic::ceil},
                                                                    {"round", llvm::Intrinsic::rint}};
  if (name == "round" && faults_.contains(kRoundTiesAwayFromZero)) {
    return round(call_intrinsic(llvm::Intrinsic::round, args[0]), t);
  }
  if (const auto it = exact.find(name); it != exact.end()) return round(call_intrinsic(it->second, args[0]), t);
  return round(libm(name, args), t);
}

}  // namespace difftest::codegen
