// One JIT session per compiled program: ORC LLJIT on the host CPU, released with the object.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compiler/context/compile_context.h"
#include "compiler/loop/ir.h"

namespace difftest::codegen {

// The calling convention of every generated kernel.
using KernelFn = void (*)(void** buffers, const int64_t* dims);

// How much work LLVM's code generator puts into the machine code of the optimized LLVM IR.
enum class MachineCode {
  Optimized,  // the code generator at the LLVM level (None, Less, Default, Aggressive): what a user runs
  // The code generator at LLVM's None level: the fast register allocator and no machine-level
  // optimization, the same products contracted into FMAs. The machine passes are LLVM's, not
  // the compiler under test, and took about 40% of a campaign's time (docs/compiler.md); the
  // checks use this.
  Fast,
};

// What generated code calls for a `parallel` loop: body(closure, lo, hi) runs iterations
// [lo, hi), and the call returns when every iteration has run. The runtime hands its thread
// pool in (runtime/thread_pool.h); codegen knows no pool of its own.
using ParallelFor = void (*)(void (*body)(void* closure, int64_t lo, int64_t hi), void* closure, int64_t begin,
                             int64_t end);

struct JitOptions {
  int llvm_opt_level = 0;  // 0..3: the IR pass pipeline, and the code generator's level when Optimized
  bool fma_contraction = false;
  MachineCode machine_code = MachineCode::Optimized;
  // Null: a parallel loop runs serially in the calling thread (bitwise the same result, by the
  // schedule contract of runtime/thread_pool.h).
  ParallelFor parallel_for = nullptr;
  FaultSet faults = {};  // the test faults of the compile (CompileContext::faults)
};

class JitModule {
 public:
  // Compiles every function of `m`; throws InternalError when LLVM refuses.
  JitModule(const loop::Module& m, const JitOptions& options);
  ~JitModule();
  JitModule(const JitModule&) = delete;
  JitModule& operator=(const JitModule&) = delete;

  KernelFn kernel(const std::string& func) const;  // InternalError when absent

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The LLVM IR the JIT would compile to machine code for `m`: emitted with `prefix` and run
// through the IR passes of `options.llvm_opt_level` (codegen/llvm_passes.h) for the module's
// target, which the host need not be able to run.
std::string optimized_llvm_text(const loop::Module& m, const JitOptions& options, const std::string& prefix);

// Process-wide LLVM target initialization (idempotent).
void initialize_llvm();

}  // namespace difftest::codegen
