#include "oracle/check/pipeline_run.h"

#include <chrono>

#include "compiler/pipeline/compile.h"
#include "oracle/check/clock.h"

namespace difftest::oracle {

PipelineRun run_pipeline(const Program& p, const pipeline::Pipeline& pipe, const sym::Env& env,
                         const std::map<std::string, Tensor>& inputs, const tolerance::BoundedProgram& bounds,
                         const tolerance::Options& options, const tolerance::Calibration* calibration) {
  PipelineRun r;
  r.pipeline = pipe.name;
  auto t0 = std::chrono::steady_clock::now();
  const runtime::Executable exe = pipeline::compile(p, pipe);
  r.compile_ms = ms_since(t0);
  r.kernels = exe.module().funcs.size();
  t0 = std::chrono::steady_clock::now();
  r.outputs = exe.run(inputs, env);
  r.run_ms = ms_since(t0);
  r.comparison = tolerance::compare_outputs(p, bounds, r.outputs, options, calibration);
  return r;
}

}  // namespace difftest::oracle
