#include "compiler/pipeline/compile.h"

namespace difftest::pipeline {

runtime::Executable compile(const Program& p, const Pipeline& pipeline, const RunOptions& options) {
  Lowered l = run_passes(p, pipeline.passes, options);
  codegen::JitOptions jit{pipeline.llvm_opt_level, pipeline.fma_contraction};
  jit.faults = options.context.faults;
  return runtime::Executable(std::move(l.graph), std::move(l.module), jit);
}

}  // namespace difftest::pipeline
