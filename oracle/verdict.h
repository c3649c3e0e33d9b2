// Verdicts of checking one program, and failure signatures for deduplication.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/ir/sym.h"

namespace difftest::oracle {

enum class VerdictKind {
  Ok,
  Mismatch,        // an output outside its bound
  CompileCrash,    // the compiler died (signal) or failed an internal check
  CompileReject,   // the compiler refused a valid program with a user-facing error
  RuntimeCrash,    // the compiled code died or the executor failed
  Timeout,         // compile + run exceeded the time limit
  InvalidProgram,  // the reference is not finite: the generator's fault, never a compiler bug
};
const char* verdict_kind_name(VerdictKind k);  // ok mismatch compile_crash ...
bool is_failure(VerdictKind k);                // a compiler bug: not ok, not invalid_program
// The kind name a signature or failure key starts with ("timeout" of "timeout|O0|run|...").
std::string signature_kind(const std::string& signature);

// One pipeline under one binding.
struct VariantVerdict {
  std::string pipeline;
  // For a pipeline that is not a named one (random orders, --passes): its passes and LLVM
  // settings, so the run reproduces.
  std::vector<std::string> passes;
  int llvm_opt_level = -1;
  bool fma_contraction = false;
  sym::Env binding;
  VerdictKind kind = VerdictKind::Ok;
  std::string stage;    // the pass (or "codegen") a compile failed in, "run", or "compare"
  std::string message;  // what happened, with numbers
  // Mismatch details (worst element over all outputs).
  std::string output;
  std::string output_op;  // the op that produced the worst output (the mismatch's signature)
  std::vector<int64_t> index;
  double got = 0, want = 0, bound = 0, worst_ratio = 0;
  double compile_ms = 0, run_ms = 0;

  std::string signature() const;
  nlohmann::json to_json() const;
};

// Where the time of checking one program went (milliseconds, summed over bindings).
struct StageTimes {
  double generate = 0, reference = 0, compile = 0, run = 0, compare = 0;
  nlohmann::json to_json() const;
};

struct Verdict {
  std::string program;  // name
  uint64_t hash = 0;    // program_hash of the canonical text
  std::vector<VariantVerdict> variants;
  std::vector<std::string> faults;  // injected faults, recorded for reproducers
  StageTimes times;

  // The most severe variant kind (failures first, then invalid_program, then ok).
  VerdictKind overall() const;
  const VariantVerdict* first_failure() const;
  nlohmann::json to_json() const;
};

// The verdict for a terminal: the program hash, one line per variant (pipeline, binding, kind,
// worst ratio or message), then "verdict: <overall>". `title` opens the first line.
std::string format_verdict(const Verdict& v, const std::string& title);

// `message` with numbers, %names, @names and bracketed shapes masked, so that failures that
// differ only in those collapse to one signature.
std::string normalize_message(const std::string& message);

}  // namespace difftest::oracle
