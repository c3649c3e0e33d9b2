#include "oracle/check/case.h"

#include <chrono>

#include "fuzz/coverage.h"
#include "oracle/isolate/clock.h"
#include "reference/inputs.h"

namespace difftest::oracle {

tolerance::Comparison Case::compare(const Program& p, const std::vector<Tensor>& got,
                                    const tolerance::Options& options) const {
  return tolerance::compare_outputs(p, bounds, got, options, calibration ? &*calibration : nullptr);
}

Case make_case(const Program& p, const sym::Env& given, const CaseOptions& options,
               std::optional<std::map<std::string, Tensor>> inputs) {
  const auto t0 = std::chrono::steady_clock::now();
  Case c;
  c.env = reference::resolve_binding(p, given, inputs ? &*inputs : nullptr);
  tolerance::require_bounding_memory(p, c.env);
  c.inputs = inputs ? std::move(*inputs) : reference::generate_inputs(p, c.env, options.input_seed);
  c.bounds = tolerance::bound_program(p, c.env, c.inputs, options.tolerance);
  if (!c.bounds.invalid && options.ensemble.members > 0) {
    tolerance::EnsembleOptions ensemble = options.ensemble;
    ensemble.seed = options.input_seed;
    c.calibration = tolerance::calibrate(p, c.env, c.inputs, c.bounds, options.tolerance, ensemble);
  }
  c.reference_ms = ms_since(t0);
  return c;
}

std::set<std::string> case_exercised(const Program& p, const Case& c) {
  std::set<std::string> out = tolerance::bound_cases(p, c.bounds);
  uint32_t classes = 0;
  for (const auto& [name, t] : c.inputs) classes |= coverage::tensor_value_class_bits(t);
  for (const auto& cls : coverage::value_class_names(classes)) out.insert("input:" + cls);
  return out;
}

}  // namespace difftest::oracle
