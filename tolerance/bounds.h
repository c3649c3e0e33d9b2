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
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/ops/op.h"
#include "compiler/tensor/tensor.h"
#include "tolerance/error_model.h"

namespace difftest::tolerance {

struct Bounded {
  DType dtype = DType::f32;        // declared dtype
  Tensor exact;                    // the F64-mode reference tensor (f64 for floats; exact integers)
  std::vector<double> ref;         // `exact` as doubles
  std::vector<double> err;         // absolute bound per element (0 for exact values)
  std::vector<uint8_t> uncertain;  // 1: excluded from comparison

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
inline constexpr int64_t kBoundBytesPerElement = 8 + 8 + 8 + 1 + 16;
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

  const Attrs& attrs() const { return binding.attrs(); }
  DType declared(size_t i = 0) const { return binding.results().at(i).type().dtype; }
  DType acc(DType operand) const;
  // Runs the reference kernel of this binding's op on substitute operands (F64 mode). Rules use
  // it to move or sum error and magnitude tensors with exactly the op's index pattern.
  std::vector<Tensor> kernel(const std::vector<Tensor>& args) const;
};

using Rule = void (*)(RuleContext&);
const Rule* find_rule(const std::string& op);

// Registration of each family's rules (one file per family).
void add_rule(const std::string& op, Rule r);
void register_elementwise_rules();
void register_reduction_linalg_rules();
void register_normalization_rules();
void register_data_movement_rules();
void register_attention_rules();
void register_quantization_rules();
void register_conv_rules();

// Helpers shared by the rule files.
Tensor as_f64(const std::vector<double>& v, const std::vector<int64_t>& shape);
Tensor magnitude(const Bounded& b, bool with_error);  // |r| (+ e) as an f64 tensor
Tensor errors(const Bounded& b);                       // e as an f64 tensor
Tensor squares(const Bounded& b, bool of_errors);      // r^2 or e^2 as an f64 tensor
Tensor indicator(const Bounded& b);                    // 1.0 where uncertain, else 0
// Whether inherited operand errors add in quadrature (probabilistic mode), where the
// deterministic bound is sum |c_k| e_k. An operand bound e_k is a worst case, about sqrt(3)
// standard deviations of a rounding error spread uniformly over [-e_k, e_k]; independent,
// mean-zero errors then sum to lambda sigma = (lambda / sqrt 3) sqrt(sum (c_k e_k)^2) at the
// mode's confidence.
inline bool quadrature(const Options& o) { return o.mode == BoundMode::Probabilistic; }
inline double quadrature_factor(const Options& o) { return std::max(1.0, o.lambda / 1.7320508075688772); }
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

}  // namespace difftest::tolerance
