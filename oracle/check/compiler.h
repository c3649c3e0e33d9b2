// A compiler under test, as the oracle sees it: the variants it offers for a program, the
// compile of one variant and its runs under a check's cases. The builtin compiler (compiler/)
// is the first; an external one implements the same and is checked by the same path
// (check.h: isolation, comparison with the case, verdicts, cross-checks).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/tensor/tensor.h"
#include "oracle/check/case.h"
#include "oracle/check/isolate.h"
#include "oracle/check/variant.h"

namespace difftest::oracle {

struct CheckOptions;

// difftest's version (the builtin compiler's too), as verdicts and reports record it.
inline constexpr const char* kDifftestVersion = "0.1.0";

// What one compile and its runs produced (in the isolated child; check/wire.h carries it).
struct CompiledRuns {
  double compile_ms = 0;
  size_t kernels = 0;  // what the compile produced (kernels, partitions), for the console
  struct Run {
    double run_ms = 0;
    std::vector<Tensor> outputs;
  };
  std::vector<Run> runs;  // one per case, in order
};

class CompilerUnderTest {
 public:
  virtual ~CompilerUnderTest() = default;
  // Its name and version, as reports record them.
  virtual std::string identity() const = 0;
  // The variants a check of `p` compiles, in order: `options`' named pipelines, custom pass
  // lists and random orders. UserError(Usage) for a name it does not know.
  virtual std::vector<Variant> variants(const Program& p, const CheckOptions& options) const = 0;
  // The compile of `symbolic` on the program with its dims fixed to one case's binding, which
  // the check cross-checks with the symbolic compile; nullopt when the compiler has none.
  virtual std::optional<Variant> specialized(const Variant& symbolic) const = 0;
  // Runs in the isolated child: compiles `variant` of `p` once and runs it under every case,
  // reporting each stage it enters to `progress` (encoded by check/wire.h) before it starts, so
  // that a crash or a hang is attributed to the right one.
  virtual CompiledRuns compile_and_run(const Program& p, const Variant& variant, const std::vector<const Case*>& cases,
                                       Progress& progress) const = 0;
};

// The compiler of compiler/: named pipelines O0..O3, pass lists, random valid pass orders,
// shape specialization (SpecializeShapes first), LLVM JIT.
const CompilerUnderTest& builtin_compiler();

}  // namespace difftest::oracle
