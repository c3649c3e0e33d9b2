// Verdicts of checking one program, and failure signatures for deduplication.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/sym/sym.h"
#include "oracle/check/signature.h"
#include "oracle/check/stage.h"
#include "oracle/check/variant.h"

namespace difftest::oracle {

class ReproducerWriter;  // check/reproducer_writer.h

enum class VerdictKind {
  Ok,
  Mismatch,        // an output outside its bound
  CompileCrash,    // the compiler died (signal) or failed an internal check
  CompileReject,   // the compiler refused a valid program with a user-facing error
  RuntimeCrash,    // the compiled code died or the executor failed
  Timeout,         // compile + run exceeded the time limit
  InvalidProgram,  // the reference is not finite: the generator's fault, never a compiler bug
  // Inside the sound bounds (or where they are uncertain) but far outside the spread of
  // legitimate results the ensemble observed, or biased across an output (tolerance/ensemble.h).
  Outlier,
  // Too few elements of an output compared by either tier to say anything: not a failure, and
  // never ok (a campaign or gate fails on it with --fail-on unchecked; --seed, run and compare
  // exit 4).
  Unchecked,
  // The same compile gave two different answers on the same inputs (an uninitialized buffer, a
  // race): a finding.
  Nondeterministic,
  // The compiler under test has no implementation of something the program needs (an external
  // compiler without a kernel for a dtype, a model form it does not take): not a finding.
  Unsupported,
};
const char* verdict_kind_name(VerdictKind k);  // ok mismatch compile_crash ...
// The kind of a name verdict_kind_name gives; nullopt for any other text.
std::optional<VerdictKind> verdict_kind_from_name(const std::string& name);
bool is_failure(VerdictKind k);  // a finding: not ok, invalid_program, unchecked or unsupported
// A finding about the values of an output (mismatch, outlier): its signature names the op.
bool is_output_finding(VerdictKind k);
// A verdict about one output, named by the op that produced it: the findings and unchecked.
bool names_output(VerdictKind k);

// A compile that did not finish within its CPU budget, and the rerun with a larger budget
// that confirms (or refutes) the timeout.
struct TimeoutTry {
  double cpu_budget = 0;  // seconds
  double cpu_seconds = 0, wall_seconds = 0;
  bool blocked = false;             // stopped by the backstop (no CPU used for that long), the CPU budget not reached
  Stage stage;                      // where it was
  double finished_cpu_seconds = 0;  // CPU time of the stages before `stage`
  std::string outcome;              // "timed_out", or how the rerun ended ("ok", "crashed", ...)
  nlohmann::json to_json() const;
  static TimeoutTry from_json(const nlohmann::json& j, const std::string& where);
};

// One variant under one binding.
struct VariantVerdict {
  VariantId variant;
  sym::Env binding;  // a specialized compile is of the program with its dims fixed to it
  VerdictKind kind = VerdictKind::Ok;
  Stage stage;          // the pass (or codegen) a compile failed in, the run, or the comparison
  std::string message;  // what happened, with numbers
  // Elements of the outputs compared with the reference (either tier) and in all, summed over
  // the outputs; 0 and 0 where nothing was compared (a compile that failed, a cross-check).
  int64_t elements_checked = 0, elements = 0;
  // Mismatch details (worst element over all outputs); for unchecked, the output and op alone.
  std::string output;
  std::string output_op;  // the op that produced the worst output (the mismatch's signature)
  std::vector<int64_t> index;
  double got = 0, want = 0, bound = 0, worst_ratio = 0;
  // The statistical tier: max |got - ref| / allowance over the statistically compared elements
  // (1 is the edge of the allowance; the headroom a clean run leaves).
  double worst_excess = 0;
  double compile_ms = 0, run_ms = 0;
  double cpu_ms = 0;  // CPU time of the child that compiled and ran it (all bindings), as the kernel counts it
  // Set when a try timed out: that try and its rerun with a larger budget. A timeout is the
  // verdict only when both timed out; otherwise the verdict is the rerun's.
  std::vector<TimeoutTry> tries;

  Signature signature() const;
  nlohmann::json to_json() const;
  // Every field to_json writes (the signature is derived); UserError naming `where` when a field
  // is missing or of the wrong kind, or a name is not a pipeline, pass or verdict kind.
  // `compiler` resolves the variant's names (VariantId::from_json).
  static VariantVerdict from_json(const nlohmann::json& j, const std::string& where,
                                  const VariantLadder& compiler);
};

// Where the time of checking one program went (milliseconds, summed over bindings).
struct StageTimes {
  double generate = 0, reference = 0, compile = 0, run = 0, compare = 0;
  // `compile` by variant: the named ones by name ("O3", "O3-specialized"), random orders
  // together as "orders", explicit pass lists as "custom".
  std::map<std::string, double> compile_by_variant;
  StageTimes& operator+=(const StageTimes& o);
  nlohmann::json to_json() const;
  static StageTimes from_json(const nlohmann::json& j);  // absent stages are 0
};

struct Verdict {
  std::string program;  // name
  uint64_t hash = 0;    // program_hash of the canonical text
  std::vector<VariantVerdict> variants;
  std::vector<std::string> faults;  // injected faults, recorded for reproducers
  std::string target;               // CompilerUnderTest::target(), recorded for reproducers
  StageTimes times;
  // What the compiles of every variant exercised (CompiledRuns::exercised), for coverage maps.
  std::set<std::string> exercised;
  // The caller's deadline stopped the check: `variants` is incomplete and says nothing final
  // about the program.
  bool cancelled = false;

  // The most severe variant kind (failures first, then invalid_program, unchecked, ok).
  VerdictKind overall() const;
  const VariantVerdict* first_failure() const;
  // Variants with a try that timed out and a rerun that did not: what a CPU-time budget
  // that is too tight, or a noisy machine, would have turned into false timeouts.
  int refuted_timeouts() const;
  // The distinct signatures of the failing variants, in variant order.
  std::vector<Signature> failure_signatures() const;
  nlohmann::json to_json() const;
  // As to_json writes it; UserError naming `where` when it is malformed.
  static Verdict from_json(const nlohmann::json& j, const std::string& where, const VariantLadder& compiler);
};

// The verdict for a terminal: the program hash, one line per variant (pipeline, binding, kind,
// worst ratio or message), then "verdict: <overall>". `title` opens the first line.
// A custom list or random order is listed with the flags that replay it (`compiler`'s).
std::string format_verdict(const Verdict& v, const std::string& title, const ReproducerWriter& compiler);

// "2m05s", "1h07m": elapsed and remaining times in progress lines.
std::string format_duration(double seconds);

}  // namespace difftest::oracle
