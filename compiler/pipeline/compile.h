// Graph program -> runnable executable through a named pipeline or an explicit pass list.
#pragma once

#include <string>
#include <vector>

#include "compiler/pipeline/pass_manager.h"
#include "compiler/pipeline/pipelines.h"
#include "compiler/runtime/executor.h"

namespace difftest::pipeline {

// Runs the pass list and the codegen steps the pipeline applies (numbered after it), then JITs.
runtime::Executable compile(const Program& p, const Pipeline& pipeline, const RunOptions& options = {});

}  // namespace difftest::pipeline
