#include "tolerance/ensemble.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "compiler/support/diagnostics.h"
#include "reference/reference.h"
#include "tolerance/error_model.h"
#include "tolerance/half_forms.h"

namespace difftest::tolerance {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Running deviations of the members from the f64 reference, per element of one float value.
struct Deviations {
  std::vector<double> max_abs, sum_squares;
};

// An element's spread seen by a few members is itself a random estimate, and a poor one where
// one rounding dominates the element's error: every perturbed member then rounds it the same
// way with probability 2^-(members - 1), and the estimate collapses to the rounding of r (seed
// 2001590 of a clean campaign: a layer_norm's affine step x_hat * g + b cancelling 2.005
// against -1.907, where all eight members agreed and the compiled FMA-contracted step, one
// legitimate rounding away, came out 17 sigmas off). The sound bounds know each element's
// shape (they see that cancellation) but not the level; the members know the level. So no
// element's sigma falls below kPooledShare of its sound bound times the median ratio of
// observed spread to sound bound over the value's elements. The whole ratio, not half of it:
// half of the members sum in index order, so at one element they are few independent draws of
// the summation order, and an AVX-512 schedule's legitimate order of a K = 60 `linear` came
// out 11 of their sigmas off, 8.7 at the value's median level (seed 10004610).
constexpr double kPooledShare = 1.0;

double median_spread_per_bound(const std::vector<double>& rms, const std::vector<double>& bound) {
  std::vector<double> ratios;
  for (size_t i = 0; i < rms.size(); ++i) {
    if (bound[i] > 0 && std::isfinite(bound[i]) && std::isfinite(rms[i])) ratios.push_back(rms[i] / bound[i]);
  }
  if (ratios.empty()) return 0;
  auto mid = ratios.begin() + static_cast<std::ptrdiff_t>(ratios.size() / 2);
  std::nth_element(ratios.begin(), mid, ratios.end());
  return *mid;
}

uint64_t member_seed(uint64_t seed, int member) {
  return seed * 0x9e3779b97f4a7c15ULL + static_cast<uint64_t>(member) * 0xd1b54a32d192ed03ULL + 0x656e73;  // "ens"
}

// A form's values in native mode (round to nearest, index-order sums), or nullopt where the
// reference cannot evaluate it (the form is then not sampled; the members still are).
std::optional<reference::Evaluation> evaluate_form(const ProgramForm& form, const sym::Env& env,
                                                   const std::map<std::string, Tensor>& inputs) {
  try {
    return reference::evaluate(form.program, env, inputs, reference::Mode::Native);
  } catch (const UserError&) {
    return std::nullopt;
  }
}

}  // namespace

reference::Summation member_summation(int member) {
  using reference::SumOrder;
  switch (member) {
    case 1:
    case 6:
      return {SumOrder::Sequential, false};
    case 5:
      return {SumOrder::Sequential, true};
    case 2:
      return {SumOrder::Reversed, false, true};
    case 3:
      return {SumOrder::Blocked, false};
    case 4:
      return {SumOrder::Random, false, true};
    case 7:
      return {SumOrder::Random, true, true};
    default:
      return {SumOrder::Random, false};
  }
}

std::string describe_member(int member) {
  if (member == 0) return "the reference's native mode: index-order sums, every step rounded to nearest";
  const reference::Summation s = member_summation(member);
  std::string out;
  switch (s.order) {
    case reference::SumOrder::Sequential: out = "index-order sums"; break;
    case reference::SumOrder::Reversed: out = "reversed sums"; break;
    case reference::SumOrder::Blocked: out = "sgemm-blocked sums and SIMD-lane reductions"; break;
    case reference::SumOrder::Random: out = "sums in a random order"; break;
  }
  if (s.fused) out += ", contracted (FMA)";
  if (s.rewritten) {
    out += ", rewritten forms (layer, group and instance norms folded with a one-pass variance, division by the "
           "reciprocal, floor_mod through the floored quotient, softmax without the max subtracted, log_softmax as "
           "x - (max + log(sum)))";
  }
  return out + ", random rounding and function errors within their budgets";
}

