// An external compiler's levels as the oracle's variants: a named level, its compile on the
// program with its dims fixed ("all-specialized"), the level a recorded name says, and the base
// of a compiler whose variants are its levels and whose worker is its own process.
#pragma once

#include <string>
#include <vector>

#include "oracle/check/compiler.h"
#include "oracle/check/variant.h"

namespace difftest::backends {

// `symbolic` compiled on the program with its dims fixed to one case's binding (the check
// fixes them): the same settings, named "<level>-specialized".
oracle::Variant specialized_level(const oracle::Variant& symbolic);

// The level a recorded variant name says: "all" for "all" and "all-specialized";
// `specialized` says which.
std::string level_of_recorded_name(const std::string& name, bool& specialized);

// A compiler under test whose variants are its named levels (`--opt`), each also compiled on the
// program with its dims fixed, run in a worker process of its own (run_in_own_process), never
// in a forked child.
class LevelCompiler : public oracle::CompilerUnderTest {
 public:
  std::vector<oracle::Variant> variants(const Program& p, const oracle::CheckOptions& options) const override;
  std::optional<oracle::Variant> specialized(const oracle::Variant& symbolic) const override {
    return specialized_level(symbolic);
  }
  bool isolates_itself() const override { return true; }
  oracle::CompiledRuns compile_and_run(const Program& p, const oracle::Variant& variant,
                                       const std::vector<const oracle::Case*>& cases,
                                       oracle::Progress& progress) const override;
};

}  // namespace difftest::backends
