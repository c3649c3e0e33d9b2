// Helpers for tests that compile loop IR with the JIT directly.
#pragma once

#include <string>
#include <vector>

#include "compiler/codegen/jit.h"
#include "compiler/loop/parser.h"
#include "compiler/runtime/thread_pool.h"
#include "compiler/target/target.h"
#include "compiler/tensor/tensor.h"

namespace difftest::testing {

// A module text that names no target means avx512 (loop/ir.h), which a host without AVX-512
// cannot run: there the tests compile the same loops for the host's target. The schedules
// stay as written; only the instructions they become change.
inline loop::Module for_this_host(loop::Module m) {
  if (!target::missing_host_features(*m.target).empty()) m.target = &target::host_target();
  return m;
}

// Compiles a module text at LLVM -O`level` (machine code with `effort`) and runs its kernel
// `func` on `buffers`, given in the kernel's parameter order, with dim values `dims`.
inline void run_kernel(const std::string& text, const std::string& func, const std::vector<Tensor*>& buffers,
                       std::vector<int64_t> dims, int level,
                       codegen::MachineCode effort = codegen::MachineCode::Optimized) {
  const loop::Module m = for_this_host(loop::parse_module(text, func + ".loop"));
  const codegen::JitModule jit(m, codegen::JitOptions{level, /*fma_contraction=*/false, effort, &difftest_parallel_for});
  std::vector<void*> pointers;
  for (Tensor* t : buffers) pointers.push_back(t->data());
  jit.kernel(func)(pointers.data(), dims.data());
}

}  // namespace difftest::testing
