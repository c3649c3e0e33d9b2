// Per-element error bounds for every value of a program.
//
// bound_program evaluates the program with the reference in F64 mode (the values r) and then,
// binding by binding, applies each op's rule to get for every element an absolute bound e such
// that a correct implementation in the program's dtypes — any summation order, with or without
// FMA — computes a value within e of r (first order, with the safety factor applied at
// comparison). Elements whose result can flip at a discontinuity (a comparison, floor, a cast
// to an integer, an argmax tie, a quantization code boundary) within the bounds of their
// operands are marked uncertain; everything computed from an uncertain element is uncertain
// too, except through `where` (whose branches are bounded instead). Uncertain elements are
// excluded from comparisons and counted.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/ops/op.h"
#include "compiler/ops/op_table.h"
#include "compiler/tensor/tensor.h"
#include "tolerance/error_model.h"
#include "tolerance/value_identity.h"

namespace difftest::tolerance {

struct Bounded {
  DType dtype = DType::f32;        // declared dtype
  Tensor exact;                    // the F64-mode reference tensor (f64 for floats; exact integers)
  std::vector<double> ref;         // `exact` as doubles
  std::vector<double> err;         // absolute bound per element (0 for exact values)
  std::vector<uint8_t> uncertain;  // 1: excluded from comparison, unless it has choices
  // An uncertain element whose rule knows every outcome of its decision (floor on either side of
  // an integer, an argmin among near-tied values, floor_mod's two remainders): a correct result
  // is within err of one of these values, so it is compared with them rather than skipped.
  // max/min reductions read the outcomes, where() keeps a selected element's, and every other
  // op sees a float decision as the interval of its outcomes in the first tier (bounds.cc).
  std::map<size_t, std::vector<double>> choices;
  // Probabilistic mode: the standard deviation of each element's error under the mode's model
  // of independent mean-zero roundings (err stays its bound); empty in the other modes.
  // Propagating it, rather than taking every inherited bound for a uniform worst case, keeps
  // the confidence factor from compounding at every stage of a deep chain.
  std::vector<double> sd;

  const std::vector<int64_t>& shape() const { return exact.shape(); }
  int64_t numel() const { return exact.numel(); }
  size_t uncertain_count() const;
};

struct BoundedProgram {
  std::unordered_map<const ValueNode*, Bounded> values;
  std::vector<const Bounded*> outputs;  // into `values`, in the program's order
  bool invalid = false;                 // the reference produced NaN or Inf
  std::string invalid_reason;
};

BoundedProgram bound_program(const Program& p, const sym::Env& env, const std::map<std::string, Tensor>& inputs,
                             const Options& opt);

// What bounding `p` exercised, for coverage maps: `bound:OP` for every call's rule,
// `decision:OP` where a result holds float decisions with known outcomes (Bounded::choices),
// made there (floor, argmin, atan2) or carried (where, min), and
// `uncertain:OP` where a rule itself made elements uncertain (more than any operand had: an
// overflow the bound reaches, an integer overflow a compiler may not wrap, an undecidable
// decision). Empty for an invalid program.
std::set<std::string> bound_cases(const Program& p, const BoundedProgram& b);

// Per float value, an error per element observed rather than derived (tolerance/ensemble.h).
using ObservedErrors = std::unordered_map<const ValueNode*, std::vector<double>>;

// The rules run again on `sound`'s reference values (not evaluated again), every value in
// `observed` taking its observed errors in place of its rule's bound before later rules see
// it, so uncertainty marks where a realistic error reaches a decision boundary (the
// ensemble's calibrated bounds). `sound` must be valid.
BoundedProgram rebound_program(const Program& p, const sym::Env& env, const BoundedProgram& sound, const Options& opt,
                               const ObservedErrors& observed);

// What bound_program keeps per float element beside the f64 reference value: Bounded's exact
// tensor, ref, err and uncertain, and the rules' temporaries.
inline constexpr int64_t kBoundBytesPerElement = 8 + 8 + 8 + 8 + 1 + 16;
// UserError(Limit) naming the binding when bounding `p` under `env` (with its inputs) would
// take more than reference::kMaxEvaluationBytes: checked before any input is generated.
void require_bounding_memory(const Program& p, const sym::Env& env);

// Internal to tolerance/: what an op's rule sees.
struct RuleContext {
  const Binding& binding;
  std::vector<const Bounded*> in;
  std::vector<Bounded>& out;  // reference values filled in; err 0 and certain on entry
  const sym::Env& env;
  const Options& opt;
  const ValueIdentity& identity;

