// How much of a campaign's compiling a cache of compiled kernels could save: every variant the
// check compiles, each kernel (a function and its parallel bodies) as codegen emits it in LLVM IR
// with its name masked, keyed with the LLVM level, FMA contraction and target, which decide the
// rest of its machine code. A kernel counts as a hit when an identical one was compiled before:
// by an earlier variant of the same program (a cache per program), or anywhere earlier in the
// campaign (a cache per campaign worker). Loop-metadata and attribute-group numbers are masked
// too, so the figures are upper bounds of what an exact key would hit. A measurement for
// bench/campaign_bench, which prints it; no cache exists (docs/fuzzing.md says why).
#pragma once

#include <cstdint>

#include "fuzz/generator.h"
#include "oracle/check/check.h"

namespace difftest::oracle {

struct KernelSharing {
  int64_t programs = 0, kernels = 0, lines = 0;  // kernels compiled, and their lines of LLVM IR
  int64_t hits_in_program = 0, hit_lines_in_program = 0;
  int64_t hits_in_campaign = 0, hit_lines_in_campaign = 0;
};

// Seeds first..last generated with `generator`, compiled as `check` compiles them (its pipelines,
// random orders and, with `specialize`, the last pipeline on the middle standard binding).
// A variant that fails to compile is left out.
KernelSharing measure_kernel_sharing(uint64_t first, uint64_t last, const CheckOptions& check,
                                     const GeneratorOptions& generator);

}  // namespace difftest::oracle
