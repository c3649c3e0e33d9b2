// The builtin compiler for tests of the oracle: CheckOptions::compiler is required (a check
// without it is an internal error), and these tests check the builtin compiler's compiles.
#pragma once

#include "backends/builtin/builtin_compiler.h"
#include "compiler/pipeline/pipelines.h"
#include "oracle/check/check.h"
#include "oracle/reduce/bisect.h"

namespace difftest::testing {

// The builtin compiler with `faults` planted, for the default target (what `--inject` builds).
inline const oracle::CompilerUnderTest& builtin_with(const std::vector<std::string>& faults) {
  return backends::builtin_compiler(backends::BuiltinOptions{&target::default_target(), faults});
}

// `o`, checking the builtin compiler with `faults` planted.
inline oracle::CheckOptions planting(oracle::CheckOptions o, const std::vector<std::string>& faults) {
  o.compiler = &builtin_with(faults);
  return o;
}

// CheckOptions' defaults, with the builtin compiler under test.
inline oracle::CheckOptions builtin_checks() {
  oracle::CheckOptions o;
  o.compiler = &backends::builtin_compiler();
  return o;
}

// A pass list the user spells out (`--passes`): the builtin's custom variant of `pipe`.
inline oracle::Variant custom_list(const pipeline::Pipeline& pipe) {
  return backends::builtin_variant(oracle::VariantKind::Custom, pipe);
}

// One pipeline of the builtin compiler compared with the reference (oracle::check_variant_outcome).
inline oracle::VariantVerdict check_pipeline(const Program& p, const pipeline::Pipeline& pipe, const sym::Env& binding,
                                             const oracle::CheckOptions& base) {
  return oracle::check_variant_outcome(p, oracle::VariantId(backends::variant_of_pipeline(pipe)), binding, base);
}

}  // namespace difftest::testing
