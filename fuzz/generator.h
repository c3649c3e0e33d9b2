// Random program generator (first version: type-directed insertion over the whole op
// registry). It draws every decision from a ChoiceSource, so `generate_program(seed)` is
// byte-for-byte deterministic and the same code runs under RapidCheck with shrinking.
//
// Algorithm (in the spirit of NNSmith): declare 0..max_dim_vars dim variables; then repeat:
// pick an op, pick or create operands whose types suit it (new params and constants are
// created on demand), choose attributes, run the op's own shape inference, and keep the
// binding only if inference accepts it (otherwise try another op). Results are the values no
// other binding used. Every generated program passes the verifier.
#pragma once

#include <cstdint>

#include "compiler/ir/ir.h"
#include "fuzz/rng.h"

namespace difftest {

struct GeneratorOptions {
  int min_ops = 1;
  int max_ops = 12;
  int max_dim_vars = 2;
  int max_rank = 4;
};

Program generate_program(ChoiceSource& choices, const GeneratorOptions& options = {});
Program generate_program(uint64_t seed, const GeneratorOptions& options = {});

}  // namespace difftest