  const Attrs& attrs() const { return binding.attrs(); }
  // Whether operands i and j hold the same elements in every correct implementation (their
  // errors are one error, not two).
  bool same_args(size_t i, size_t j) const { return identity.same(binding.args().at(i), binding.args().at(j)); }
  DType declared(size_t i = 0) const { return binding.results().at(i).type().dtype; }
  DType acc(DType operand) const;
  // Runs the reference kernel of this binding's op on substitute operands (F64 mode). Rules use
  // it to move or sum error and magnitude tensors with exactly the op's index pattern.
  std::vector<Tensor> kernel(const std::vector<Tensor>& args) const;
};

using Rule = void (*)(RuleContext&);
// Every op's bound rule, registered per family (compiler/ops/op_table.h).
using RuleTable = OpTable<Rule>;
const RuleTable& rules();
const Rule* find_rule(const std::string& op);

// Registration, one function per family.
void register_elementwise_rules(RuleTable& t);
void register_reduction_rules(RuleTable& t);
void register_linalg_rules(RuleTable& t);
void register_normalization_rules(RuleTable& t);
void register_shape_rules(RuleTable& t);
void register_creation_rules(RuleTable& t);
void register_attention_rules(RuleTable& t);
void register_quantization_rules(RuleTable& t);
void register_conv_rules(RuleTable& t);

// Rules several families share: values moved without arithmetic (the op's kernel run on the
// errors and uncertainty flags), and values created exactly from attributes.
void moved_values_rule(RuleContext& c);
void exact_values_rule(RuleContext& c);

// Helpers shared by the rule files.
Tensor as_f64(const std::vector<double>& v, const std::vector<int64_t>& shape);
Tensor magnitude(const Bounded& b, bool with_error);  // |r| (+ e) as an f64 tensor
Tensor errors(const Bounded& b);                       // e as an f64 tensor
Tensor squares(const Bounded& b);                      // r^2 as an f64 tensor
Tensor indicator(const Bounded& b);                    // 1.0 where uncertain, else 0
// Whether inherited operand errors add in quadrature (probabilistic mode), where the
// deterministic bound is sum |c_k| e_k. Independent, mean-zero errors with standard deviations
// sd_k (Bounded::sd) sum to lambda sigma = lambda sqrt(sum (c_k sd_k)^2) at the mode's
// confidence; a bound whose rule recorded no sd counts as a rounding error spread uniformly
// over [-e_k, e_k], sd_k = e_k / sqrt 3.
inline bool quadrature(const Options& o) { return o.mode == BoundMode::Probabilistic; }
inline constexpr double kSqrt3 = 1.7320508075688772;
// The multiplier of a quadrature sum: lambda, and at least sqrt 3, so that no inherited error
// counts for less than its uniform worst case.
inline double confidence(const Options& o) { return std::max(o.lambda, kSqrt3); }
// Element i's sd (probabilistic mode), or e_i / sqrt 3 where none was recorded.
double spread(const Bounded& b, size_t i);

// sqrt(sum of x^2) without squaring terms below ~1e-154 to 0, scaled by the largest term as
// BLAS's nrm2 is: a softmax weight of e^-383 times its score's sd squares to nothing, and a
// probabilistic bound built on the underflowed sum fell to 1/24 of a correct f64 result's
// error (seed 10001431, issue 45).
class RootSumSquares {
 public:
  void add(double x) {
    const double a = std::fabs(x);
    if (a == 0) return;
    if (a > scale_) {
      sum_ = 1 + sum_ * (scale_ / a) * (scale_ / a);
      scale_ = a;
    } else {
      sum_ += (a / scale_) * (a / scale_);
    }
  }
  double value() const { return scale_ * std::sqrt(sum_); }

 private:
  double scale_ = 0, sum_ = 0;
};

// Whether a quadrature sum of inherited sds came out 0 only by underflow: the operands carry
// errors (`worst_case` > 0) but every square vanished. Such an element takes the worst case.
inline bool underflowed(double quadrature_sum, double worst_case) { return quadrature_sum == 0 && worst_case > 0; }
Tensor spreads(const Bounded& b, bool squared);  // sd or sd^2 as an f64 tensor
// Records out.sd[i] in probabilistic mode (after out.err[i] is final): `independent`, the sd of
// the inherited errors the rule passed on (in quadrature or linearly), whose share of out.err[i]
// was `inherited_bound`; the rest of the bound (the rule's own roundings, shared and
// second-order terms) counts as a uniform worst case.
void set_spread(const RuleContext& c, Bounded& out, size_t i, double independent, double inherited_bound);
// Bound of an op that sums k products of operand 0 with operand 1, plus an optional operand 2
// (matmul, linear, convolutions): g(k) S(|a|+e, |b|+e) + S(|a|+e, |b|+e) - S(|a|, |b|) + rounding,
// the propagated part S(|a|+e, |b|+e) - S(|a|, |b|) taken in quadrature in probabilistic mode.
void dot_product_bound(RuleContext& c, int64_t k);
// Softmax of x (errors ex) with accumulator acc: fills y and its bounds ey (before the final
// rounding to the output dtype); false when the sum's bound reaches the sum itself.
bool softmax_bound(const std::vector<double>& x, const std::vector<double>& ex, DType acc, const Options& opt,
                   std::vector<double>& y, std::vector<double>& ey, bool log = false);
// Marks an output element uncertain wherever `dependence` (a kernel run on indicators) > 0.
void mark_uncertain(Bounded& out, const Tensor& dependence);
// Under Options::integer_overflow_wraps = false, marks element i of an integer `out` uncertain
// where `exact`, its value computed without wrapping (in f64: exact for 32-bit operands; an i64
// near its limits counts as overflowing), is outside out's dtype.
void mark_integer_overflow(const RuleContext& c, Bounded& out, size_t i, double exact);

}  // namespace difftest::tolerance
