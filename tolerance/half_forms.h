// Two legitimate forms of f16/bf16 arithmetic that random rounding cannot sample, as programs
// the ensemble evaluates beside its members (ensemble.h, docs/tolerance.md "Legitimate forms"):
//
//   1. f16 computed in f32, as ONNX Runtime's CPU provider runs f16 nodes it has no kernel for:
//      every f16 value is computed in f32 and rounded to f16 only at the program's casts to f16
//      and at its outputs. Legitimate only where Options::half_may_compute_in_f32 says so.
//   2. f16/bf16 accumulated in f32 where the program declares a narrow accumulator (or none), as
//      fused kernels do (MLAS, oneDNN, cuBLAS with f32 compute).
//
// A member perturbs the rounding of each value in its own dtype; it never holds an f16 value in
// f32 for a whole chain, so its spread does not reach a form that rounds less, far less often.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/ir/ir.h"
#include "tolerance/error_model.h"

namespace difftest::tolerance {

struct ProgramForm {
  std::string description;  // for reports: "f16 computed in f32, ..."
  Program program;          // reads the original program's inputs by name
  // Each value of the original program -> the value holding it here (an f16 value: its f32 form).
  std::unordered_map<const ValueNode*, Value> counterpart;
};

// Form 1 of `p`; nullopt where `p` computes no f16 value or the rewrite does not type-check.
std::optional<ProgramForm> f16_computed_in_f32(const Program& p);
// Form 2 of `p`; nullopt where no op on f16/bf16 operands accumulates in f16/bf16, or where
// the rewrite does not type-check.
std::optional<ProgramForm> narrow_acc_in_f32(const Program& p);

// The forms that apply to `p` under `opt`, in the order above.
std::vector<ProgramForm> half_forms(const Program& p, const Options& opt);

}  // namespace difftest::tolerance
