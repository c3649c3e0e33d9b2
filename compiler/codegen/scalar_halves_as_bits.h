// Scalar f16 values as their 16 bits and F16C conversions, for FastISel.
//
// The emitter keeps f16 in f32 registers and rounds through LLVM's `half` (fptrunc, fpext), and
// the IR passes move some of that arithmetic to `half` itself (InstCombine turns fptrunc(fadd
// (fpext a, fpext b)) into fadd half a, b). FastISel selects nothing of type half on x86 without
// AVX-512 FP16, so every block holding one went to SelectionDAG from that instruction on. Here,
// just before a FastISel code generator, each scalar half value becomes an i16 of its bits,
// converted with llvm.convert.{to,from}.fp16 (which FastISel selects as the F16C instructions
// the half operations compile to anyway); the arithmetic LLVM narrowed to half is done in f32
// and rounded, which gives the same bits (f32 has more than 2 * 11 + 2 significand bits, so the
// double rounding is innocuous for + - * /). Vector half values are left as they are.
#pragma once

namespace llvm {
class Module;
}  // namespace llvm

namespace difftest::codegen {

// Rewrites the scalar half values of every function of `m` whose half-typed instructions are all
// of the kinds handled (load, store, fptrunc from f32, fpext, bitcast to or from i16, fneg, fadd,
// fsub, fmul, fdiv, fcmp, select, fabs, floor, ceil, trunc, rint, nearbyint, round); a function
// with any other (a half phi, a call) is left whole. Returns the number of functions rewritten.
int scalar_halves_as_bits(llvm::Module& m);

}  // namespace difftest::codegen
