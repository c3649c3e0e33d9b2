// Test-case reduction (delta debugging in the spirit of C-Reduce) for programs: repeatedly
// try smaller variants of a failing program and keep one whenever it is still "interesting"
// (the caller's predicate; difftest's is "fails with the same signature and culprit pass"),
// until no step makes progress. The reducer knows nothing of compilers: only the IR.
//
// Steps, in order, each tried on every site: remove an output; bypass a call with a same-typed
// operand; cut a value into a new parameter; fix a dim variable to its failing value; halve or
// unit a constant dim everywhere it occurs; reset an attribute to its default; turn a random
// constant into a splat and an input into a splat constant; cut a float value into a constant
// splat of 100 (for failures that need large values). After each step unused bindings
// and params are dropped and every call's result types are inferred again; a candidate that
// does not type-check or verify is skipped before the predicate sees it. A candidate must be
// strictly smaller by `ProgramSize` (lexicographic), so reduction terminates.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <tuple>

#include "compiler/ir/ir.h"
#include "compiler/sym/sym.h"

namespace difftest::fuzz {

// What "smaller" means, most important first.
struct ProgramSize {
  int64_t ops = 0;             // call bindings
  int64_t elements = 0;        // elements of every value under the binding
  int64_t dtypes = 0;          // distinct dtypes
  int64_t random_values = 0;   // params (random inputs) plus constants that are not splats
  int64_t attributes = 0;      // attributes that differ from their defaults
  int64_t dims = 0;            // dim variables

  auto tie() const { return std::tie(ops, elements, dtypes, random_values, attributes, dims); }
  bool operator<(const ProgramSize& o) const { return tie() < o.tie(); }
  std::string str() const;
};

ProgramSize program_size(const Program& p, const sym::Env& binding);

struct ReduceStats {
  int candidates = 0;   // built and verified
  int invalid = 0;      // skipped: did not type-check or verify
  int tested = 0;       // predicate calls (the oracle calls of the caller)
  int cache_hits = 0;   // candidates seen before (by program hash)
  int accepted = 0;
  bool timed_out = false;
  double seconds = 0;
};

struct ReduceOptions {
  sym::Env binding;       // the failing binding (dims fixed by reduction are dropped from it)
  double time_limit = 0;  // seconds; 0: none. The best program so far is returned at the limit.
  int jobs = 1;           // candidates tried at once; the result does not depend on it
  // Called with every accepted program (to save the best so far).
  std::function<void(const Program&, const sym::Env&)> on_accept;
  // Called after every batch of candidates with the stats so far and the step that made them
  // ("remove outputs", "bypass calls", ...).
  std::function<void(const ReduceStats&, const std::string& step)> on_step;
};

struct Reduced {
  Program program;
  sym::Env binding;
  ReduceStats stats;
};

using Interesting = std::function<bool(const Program&, const sym::Env&)>;

Reduced reduce_program(const Program& p, const Interesting& interesting, const ReduceOptions& options);

}  // namespace difftest::fuzz
