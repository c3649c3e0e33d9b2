#include "compiler/pipeline/pipelines.h"

#include <fmt/format.h>

#include <algorithm>

#include "compiler/support/diagnostics.h"

namespace difftest::pipeline {

namespace {

// One step of a pipeline and why it stands where it does.
struct Step {
  const char* pass;
  const char* why;
};
using Phase = std::vector<Step>;

// The phases follow MLC-LLM's: graph cleanup, the pattern rewrites and fusion grouping, lowering,
// then kernel fusion, scheduling and memory planning on the loop IR.
const Phase kGraphCleanup = {
    {"FoldConstant", "first: every later pass sees folded constants as literals"},
    {"SimplifyExpr", "the exact identities that folded constants expose"},
};
const Phase kPatterns = {
    {"FuseTransposeMatmul", "before DecomposeOps, which would leave no transpose-matmul pair whole"},
    {"FuseAddRMSNorm", "groups a residual add with its norm while the norm is one op"},
    {"FuseDequantizeMatmul", "groups a dequantize with its matmul while both are single ops"},
};
const Phase kDecompose = {
    {"DecomposeOps", "after the patterns, which want the composite ops whole"},
};
const Phase kGraphTidy = {
    {"CommonSubexprElimination", "merges the repeats that the rewrites above left"},
    {"DeadCodeElimination", "drops what folding, merging and rewriting left unused"},
};
const Phase kGrouping = {
    {"FuseOps", "last among the graph passes: it groups the program as it will be lowered"},
};
const Phase kLowering = {
    {"LegalizeOps", "the lowering boundary: every op to a loop-IR function"},
};
const Phase kKernelFusion = {
    {"FuseLoops", "first on the loop IR: merges each fusion group into one kernel"},
};
const Phase kLoopCleanup = {
    {"LoopSimplify", "the index arithmetic of lowering and fusion, before anything matches on it"},
};
const Phase kSchedules = {
    {"ScheduleGEMV", "one-row products first: ScheduleMatmul would tile them too"},
    {"ScheduleMatmul", "register tiles for the remaining products"},
    {"ScheduleReduction", "vector lanes for contiguous reductions"},
    {"ScheduleElementwise", "last: vectorizes the elementwise nests the other rules left"},
    {"LoopSimplify", "the index arithmetic the schedule rules wrote"},
};
const Phase kStorage = {
    {"StorageRewrite", "allocations to their tightest scope once the loops are final"},
};
const Phase kUnrollAndHoist = {
    {"Unroll", "small constant loops, before LICM hoists out of what remains"},
    {"LICM", "invariant loads out of the loops the schedules made"},
};
const Phase kMemoryPlan = {
    {"PlanMemory", "last: it plans the final list of calls"},
};

Pipeline pipeline_of(std::string name, const std::vector<const Phase*>& phases, int llvm_opt_level, bool fma) {
  Pipeline p{std::move(name), {}, llvm_opt_level, fma};
  for (const Phase* phase : phases) {
    for (const Step& step : *phase) {
      p.passes.push_back(step.pass);
      p.reasons.push_back(step.why);
    }
  }
  return p;
}

}  // namespace

const std::vector<Pipeline>& pipelines() {
  static const std::vector<Pipeline> all = {
      pipeline_of("O0", {&kLowering}, 0, false),
      pipeline_of("O1", {&kGraphCleanup, &kGraphTidy, &kLowering, &kLoopCleanup}, 1, false),
      pipeline_of("O2",
                  {&kGraphCleanup, &kPatterns, &kDecompose, &kGraphTidy, &kGrouping, &kLowering, &kKernelFusion,
                   &kLoopCleanup, &kStorage, &kMemoryPlan},
                  2, false),
      // O2, with the schedule rules, unrolling and LICM, and LLVM allowed to contract into FMAs.
      pipeline_of("O3",
                  {&kGraphCleanup, &kPatterns, &kDecompose, &kGraphTidy, &kGrouping, &kLowering, &kKernelFusion,
                   &kLoopCleanup, &kSchedules, &kStorage, &kUnrollAndHoist, &kMemoryPlan},
                  3, true),
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

std::vector<std::string> codegen_steps(const Pipeline& p, const target::Target& target) {
  // Without FMA instructions an llvm.fma is a libm call: no contraction there (codegen/jit.cc).
  if (p.fma_contraction && target::has_feature(target, "fma")) return {"ContractMultiplyAdds"};
  return {};
}

bool contracts(const Lowered& l) {
  return std::find(l.codegen_steps.begin(), l.codegen_steps.end(), "ContractMultiplyAdds") != l.codegen_steps.end();
}

}  // namespace difftest::pipeline
