#include "compiler/pipeline/compile.h"

namespace difftest::pipeline {

runtime::Executable compile(const Program& p, const Pipeline& pipeline, const RunOptions& options) {
  RunOptions with_codegen = options;
  with_codegen.codegen_steps = codegen_steps(pipeline, *options.context.target);
  Lowered l = run_passes(p, pipeline.passes, with_codegen);
  codegen::JitOptions jit{pipeline.llvm_opt_level, contracts(l)};
  jit.faults = options.context.faults;
  return runtime::Executable(std::move(l.graph), std::move(l.module), jit);
}

}  // namespace difftest::pipeline
