// Runs a compiled module: binds the dim variables from the inputs' shapes, checks them,
// materializes constants, allocates intermediates and outputs, and calls the kernels in order.
// Values no call references (kept inside a kernel by FuseLoops) get no memory; values in a
// storage slot of the module's plan (PlanMemory) share one allocation per slot.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/codegen/jit.h"
#include "compiler/ir/ir.h"
#include "compiler/loop/ir.h"
#include "compiler/tensor/tensor.h"

namespace difftest::runtime {

// The dims of `p` from the shapes of `inputs` (one tensor per param, by value name), plus
// `given` for dims no param shape determines. Throws UserError (kind Shape / Usage /
// TypeMismatch) on a missing input, a wrong dtype or rank, a dim outside its range, or two
// occurrences of a dim (or a derived dim like 2*n) that disagree — naming the param and axis.
sym::Env bind_dims(const Program& p, const std::map<std::string, Tensor>& inputs, const sym::Env& given = {});

class Executable {
 public:
  Executable(Program program, loop::Module module, const codegen::JitOptions& options);

  const Program& program() const { return program_; }
  const loop::Module& module() const { return module_; }

  // Outputs in the program's order. `dims` receives the binding used, when given.
  std::vector<Tensor> run(const std::map<std::string, Tensor>& inputs, const sym::Env& given = {},
                          sym::Env* dims = nullptr) const;

 private:
  Program program_;
  loop::Module module_;
  std::unique_ptr<codegen::JitModule> jit_;
  std::vector<codegen::KernelFn> kernels_;  // one per module call
};

}  // namespace difftest::runtime
