// A compiler under test, as the oracle sees it: the variants it offers for a program, the
// compile of one variant and its runs under a check's cases, what culprit bisection needs to
// know of its steps, and what a reproducer of its failures holds. Every compiler under test is a
// peer in backends/ (the builtin one of compiler/ in backends/builtin/, ONNX Runtime, a
// manifest's): each implements this and is checked, bisected and reduced by the same path
// (check.h, reduce/).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/ir/sym.h"
#include "compiler/tensor/tensor.h"
#include "oracle/check/case.h"
#include "oracle/check/stage.h"
#include "oracle/check/variant.h"
#include "oracle/isolate/isolate.h"

namespace difftest::oracle {

struct CheckOptions;
struct Culprit;     // reduce/bisect.h
struct FailingRun;  // reduce/bisect.h
struct ReductionReport;  // reduce/reduce_failure.h
struct VariantVerdict;   // check/verdict.h

// difftest's version (the builtin compiler's too), as verdicts and reports record it.
inline constexpr const char* kDifftestVersion = "0.1.0";

// What one compile and its runs produced (in the isolated child; check/wire.h carries it).
struct CompiledRuns {
  double compile_ms = 0;
  size_t kernels = 0;  // what the compile produced (kernels, partitions), for the console
  // Not empty: the compiler has no implementation of something the program needs (an external
  // compiler without a kernel for a dtype): an `unsupported` verdict, not a finding. No runs.
  std::string unsupported;
  struct Run {
    double run_ms = 0;
    std::vector<Tensor> outputs;
    // Not empty: the same compile ran twice on the same inputs and answered differently (where).
    std::string nondeterminism;
  };
  std::vector<Run> runs;  // one per case, in order
};

// What culprit bisection (reduce/bisect.h) may do with a step of a variant.
enum class StepRole {
  Required,  // always runs whatever the limit, never dropped nor blamed alone (LegalizeOps)
  Graph,     // optional; leaves a program the reference can interpret (program_after)
  Other,     // optional; what it leaves only the compiler can run (loop passes)
};

// Test faults planted in a compiler (the builtin's compiler/faults: what `--inject` and a corpus
// entry's `# fault:` turn on), by name. They are on for the whole process, so a forked child
// compiles with the faults its parent turned on; switch them before checking, not during.
class PlantedFaults {
 public:
  // Puts back the faults that were on when it was made, when it ends.
  class Scope {
   public:
    virtual ~Scope() = default;
  };
  virtual ~PlantedFaults() = default;
  // Every fault's name, sorted.
  virtual std::vector<std::string> known() const = 0;
  // The faults on now, sorted (verdicts and reproducers record them).
  virtual std::vector<std::string> enabled() const = 0;
  // `names` on besides those already on, for the scope.
  [[nodiscard]] virtual std::unique_ptr<Scope> turn_on(const std::vector<std::string>& names) const = 0;
  // `names` off (every one when empty), for the scope.
  [[nodiscard]] virtual std::unique_ptr<Scope> turn_off(const std::vector<std::string>& names) const = 0;
};

class CompilerUnderTest {
 public:
  virtual ~CompilerUnderTest() = default;
  // Its name and version, as reports record them.
  virtual std::string identity() const = 0;
  // Its `--backend` name ("builtin", "ort"): what a corpus entry's `# compiler:` names.
  virtual std::string name() const = 0;
  // The variants a check of `p` compiles, in order: `options`' named pipelines, custom pass
  // lists and random orders. UserError(Usage) for a name it does not know.
  virtual std::vector<Variant> variants(const Program& p, const CheckOptions& options) const = 0;
  // The compile of `symbolic` on the program with its dims fixed to one case's binding, which
  // the check cross-checks with the symbolic compile; nullopt when the compiler has none.
  virtual std::optional<Variant> specialized(const Variant& symbolic) const = 0;
  // The named variant `name` (a record's, a corpus entry's): UserError(Usage) naming `where`
  // and the names it knows when it has none.
  virtual Variant named(const std::string& name, const std::string& where) const = 0;
  // The variant a record spells out (a custom list or a random order): its name, its steps and
  // the record's JSON, from which the compiler reads its settings. UserError naming `where` for
  // a step it does not know or a setting of the wrong kind.
  virtual Variant recorded(const std::string& name, std::vector<std::string> steps, const nlohmann::json& record,
                           const std::string& where) const = 0;

