#include "compiler/pipeline/pipelines.h"

#include <fmt/format.h>

#include "compiler/ir/diagnostics.h"

namespace difftest::pipeline {

const std::vector<Pipeline>& pipelines() {
  static const std::vector<Pipeline> all = {
      {"O0",
       {
           "LegalizeOps",
       },
       0},
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
