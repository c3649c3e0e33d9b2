// One case of a check: a program under one binding, with its inputs, the bounded reference
// values, and the statistical tier's allowances — or why the program is invalid there. Every
// part of the oracle (check, bisection, reduction, the CLI's eval/compare/run, the pass tests)
// builds it here, so they all judge a result the same way.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/tensor/tensor.h"
#include "tolerance/bounds.h"
#include "tolerance/compare.h"
#include "tolerance/ensemble.h"

namespace difftest::oracle {

struct CaseOptions {
  uint64_t input_seed = 0;  // of the generated inputs, and of the ensemble's draws
  tolerance::Options tolerance;
  tolerance::EnsembleOptions ensemble;  // members 0: the sound bounds only
};

struct Case {
  sym::Env env;  // the binding, every dim given
  std::map<std::string, Tensor> inputs;
  tolerance::BoundedProgram bounds;                   // the reference values and their sound bounds
  std::optional<tolerance::Calibration> calibration;  // the statistical tier, when the ensemble ran
  double reference_ms = 0;                            // what building it took

  // The reference is not finite (or out of its dtype's range) here: nothing can be compared.
  bool invalid() const { return bounds.invalid; }
  const std::string& invalid_reason() const { return bounds.invalid_reason; }
  // `got` (the outputs of `p`, or of a program computing the same values) against both tiers.
  tolerance::Comparison compare(const Program& p, const std::vector<Tensor>& got,
                                const tolerance::Options& options) const;
};

// The case of `p` under `given`: the binding completed (from the shapes of `inputs` where they
// are given), the inputs (the given ones, else generated from the seed), the bounded reference
// and, unless it is invalid or `options.ensemble.members` is 0, the ensemble's calibration.
// UserError when the binding is out of range, the inputs do not fit, or bounding would need
// more memory than the machine has.
Case make_case(const Program& p, const sym::Env& given, const CaseOptions& options,
               std::optional<std::map<std::string, Tensor>> inputs = std::nullopt);

// What the case exercised, for coverage maps: the bound rules and their uncertainty cases
// (tolerance::bound_cases), and `input:CLASS` for each value class its float inputs hold
// (coverage::value_classes: subnormal, negative-zero, tie, large, nan, ...).
std::set<std::string> case_exercised(const Program& p, const Case& c);

}  // namespace difftest::oracle
