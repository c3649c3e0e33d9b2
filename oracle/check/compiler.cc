#include "oracle/check/compiler.h"

#include "compiler/ir/diagnostics.h"
#include "oracle/reduce/bisect.h"

namespace difftest::oracle {

ChildOutcome CompilerUnderTest::run_in_own_process(const Program&, const Variant& variant,
                                                   const std::vector<const Case*>&, const IsolationLimits&) const {
  DT_CHECK(false, "run_in_own_process called for " + variant.name() + " of a compiler that does not isolate itself");
  return {};
}

void CompilerUnderTest::write_report(const std::string&, const ReductionReport&, const CheckOptions&) const {}

std::optional<Culprit> CompilerUnderTest::own_culprit_search(
    const Program&, const FailingRun&, const CheckOptions&, const std::function<void(int, const std::string&)>&) const {
  return std::nullopt;
}

}  // namespace difftest::oracle