  // Runs in the isolated child: compiles `variant` of `p` once and runs it under every case,
  // reporting each stage it enters to `progress` (encoded by check/wire.h) before it starts, so
  // that a crash or a hang is attributed to the right one.
  virtual CompiledRuns compile_and_run(const Program& p, const Variant& variant, const std::vector<const Case*>& cases,
                                       Progress& progress) const = 0;
  // An external compiler whose worker is a process of its own (which it restarts) needs no fork:
  // the check calls run_in_own_process in the harness instead of compile_and_run in a child. It
  // returns what an isolated child would (oracle/isolate/isolate.h; the payload by check/wire.h), within
  // `limits`, the worker's crash or hang as the outcome's status.
  virtual bool isolates_itself() const { return false; }
  virtual ChildOutcome run_in_own_process(const Program& p, const Variant& variant,
                                          const std::vector<const Case*>& cases, const IsolationLimits& limits) const;

  // Culprit bisection's hook: the role of a step, the program a graph step leaves (the reference
  // confirms a culprit there), and whom to blame when no optional step is needed, by the stage
  // the failure showed in.
  virtual StepRole step_role(const std::string& step) const = 0;
  // The program the first `applications` optional steps of `variant` leave of `p` (required
  // steps before them included); nullopt where the compiler cannot say.
  virtual std::optional<Program> program_after(const Program& p, const Variant& variant, int applications) const = 0;
  virtual std::string fixed_culprit(const Stage& failed_in) const = 0;
  // A compiler whose steps are not a sequence to cut (ONNX Runtime's transformers, which mask
  // each other) searches for its culprit itself; nullopt: opt-bisect over its steps
  // (reduce/bisect.h). `on_call` reports each check it makes.
  virtual std::optional<Culprit> own_culprit_search(const Program& p, const FailingRun& failing,
                                                    const CheckOptions& base,
                                                    const std::function<void(int, const std::string&)>& on_call) const;

  // The variant that applies none of the compiler's optimizations (ONNX Runtime: `disabled`);
  // nullopt when it has none to hold (the builtin's O0 is a pipeline like the others). A
  // failure of another variant is an optimizer finding only while the baseline runs right, so
  // a reduction that starts with the baseline `ok` keeps it `ok`.
  virtual std::optional<Variant> baseline() const { return std::nullopt; }

  // difftest's test faults (`--inject`, a corpus entry's `# fault:`) when they are planted in
  // this compiler, else nullptr. Only the builtin has them; another compiler under test is held
  // to an entry's clean half (gate.h).
  virtual const PlantedFaults* planted_faults() const { return nullptr; }
  // The planted faults on now (none for a compiler without them), as verdicts record them.
  std::vector<std::string> enabled_faults() const;
  // The steps of a list the user spells out (a corpus entry's `# passes: a,b,c`), checked:
  // UserError(Usage) naming `where` for a step it does not know or an order it refuses. Only
  // the builtin takes such lists; another compiler refuses any.
  virtual std::vector<std::string> step_list(const std::string& text, const std::string& where) const;

  // The reproducer writer: how a report names the compiler and a variant's settings, the flags
  // of `difftest run`/`bisect` that compile `variant` again, and files of the compiler's own
  // beside a reduced failure's repro.ir (the builtin: the program as a TVM Relax module), each
  // written atomically into `dir`.
  virtual std::string environment(const Variant& variant) const = 0;
  // The machine its code is generated for, recorded with every verdict and campaign so a
  // failure replays with the same schedules ("": the compiler picks by itself).
  virtual std::string target() const { return ""; }
  // ` --target NAME` for a command that replays a failure of it ("" when it has no target).
  std::string target_flag() const { return target().empty() ? "" : " --target " + target(); }
  virtual std::string replay_flags(const Variant& variant) const = 0;
  // `p` is the reduced program as repro.ir holds it (its dims fixed for a specialized failure),
  // `binding` its dims; `failure` which variant failed there and how.
  virtual void write_reproducer(const std::string& dir, const Program& p, const sym::Env& binding,
                                const VariantVerdict& failure, const CheckOptions& options) const = 0;
  // What write_reproducer writes, as the report says it.
  virtual std::string reproducer_files() const = 0;
  // After write_reproducer, for a reduced failure: files in the compiler's own project's terms
  // (ONNX Runtime: report.md in its bug template, self-checking Python and Node reproducers),
  // written over the generic ones. The builtin writes none.
  virtual void write_report(const std::string& dir, const ReductionReport& report, const CheckOptions& options) const;
};

}  // namespace difftest::oracle
