// A compiler under test at work (one role of CompilerUnderTest, compiler.h): the compile of one
// variant and its runs under a check's cases, in the oracle's forked child or, for a compiler
// whose worker is a process of its own, in the harness.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/tensor/tensor.h"
#include "oracle/check/case.h"
#include "oracle/check/variant.h"
#include "oracle/isolate/isolate.h"

namespace difftest::oracle {

// What one compile and its runs produced (in the isolated child; check/wire.h carries it).
struct CompiledRuns {
  double compile_ms = 0;
  size_t kernels = 0;  // what the compile produced (kernels, partitions), for the console
  // Not empty: the compiler has no implementation of something the program needs (an external
  // compiler without a kernel for a dtype): an `unsupported` verdict, not a finding. No runs.
  std::string unsupported;
  // What the compile exercised, for coverage maps (`pass:FoldConstant`: a pass that changed the
  // program); empty when the compiler does not say.
  std::vector<std::string> exercised;
  struct Run {
    double run_ms = 0;
    std::vector<Tensor> outputs;
    // Not empty: the same compile ran twice on the same inputs and answered differently (where).
    std::string nondeterminism;
  };
  std::vector<Run> runs;  // one per case, in order
};

class CompileSession {
 public:
  virtual ~CompileSession() = default;
  // Runs in the isolated child: compiles `variant` of `p` once and runs it under every case,
  // reporting each stage it enters to `progress` (encoded by check/wire.h) before it starts, so
  // that a crash or a hang is attributed to the right one.
  virtual CompiledRuns compile_and_run(const Program& p, const Variant& variant, const std::vector<const Case*>& cases,
                                       Progress& progress) const = 0;
  // An external compiler whose worker is a process of its own (which it restarts) needs no fork:
  // the check calls run_in_own_process in the harness instead of compile_and_run in a child. It
  // returns what an isolated child would (oracle/isolate/isolate.h; the payload by check/wire.h),
  // within `limits`, the worker's crash or hang as the outcome's status.
  virtual bool isolates_itself() const { return false; }
  virtual ChildOutcome run_in_own_process(const Program& p, const Variant& variant,
                                          const std::vector<const Case*>& cases, const IsolationLimits& limits) const;
};

}  // namespace difftest::oracle
