// Named pipelines (the opt levels), each a flat list of passes plus the LLVM level, built from
// named phases with a reason for every step (pipelines.cc).
#pragma once

#include <string>
#include <vector>

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
const Pipeline& find_pipeline(const std::string& name);  // UserError(Usage) naming the known ones

}  // namespace difftest::pipeline
