// Comparing candidate outputs with the bounded reference.
//
// A float element passes when |got - ref| <= safety * bound + tiny (tiny: the smallest normal
// of the output dtype); its ratio is |got - ref| / bound. Integer and bool outputs must match
// exactly. Uncertain elements are skipped and counted. Two candidates are compared with each
// other against the sum of their bounds (each is within its bound of the same reference).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "tolerance/bounds.h"

namespace difftest::tolerance {

struct OutputComparison {
  size_t index = 0;
  std::string name;           // "%y"
  DType dtype = DType::f32;   // declared
  bool exact = false;         // integer or bool output: compared exactly
  int64_t compared = 0, uncertain = 0, failing = 0;
  double worst_ratio = 0;     // max |got - ref| / bound over compared elements (inf: no allowance)
  std::vector<int64_t> worst_index;
  double got = 0, want = 0, bound = 0;

  bool passed() const { return failing == 0; }
};

struct Comparison {
  std::vector<OutputComparison> outputs;
  Options options;
  bool passed() const;
  double worst_ratio() const;
  nlohmann::json to_json() const;
};

// `got` may have any dtype; its shape must be the reference's (UserError otherwise).
OutputComparison compare_output(const Bounded& ref, const Tensor& got, const Options& opt);
OutputComparison compare_candidates(const Bounded& ref, const Tensor& a, const Tensor& b, const Options& opt);

// "bound min=... median=... max=..., relative to |ref|: median=... max=..., uncertain=N of M".
std::string bound_summary(const Bounded& b);

// All outputs of a program, in order.
Comparison compare_outputs(const Program& p, const BoundedProgram& bp, const std::vector<Tensor>& got,
                           const Options& opt);

}  // namespace difftest::tolerance
