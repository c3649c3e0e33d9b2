// Loop IR -> LLVM IR with IRBuilder.
//
// Every PrimFunc becomes `void <prefix><name>(i8** buffers, i64* dims)`: kernels take only
// pointers and 64-bit integers, because GCC 12 and LLVM 14 disagree on passing `half` by value
// (BUILD-NOTES.md). Symbols get a per-module prefix and a duplicate name is refused, so two
// modules in one process never collide (a TVM bug class).
//
// Registers hold f16 and bf16 values as f32 that are always exactly representable in the
// narrow type: every operation computes in f32 and rounds to nearest even right away (for
// + - * / and sqrt this equals direct rounding, as f32 has more than 2p + 2 bits). f16 uses
// the F16C conversions; bf16 rounds with integer arithmetic on the f32 bits. Memory holds
// f16/bf16 as 16-bit patterns.
//
// Loop kinds: a `parallel` loop's body is outlined into an internal function
// `void(i8* closure, i64 lo, i64 hi)` run by difftest_parallel_for (compiler/runtime/
// thread_pool.h; iterations must write disjoint outputs). `vectorized` and `unrolled` loops
// carry llvm.loop.vectorize.enable(/width) and llvm.loop.unroll.full hints; the rounding of
// f16/bf16 is explicit IR, so vectorized code rounds exactly as scalar code does.
#pragma once

#include <memory>
#include <string>

#include "compiler/context/compile_context.h"
#include "compiler/loop/ir.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace difftest::codegen {

// The symbol of a function of `m` compiled with `prefix`.
std::string symbol_name(const std::string& prefix, const std::string& func);

// `faults`: the test faults of the compile (codegen's own: compiler/codegen/arith.cc, codegen.cc).
std::unique_ptr<llvm::Module> emit_module(const loop::Module& m, const std::string& prefix, llvm::LLVMContext& ctx,
                                          const FaultSet& faults);

// The textual LLVM IR of a module (what `--emit llvm` prints).
std::string emit_llvm_text(const loop::Module& m, const std::string& prefix, const FaultSet& faults = {});

}  // namespace difftest::codegen
