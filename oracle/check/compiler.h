// A compiler under test, as the oracle sees it: one value that plays four roles, each a small
// interface of its own — its variants (variant_ladder.h), the compile of one variant and its
// runs under a check's cases (compile_session.h), what culprit bisection needs to know of its
// steps (culprit_hooks.h), and how its failures are reported (reproducer_writer.h) — besides
// its name and the test faults planted in it. Every compiler under test is a peer in
// backends/ (the builtin one of compiler/ in backends/builtin/, ONNX Runtime, a manifest's):
// each implements this and is checked, bisected and reduced by the same path (check.h,
// reduce/). A part of the oracle that needs one role takes that role.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "oracle/check/compile_session.h"
#include "oracle/check/culprit_hooks.h"
#include "oracle/check/reproducer_writer.h"
#include "oracle/check/variant_ladder.h"

namespace difftest::oracle {

// difftest's version (the builtin compiler's too), as verdicts and reports record it.
inline constexpr const char* kDifftestVersion = "0.1.0";

class CompilerUnderTest;

// Test faults planted in a compiler (the builtin's compiler/faults: what `--inject` and a corpus
// entry's `# fault:` turn on), by name. A compiler under test is built with its set, and holds
// it for good: another set is another compiler under test, which with() and without() give. No
// fault is on for the process, so checks with different sets may share it.
class PlantedFaults {
 public:
  virtual ~PlantedFaults() = default;
  // Every fault's name, sorted.
  virtual std::vector<std::string> known() const = 0;
  // The faults planted in this compiler, sorted (verdicts and reproducers record them).
  virtual std::vector<std::string> enabled() const = 0;
  // This compiler with `names` planted besides its own; UserError(Usage) naming the known faults
  // when one is not. It lives as long as the process.
  virtual const CompilerUnderTest& with(const std::vector<std::string>& names) const = 0;
  // This compiler without `names` (without any when empty). It lives as long as the process.
  virtual const CompilerUnderTest& without(const std::vector<std::string>& names) const = 0;
};

class CompilerUnderTest : public VariantLadder,
                          public CompileSession,
                          public CulpritHooks,
                          public ReproducerWriter {
 public:
  ~CompilerUnderTest() override = default;
  // Its name and version, as reports record them.
  virtual std::string identity() const = 0;
  // Its `--backend` name ("builtin", "ort"): what a corpus entry's `# compiler:` names.
  virtual std::string name() const = 0;
  // difftest's test faults (`--inject`, a corpus entry's `# fault:`) when they are planted in
  // this compiler, else nullptr. Only the builtin has them; another compiler under test is held
  // to an entry's clean half (gate.h).
  virtual const PlantedFaults* planted_faults() const { return nullptr; }
  // The faults planted in it (none for a compiler without them), as verdicts record them.
  std::vector<std::string> enabled_faults() const;
};

}  // namespace difftest::oracle
