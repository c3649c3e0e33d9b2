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
#include "tolerance/ensemble.h"

namespace difftest::tolerance {

// The least share of an output's elements either tier must compare for a verdict on it: an
// output below it is unchecked, which is never ok (a bool output flipped whole where every
// element was uncertain would pass otherwise).
inline constexpr double kMinCheckedShare = 0.9;

struct OutputComparison {
  size_t index = 0;
  std::string name;           // "%y"
  DType dtype = DType::f32;   // declared
  bool exact = false;         // integer or bool output: compared exactly
  int64_t compared = 0, uncertain = 0, failing = 0;
  double worst_ratio = 0;     // max |got - ref| / bound over compared elements (inf: no allowance)
  std::vector<int64_t> worst_index;
  double got = 0, want = 0, bound = 0;

  // The statistical tier (with a calibration): elements inside their sound bound, or uncertain
  // there, whose deviation exceeds the ensemble's allowance are outliers.
  bool calibrated = false;
  int64_t checked = 0;  // elements compared by either tier
  int64_t outliers = 0;
  // The statistically compared element with the largest excess, (|got - ref| - tiny) / allowance
  // (0 within tiny; above 1 exactly at an outlier): where it is, its values, allowance and the
  // ensemble's sigma there.
  double worst_excess = 0;
  std::vector<int64_t> excess_index;
  double excess_got = 0, excess_want = 0, excess_allowance = 0, excess_sigma = 0;
  BiasCheck bias;

  bool passed() const { return failing == 0; }
  bool has_outlier() const { return outliers > 0 || bias.biased(); }
  // The share of elements either tier compared (1 for an empty output).
  double checked_share() const;
  int64_t elements() const { return compared + uncertain; }
  int64_t checked_elements() const { return calibrated ? checked : compared; }
  bool unchecked(double min_share = kMinCheckedShare) const { return checked_share() < min_share; }
};

struct Comparison {
  std::vector<OutputComparison> outputs;
  Options options;
  bool passed() const;
  bool has_outlier() const;  // an output with an outlier or a bias (the statistical tier)
  bool has_unchecked(double min_share = kMinCheckedShare) const;  // an output below min_share compared
  double worst_ratio() const;
  nlohmann::json to_json() const;
};

// `got` may have any dtype; its shape must be the reference's (UserError otherwise).
OutputComparison compare_output(const Bounded& ref, const Tensor& got, const Options& opt);
OutputComparison compare_candidates(const Bounded& ref, const Tensor& a, const Tensor& b, const Options& opt);

// "statistical: checked 99.8% (40900 of 40960), 3 outliers, worst excess 4.1 at [0, 5, 7]: got ..., want ...,
// allowance ..., sigma ...; bias toward zero error over ... elements: z = ... (limit ...; ...)".
std::string statistical_summary(const OutputComparison& o);

// "bound min=... median=... max=..., relative to |ref|: median=... max=..., uncertain=N of M".
std::string bound_summary(const Bounded& b);

// All outputs of a program, in order; with `calibration`, the statistical tier too.
Comparison compare_outputs(const Program& p, const BoundedProgram& bp, const std::vector<Tensor>& got,
                           const Options& opt, const Calibration* calibration = nullptr);

// Adds the statistical tier to `c`, the sound comparison of `got` with `sound`.
void compare_statistically(const Bounded& sound, const Bounded& calibrated, const OutputSpread& spread,
                           const Tensor& got, const Options& opt, const EnsembleOptions& options, OutputComparison& c);

}  // namespace difftest::tolerance
