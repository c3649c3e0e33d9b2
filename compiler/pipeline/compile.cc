#include "compiler/pipeline/compile.h"

namespace difftest::pipeline {

runtime::Executable compile(const Program& p, const Pipeline& pipeline, const RunOptions& options) {
  Lowered l = run_passes(p, pipeline.passes, options);
  return runtime::Executable(std::move(l.graph), std::move(l.module), codegen::JitOptions{pipeline.llvm_opt_level, pipeline.fma_contraction});
}

}  // namespace difftest::pipeline
