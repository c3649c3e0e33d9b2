#include "oracle/check/compiler.h"

#include "compiler/ir/diagnostics.h"
#include "oracle/reduce/bisect.h"

namespace difftest::oracle {

ChildOutcome CompilerUnderTest::run_in_own_process(const Program&, const Variant& variant,
                                                   const std::vector<const Case*>&, const IsolationLimits&) const {
  DT_CHECK(false, "run_in_own_process called for " + variant.name() + " of a compiler that does not isolate itself");
  return {};
}

std::vector<std::string> CompilerUnderTest::enabled_faults() const {
  const PlantedFaults* faults = planted_faults();
  return faults ? faults->enabled() : std::vector<std::string>{};
}

std::vector<std::string> CompilerUnderTest::step_list(const std::string&, const std::string& where) const {
  throw UserError(ErrorKind::Usage, where + ": lists of steps are the builtin compiler's, not " + name() + "'s");
}

void CompilerUnderTest::write_report(const std::string&, const ReductionReport&, const CheckOptions&) const {}

std::optional<Culprit> CompilerUnderTest::own_culprit_search(
    const Program&, const FailingRun&, const CheckOptions&, const std::function<void(int, const std::string&)>&) const {
  return std::nullopt;
}

}  // namespace difftest::oracle