NearestForm nearest_form(const Program& p, const sym::Env& env, const std::map<std::string, Tensor>& inputs,
                         const Options& opt, const EnsembleOptions& ensemble, size_t output, int64_t element,
                         double got) {
  NearestForm best;
  const int members = std::max(1, ensemble.members);
  for (int m = 0; m < members; ++m) {
    const reference::Evaluation ev =
        m == 0 ? reference::evaluate(p, env, inputs, reference::Mode::Native)
               : reference::evaluate_perturbed(p, env, inputs, member_seed(ensemble.seed, m), member_summation(m));
    const double value = ev.values.at(p.outputs().at(output).get()).get(element);
    const double distance = std::fabs(got - value);
    if (best.member < 0 || distance < best.distance) best = {m, false, describe_member(m), value, distance};
  }
  int m = members;
  for (const ProgramForm& form : half_forms(p, opt)) {
    const std::optional<reference::Evaluation> ev = evaluate_form(form, env, inputs);
    if (ev) {
      const double value = ev->outputs.at(output).get(element);
      const double distance = std::fabs(got - value);
      if (distance < best.distance) best = {m, true, form.description, value, distance};
    }
    ++m;
  }
  return best;
}

bool statistical_dtype(DType t) { return is_float(t) && t != DType::f64; }

namespace {

// One more row of every output's OutputSpread::deviation: `ev`'s outputs less the reference's.
void add_output_deviations(const Program& p, const BoundedProgram& sound, const reference::Evaluation& ev,
                           Calibration& cal) {
  for (size_t o = 0; o < p.outputs().size(); ++o) {
    const std::vector<double>& r = sound.outputs[o]->ref;
    std::vector<double> d;
    if (statistical_dtype(p.outputs()[o].type().dtype)) {
      d.resize(r.size());
      for (size_t i = 0; i < d.size(); ++i) d[i] = ev.outputs[o].get(static_cast<int64_t>(i)) - r[i];
    }
    cal.outputs[o].deviation.push_back(std::move(d));
  }
}

}  // namespace

bool bias_checked_dtype(DType t) { return t == DType::f16 || t == DType::bf16; }

Calibration calibrate(const Program& p, const sym::Env& env, const std::map<std::string, Tensor>& inputs,
                      const BoundedProgram& sound, const Options& opt, const EnsembleOptions& ensemble) {
  DT_CHECK(!sound.invalid, "an ensemble for a program whose reference is not finite");
  Calibration cal;
  cal.options = ensemble;
  std::unordered_map<const ValueNode*, Deviations> dev;
  for (const auto& b : p.bindings()) {
    if (!b.is_call()) continue;
    for (const auto& v : b.results()) {
      if (!statistical_dtype(v.type().dtype)) continue;
      const size_t n = sound.values.at(v.get()).ref.size();
      dev[v.get()] = Deviations{std::vector<double>(n, 0), std::vector<double>(n, 0)};
    }
  }
  const int members = std::max(1, ensemble.members);
  cal.outputs.resize(p.outputs().size());
  for (int m = 0; m < members; ++m) {
    const reference::Evaluation ev =
        m == 0 ? reference::evaluate(p, env, inputs, reference::Mode::Native)
               : reference::evaluate_perturbed(p, env, inputs, member_seed(ensemble.seed, m), member_summation(m));
    for (auto& [value, d] : dev) {
      const Tensor& x = ev.values.at(value);
      const std::vector<double>& r = sound.values.at(value).ref;
      for (size_t i = 0; i < d.max_abs.size(); ++i) {
        const double e = x.get(static_cast<int64_t>(i)) - r[i];
        const double a = std::isfinite(e) ? std::fabs(e) : kInf;
        d.max_abs[i] = std::max(d.max_abs[i], a);
        d.sum_squares[i] += a * a;
      }
    }
    add_output_deviations(p, sound, ev, cal);
  }
  // The forms are single deterministic implementations, not draws of the rounding: they widen
  // each element's largest deviation (the allowance covers them) but not its sigma, so a form
  // that rounds less never narrows an allowance.
  for (const ProgramForm& form : half_forms(p, opt)) {
    const std::optional<reference::Evaluation> ev = evaluate_form(form, env, inputs);
    if (!ev) continue;
    for (auto& [value, d] : dev) {
      auto it = form.counterpart.find(value);
      if (it == form.counterpart.end()) continue;
      const Tensor& x = ev->values.at(it->second.get());
      const std::vector<double>& r = sound.values.at(value).ref;
      for (size_t i = 0; i < d.max_abs.size(); ++i) {
        const double e = x.get(static_cast<int64_t>(i)) - r[i];
        d.max_abs[i] = std::max(d.max_abs[i], std::isfinite(e) ? std::fabs(e) : kInf);
      }
    }
    add_output_deviations(p, sound, *ev, cal);
  }
  ObservedErrors observed;
  std::unordered_map<const ValueNode*, std::vector<double>> sigmas;
  for (const auto& [value, d] : dev) {
    const Bounded& b = sound.values.at(value);
    std::vector<double> rms(d.max_abs.size());
    for (size_t i = 0; i < rms.size(); ++i) rms[i] = std::sqrt(d.sum_squares[i] / members);
    const double pooled = kPooledShare * median_spread_per_bound(rms, b.err);
    std::vector<double> allowance(rms.size()), sigma(rms.size());
    for (size_t i = 0; i < allowance.size(); ++i) {
      const double floor = std::isfinite(b.err[i]) ? pooled * b.err[i] : 0;
      sigma[i] = std::max({rms[i], rounding_error(b.ref[i], value->type.dtype), floor});
      allowance[i] = d.max_abs[i] + ensemble.margin * sigma[i];
    }
    observed[value] = std::move(allowance);
    sigmas[value] = std::move(sigma);
  }
  cal.bounds = rebound_program(p, env, sound, opt, observed);
  for (size_t o = 0; o < p.outputs().size(); ++o) {
    const DType t = p.outputs()[o].type().dtype;
    auto it = sigmas.find(p.outputs()[o].get());
    if (it != sigmas.end()) {
      cal.outputs[o].sigma = it->second;
    } else if (statistical_dtype(t)) {  // a param or constant returned as is: exact
      for (double r : sound.outputs[o]->ref) cal.outputs[o].sigma.push_back(rounding_error(r, t));
    }
  }
  return cal;
}

