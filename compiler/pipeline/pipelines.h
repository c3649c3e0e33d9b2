// Named pipelines (the opt levels), each a flat list of passes plus the LLVM level.
#pragma once

#include <string>
#include <vector>

namespace difftest::pipeline {

struct Pipeline {
  std::string name;
  std::vector<std::string> passes;
  int llvm_opt_level;
};

const std::vector<Pipeline>& pipelines();
const Pipeline& find_pipeline(const std::string& name);  // UserError(Usage) naming the known ones

}  // namespace difftest::pipeline
