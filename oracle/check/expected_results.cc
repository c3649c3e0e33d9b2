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
    const double tiny = is_float(dtype) ? tolerance::smallest_normal(dtype) : 0;
    exporters::ExpectedOutput o{sound.exact.shape(), sound.ref, std::vector<double>(sound.ref.size())};
    for (size_t k = 0; k < o.allowed.size(); ++k) {
      o.allowed[k] =
          judged.uncertain[k] ? -1 : (statistical ? judged.err[k] : options.tolerance.safety * sound.err[k]) + tiny;
    }
    out.outputs.push_back(std::move(o));
  }
  return out;
}

}  // namespace difftest::oracle
