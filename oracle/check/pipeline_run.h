// One program, one binding, one pipeline: compile, execute and compare with the bounded
// reference. The building block of `difftest run` and of the differential strategies.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/pipeline/pipelines.h"
#include "compiler/tensor/tensor.h"
#include "tolerance/bounds.h"
#include "tolerance/compare.h"

namespace difftest::oracle {

struct PipelineRun {
  std::string pipeline;
  std::vector<Tensor> outputs;
  tolerance::Comparison comparison;
  double compile_ms = 0, run_ms = 0;
  size_t kernels = 0;
};

PipelineRun run_pipeline(const Program& p, const pipeline::Pipeline& pipe, const sym::Env& env,
                         const std::map<std::string, Tensor>& inputs, const tolerance::BoundedProgram& bounds,
                         const tolerance::Options& options, const tolerance::Calibration* calibration = nullptr);

}  // namespace difftest::oracle
