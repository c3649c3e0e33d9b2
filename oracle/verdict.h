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

// One pipeline under one binding.
struct VariantVerdict {
  std::string pipeline;
  sym::Env binding;
  VerdictKind kind = VerdictKind::Ok;
  std::string stage;    // compile / run / compare
  std::string message;  // what happened, with numbers
  // Mismatch details (worst element over all outputs).
  std::string output;
  std::vector<int64_t> index;
  double got = 0, want = 0, bound = 0, worst_ratio = 0;
  double compile_ms = 0, run_ms = 0;

  std::string signature() const;
  nlohmann::json to_json() const;
};

struct Verdict {
  std::string program;  // name
  uint64_t hash = 0;    // program_hash of the canonical text
  std::vector<VariantVerdict> variants;
  std::vector<std::string> faults;  // injected faults, recorded for reproducers

  // The most severe variant kind (failures first, then invalid_program, then ok).
  VerdictKind overall() const;
  const VariantVerdict* first_failure() const;
  nlohmann::json to_json() const;
};

// `message` with numbers, %names, @names and bracketed shapes masked, so that failures that
// differ only in those collapse to one signature.
std::string normalize_message(const std::string& message);

}  // namespace difftest::oracle