bool BiasCheck::biased() const {
  return elements > 0 && (std::fabs(z_signed) > limit || std::fabs(z_toward_zero) > limit);
}

std::string BiasCheck::describe() const {
  const bool toward_zero = std::fabs(z_toward_zero) > std::fabs(z_signed);
  return fmt::format("{} error over {} elements: z = {:.3g} (limit {:.3g}; the members' |z| reach {:.3g})",
                     toward_zero ? (z_toward_zero < 0 ? "bias toward zero" : "bias away from zero")
                                 : (z_signed < 0 ? "negative mean" : "positive mean"),
                     elements, toward_zero ? z_toward_zero : z_signed, limit, null_spread);
}

BiasCheck bias_check(const Bounded& calibrated, const OutputSpread& spread, const std::vector<uint8_t>& compared,
                     const std::vector<double>& got, double margin) {
  BiasCheck c;
  if (!bias_checked_dtype(calibrated.dtype)) return c;
  const size_t members = spread.deviation.size();
  std::vector<double> member_signed(members, 0), member_toward(members, 0);
  for (size_t i = 0; i < got.size(); ++i) {
    const double s = spread.sigma.empty() ? 0 : spread.sigma[i];
    if (!compared[i] || !(s > 0) || !std::isfinite(s)) continue;
    const double sign = calibrated.ref[i] > 0 ? 1 : (calibrated.ref[i] < 0 ? -1 : 0);
    const double z = (got[i] - calibrated.ref[i]) / s;
    if (!std::isfinite(z)) continue;
    ++c.elements;
    c.z_signed += z;
    c.z_toward_zero += sign * z;
    for (size_t m = 0; m < members; ++m) {
      const double zm = spread.deviation[m][i] / s;
      member_signed[m] += zm;
      member_toward[m] += sign * zm;
    }
  }
  if (c.elements == 0) return c;
  const double root = std::sqrt(static_cast<double>(c.elements));
  c.z_signed /= root;
  c.z_toward_zero /= root;
  for (size_t m = 0; m < members; ++m) {
    c.null_spread = std::max({c.null_spread, std::fabs(member_signed[m]) / root, std::fabs(member_toward[m]) / root});
  }
  c.limit = margin * c.null_spread;
  return c;
}

}  // namespace difftest::tolerance
