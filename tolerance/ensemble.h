// The statistical tier: allowances observed from an ensemble of legitimate results.
//
// The sound bounds (bounds.h) hold for every correct implementation, but through deep f16
// chains they compound until they no longer look. The ensemble instead observes the spread of
// legitimate results: the reference in the program's own precision, once as native mode
// computes it (sequential sums, round to nearest) and `members - 1` times perturbed
// (reference/perturbation.h: random rounding; matrix products summed as member_summation says).
// For every float
// element of every value, with r the f64 reference and d_m = x_m - r the members' deviations:
//
//   allowance = max_m |d_m| + margin * sigma,
//   sigma = max(rms_m d_m, rounding of r to its dtype, pooled floor)
//
// where the pooled floor is the element's sound bound times the value's median ratio of
// rms_m d_m to sound bound (ensemble.cc says why).
//
// The calibrated bounds are the rules rerun with every value's allowance in place of its
// derived bound, so an element is uncertain only where a realistic error reaches a decision
// boundary (a comparison, a cast to an integer, a quantization code). See docs/tolerance.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "reference/perturbation.h"
#include "tolerance/bounds.h"

namespace difftest::tolerance {

struct EnsembleOptions {
  int members = 8;         // member 0 is plain native mode; the others are perturbed
  uint64_t seed = 0;       // the perturbed members' draws
  double margin = 8;       // sigmas beyond the largest observed deviation
  double bias_margin = 6;  // the bias check's threshold, in units of its null spread
};

// How member `member` (1 ... members - 1) sums matrix products: members 1 and 6 in index order,
// member 5 in index order with each product fused into its sum (FMA), member 2 reversed,
// member 3 in sgemm's blocks, members 4 and 7 in random orders (7 fused). The index-order loop
// is what compilers emit, plain (O0) or contracted (O3), and its error on structured data is
// the largest of all orders, so three members draw it; with one (unfused) draw a campaign
// program came within 3% of a false outlier (seed 1001583: index-order errors of one key/value
// head shared by four attention heads, summed by a K = 64 projection, 8 sigma out) and
// another's O3 sum (seed 1001272, K = 82 on exact inputs, FMA-contracted) reached 0.87 of its
// allowance. An ensemble of fewer than 5 misses some of those orders. Members 2, 4 and 7 also
// compute in rewritten forms (reference::Summation::rewritten: centered norms folded with a one-pass
// variance, division by the reciprocal, floor_mod through the quotient, softmax unshifted,
// log_softmax as x - (max + log(sum))).
reference::Summation member_summation(int member);

// "index-order sums, contracted (FMA), rewritten forms (...)": what member `member` computes,
// for reports (0: the reference's native mode, index-order sums rounded to nearest).
std::string describe_member(int member);

// The legitimate result nearest to `got` at one element of output `output`: the member or
// half-precision form (half_forms.h) whose value there is closest, and how far `got` is from it.
// What a report names, so that a maintainer sees the finding against the closest correct
// implementation, not only the reference.
struct NearestForm {
  int member = -1;         // a member, or members + i for the i-th of half_forms(p, opt)
  bool half_form = false;  // the nearest is a half-precision form, not a member
  std::string form;        // describe_member(member) or the form's description
  double value = 0, distance = 0;
};
NearestForm nearest_form(const Program& p, const sym::Env& env, const std::map<std::string, Tensor>& inputs,
                         const Options& opt, const EnsembleOptions& ensemble, size_t output, int64_t element,
                         double got);

// Whether the statistical tier covers values of dtype `t`: f32, f16 and bf16. An f64 value's
// legitimate results differ in their last bits by how each implementation evaluates its
// functions in f64 (the reference's own f64 evaluation is one of them, not the exact value),
// which no ensemble in f64 observes; f64 values keep their sound bounds, which are tight.
bool statistical_dtype(DType t);

// What the ensemble showed for one output, beside its calibrated bounds.
struct OutputSpread {
  std::vector<double> sigma;                   // per element (inf where a member was not finite); empty
                                               // for an output the tier does not cover
  std::vector<std::vector<double>> deviation;  // per member, then per half form, per element: x_m - r
};

struct Calibration {
  EnsembleOptions options;
  BoundedProgram bounds;              // err = the allowance; uncertain as the calibrated rules say
  std::vector<OutputSpread> outputs;  // in the program's order
};

// Runs the ensemble and the calibrated rules against `sound`, the program's valid sound bounds
// under the same inputs and options `opt` (its f64 reference values are reused). The half
// forms that apply under `opt` (half_forms.h) are evaluated too, in native mode: each element's
// allowance covers their deviations, while its sigma stays the members' (a form is one
// deterministic implementation, not a draw of the rounding).
Calibration calibrate(const Program& p, const sym::Env& env, const std::map<std::string, Tensor>& inputs,
                      const BoundedProgram& sound, const Options& opt, const EnsembleOptions& ensemble);

// The bias check covers f16 and bf16 outputs: their roundings are coarse next to the f32
// arithmetic beneath, so a biased rounding mode shows, while an f32 result may carry the small
// systematic error of its libm functions (within their budget) legitimately.
bool bias_checked_dtype(DType t);

// The bias check over the elements of one output: z_i = (got_i - r_i) / sigma_i summed over the
// n compared elements, Z = sum z_i / sqrt(n), in two forms — signed (a result shifted one way)
// and toward zero (sign(r) z_i: a truncating rounding). The null spread of Z is what the
// members show (they share the correlations of the program's errors), at least 1.
struct BiasCheck {
  int64_t elements = 0;
  double z_signed = 0, z_toward_zero = 0;  // the candidate's statistics (toward zero: negative)
  double null_spread = 1;                  // max over members of |Z_m| (both forms), at least 1
  double limit = 0;                        // bias_margin * null_spread
  bool biased() const;
  // "bias toward zero error over 1536 elements: z = -14.8 (limit 6; the members' |z| reach 1)"
  std::string describe() const;
};
// `compared[i]` says which elements count.
BiasCheck bias_check(const Bounded& calibrated, const OutputSpread& spread, const std::vector<uint8_t>& compared,
                     const std::vector<double>& got, double margin);

}  // namespace difftest::tolerance
