// Named pipelines (the opt levels), each a flat list of passes plus the LLVM level, built from
// named phases with a reason for every step (pipelines.cc).
#pragma once

#include <string>
#include <vector>

#include "compiler/pipeline/pass_manager.h"
#include "compiler/target/target.h"

namespace difftest::pipeline {

struct Pipeline {
  std::string name;
  std::vector<std::string> passes;
  int llvm_opt_level = 0;
  bool fma_contraction = false;  // fuse a*b+c into an FMA (O3; codegen/contract_multiply_adds.h)
  int bisect_limit = -1;         // run only the first N pass applications (CompileContext::bisect_limit)
  // A named pipeline's reason for each of its passes (empty for a list given by hand).
  std::vector<std::string> reasons = {};
};

const std::vector<Pipeline>& pipelines();

// The optional codegen steps (passes.def) a compile of `p` for `target` applies after its pass
// list, in order: ContractMultiplyAdds when the pipeline allows contraction and the target has
// FMA instructions. The pass manager numbers them after the list (RunOptions::codegen_steps).
std::vector<std::string> codegen_steps(const Pipeline& p, const target::Target& target);

// Whether the JIT contracts multiply-adds for this compile: ContractMultiplyAdds is among the
// codegen steps within its bisect limit.
bool contracts(const Lowered& l);
const Pipeline& find_pipeline(const std::string& name);  // UserError(Usage) naming the known ones

}  // namespace difftest::pipeline
