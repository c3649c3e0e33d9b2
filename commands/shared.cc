#include "commands/shared.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace difftest::commands {

tolerance::Options tolerance_options(const EvalRequest& r) {
  tolerance::Options o;
  o.mode = tolerance::parse_bound_mode(r.bound_mode);
  o.lambda = r.lambda;
  return o;
}

oracle::CaseOptions case_options(const EvalRequest& r) {
  oracle::CaseOptions o;
  o.input_seed = r.seed;
  o.tolerance = tolerance_options(r);
  o.ensemble.members = r.members;
  return o;
}

std::string output_comparison_lines(const tolerance::OutputComparison& o, const std::string& summary) {
  std::string out = fmt::format(
      "out {} {}: {}{} compared={} uncertain={} failing={} worst ratio={:.3g} at [{}] got={:.9g} want={:.9g} "
      "bound={:.3g}\n",
      o.index, o.name, summary.empty() ? "" : summary + " ",
      !o.passed()       ? "MISMATCH"
      : o.has_outlier() ? "OUTLIER"
      : o.unchecked()   ? "UNCHECKED"
                        : "ok",
      o.compared, o.uncertain, o.failing, o.worst_ratio, fmt::join(o.worst_index, ", "), o.got, o.want, o.bound);
  if (o.calibrated) out += fmt::format("  {}\n", tolerance::statistical_summary(o));
  return out;
}

}  // namespace difftest::commands
