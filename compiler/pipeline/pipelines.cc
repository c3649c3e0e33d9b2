#include "compiler/pipeline/pipelines.h"

#include <fmt/format.h>

#include "compiler/support/diagnostics.h"

namespace difftest::pipeline {

const std::vector<Pipeline>& pipelines() {
  // The levels follow MLC-LLM's phases: graph cleanup (O1), fusion and memory planning (O2),
  // schedule rules (O3). Fusion groups are formed last among the graph passes (the pattern
  // passes first, so DecomposeOps leaves their ops whole); PlanMemory comes last among the loop
  // passes because it plans the final list of calls.
  static const std::vector<Pipeline> all = {
      {"O0",
       {
           "LegalizeOps",
       },
       0, false},
      {"O1",
       {
           "FoldConstant",
           "SimplifyExpr",
           "CommonSubexprElimination",
           "DeadCodeElimination",
           "LegalizeOps",
           "LoopSimplify",
       },
       1, false},
      {"O2",
       {
           "FoldConstant",
           "SimplifyExpr",
           "FuseTransposeMatmul",
           "FuseAddRMSNorm",
           "FuseDequantizeMatmul",
           "DecomposeOps",
           "CommonSubexprElimination",
           "DeadCodeElimination",
           "FuseOps",
           "LegalizeOps",
           "FuseLoops",
           "LoopSimplify",
           "StorageRewrite",
           "PlanMemory",
       },
       2, false},
      {"O3",
       {
           "FoldConstant",
           "SimplifyExpr",
           "FuseTransposeMatmul",
           "FuseAddRMSNorm",
           "FuseDequantizeMatmul",
           "DecomposeOps",
           "CommonSubexprElimination",
           "DeadCodeElimination",
           "FuseOps",
           "LegalizeOps",
           "FuseLoops",
           "LoopSimplify",
           "ScheduleGEMV",
           "ScheduleMatmul",
           "ScheduleReduction",
           "ScheduleElementwise",
           "LoopSimplify",
           "StorageRewrite",
           "Unroll",
           "LICM",
           "PlanMemory",
       },
       3, true},
  };
  return all;
}

const Pipeline& find_pipeline(const std::string& name) {
  std::vector<std::string> known;
  for (const auto& p : pipelines()) {
    if (p.name == name) return p;
    known.push_back(p.name);
  }
  throw UserError(ErrorKind::Usage, fmt::format("--opt: unknown pipeline '{}' (known: {})", name, fmt::join(known, ", ")));
}

}  // namespace difftest::pipeline
