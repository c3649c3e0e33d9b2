#include "oracle/check/expected_results.h"

#include <fmt/format.h>

#include "tolerance/error_model.h"

namespace difftest::oracle {

exporters::ExpectedResults expected_results(const Program& p, const Case& c, VerdictKind failing_kind,
                                            const CheckOptions& options) {
  exporters::ExpectedResults out;
  out.inputs = c.inputs;
  const bool statistical = failing_kind == VerdictKind::Outlier && c.calibration;
  out.allowance = statistical ? "the allowance of an ensemble of the reference in the program's precision (the spread "
                                "legitimate implementations show, 8 sigma beyond its largest member)"
                              : fmt::format("{}, times {}", tolerance::describe_bound(options.tolerance),
                                            options.tolerance.safety);
  for (size_t i = 0; i < p.outputs().size(); ++i) {
    const tolerance::Bounded& sound = *c.bounds.outputs[i];
    const tolerance::Bounded& judged = statistical ? *c.calibration->bounds.outputs[i] : sound;
    const DType dtype = p.outputs()[i].type().dtype;
    // A difference below the dtype's smallest normal is never a finding (flushed subnormals).
    const double tiny = is_float(dtype) ? smallest_normal(dtype) : 0;
    exporters::ExpectedOutput o{sound.exact.shape(), sound.ref, std::vector<double>(sound.ref.size())};
    for (size_t k = 0; k < o.allowed.size(); ++k) {
      o.allowed[k] =
          judged.uncertain[k] ? -1 : (statistical ? judged.err[k] : options.tolerance.safety * sound.err[k]) + tiny;
    }
    out.outputs.push_back(std::move(o));
  }
  return out;
}

std::string nearest_form_sentence(const Program& p, const Case& c, const VariantVerdict& f,
                                  const CheckOptions& options) {
  if (!is_output_finding(f.kind)) return "";
  size_t output = p.outputs().size();
  for (size_t i = 0; i < p.outputs().size(); ++i) {
    if (p.outputs()[i].name() == f.output || "%" + p.outputs()[i].name() == f.output) output = i;
  }
  if (output == p.outputs().size() || !is_float(p.outputs()[output].type().dtype)) return "";
  const tolerance::Bounded& ref = *c.bounds.outputs[output];
  const std::vector<int64_t>& shape = ref.shape();
  if (f.index.size() != shape.size()) return "";
  int64_t element = 0;
  for (size_t d = 0; d < shape.size(); ++d) element = element * shape[d] + f.index[d];
  tolerance::EnsembleOptions ensemble = options.ensemble;
  ensemble.seed = options.input_seed;
  const tolerance::NearestForm n =
      tolerance::nearest_form(p, c.env, c.inputs, options.tolerance, ensemble, output, element, f.got);
  std::string out = fmt::format(
      "The nearest legitimate result the ensemble computes at that element is {} {} ({}): {:.17g}; the "
      "result is {:.3g} from it",
      n.half_form ? "form" : "member", n.member, n.form, n.value, n.distance);
  // f64 values are outside the statistical tier (tolerance/ensemble.h): their first-tier bound.
  const bool statistical = c.calibration && tolerance::statistical_dtype(p.outputs()[output].type().dtype);
  const double allowed = statistical ? c.calibration->bounds.outputs[output]->err[static_cast<size_t>(element)]
                                     : ref.err[static_cast<size_t>(element)];
  if (allowed > 0) {
    out += fmt::format(" ({:.3g} times the {} there)", n.distance / allowed,
                       statistical ? "ensemble's allowance" : "error bound");
  }
  return out + ".";
}

}  // namespace difftest::oracle
