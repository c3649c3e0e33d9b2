#include "oracle/check/compiler.h"

#include "compiler/support/diagnostics.h"

namespace difftest::oracle {

ChildOutcome CompileSession::run_in_own_process(const Program&, const Variant& variant,
                                                const std::vector<const Case*>&, const IsolationLimits&) const {
  DT_CHECK(false, "run_in_own_process called for " + variant.name() + " of a compiler that does not isolate itself");
  return {};
}

std::vector<std::string> VariantLadder::step_list(const std::string&, const std::string& where) const {
  throw UserError(ErrorKind::Usage, where + ": lists of steps are the builtin compiler's");
}

std::vector<std::string> CompilerUnderTest::enabled_faults() const {
  const PlantedFaults* faults = planted_faults();
  return faults ? faults->enabled() : std::vector<std::string>{};
}

}  // namespace difftest::oracle
