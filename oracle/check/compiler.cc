#include "oracle/check/compiler.h"

#include "compiler/ir/diagnostics.h"

namespace difftest::oracle {

ChildOutcome CompilerUnderTest::run_in_own_process(const Program&, const Variant& variant,
                                                   const std::vector<const Case*>&, const IsolationLimits&) const {
  DT_CHECK(false, "run_in_own_process called for " + variant.name() + " of a compiler that does not isolate itself");
  return {};
}

}  // namespace difftest::oracle
