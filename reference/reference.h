// The reference interpreter: the oracle every verdict rests on.
//
// It evaluates a valid Program op by op, each op implemented directly from the semantics
// written in its OpDef (compiler/ops/), with Eigen array expressions and OpenBLAS for the
// matrix products. It shares with the compiler only the IR data structures, the parser, the
// shape inference and the tensor container — never a pass, the lowering or codegen (the
// build enforces it: difftest_reference links difftest_ir only).
//
// Modes:
//   F64     every floating value and operation is double precision, whatever the declared
//           dtype; constants and inputs keep the values of their dtype. This is the value the
//           tolerance module bounds against. Float results are returned as f64 tensors.
//   Native  values live in their declared dtypes: every operation's result is rounded to its
//           dtype (f16 and bf16 with round-to-nearest-even after every operation), sums are
//           accumulated sequentially in each op's declared accumulator dtype (`acc`).
// Integer, bool and q4 code paths are exact and identical in both modes.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/tensor/tensor.h"
#include "reference/perturbation.h"

namespace difftest::reference {

enum class Mode { F64, Native };
const char* mode_name(Mode m);
Mode parse_mode(const std::string& name);  // UserError(Usage) on anything but f64 / native

// The storage dtype of a value of declared dtype `t` in mode `m`.
DType storage_dtype(DType t, Mode m);

struct Evaluation {
  std::unordered_map<const ValueNode*, Tensor> values;  // every binding's results
  std::vector<Tensor> outputs;                          // the program's results, in order
};

// Largest total of live tensor bytes an evaluation may allocate (UserError Limit beyond).
constexpr int64_t kMaxEvaluationBytes = int64_t{8} << 30;

// The bytes of every value of `p` under `env` in mode `m` (what evaluate keeps live), plus
// `extra_per_element` for each element of a float value (what a caller keeps beside it, such
// as error bounds). Saturates at INT64_MAX; UserError on a shape that overflows.
int64_t evaluation_bytes(const Program& p, const sym::Env& env, Mode m, int64_t extra_per_element = 0);

// UserError(Limit) before anything is allocated when evaluation_bytes exceeds
// kMaxEvaluationBytes: "@p under n=50000 needs 74.5 GiB for <what> ...".
void require_evaluation_memory(const Program& p, const sym::Env& env, Mode m, int64_t extra_per_element,
                               const std::string& what);

// `env` binds every dim variable (within its range); `inputs` holds one tensor per param, by
// name, with the param's dtype and concrete shape. Bad bindings or inputs are UserErrors; a
// computed shape that differs from the binding's type is an InternalError naming the op.
Evaluation evaluate(const Program& p, const sym::Env& env, const std::map<std::string, Tensor>& inputs, Mode mode);

// One member of the ensemble of legitimate native results (reference/perturbation.h): Native
// mode with random rounding drawn from `member_seed` and matrix products summed as `summation`.
Evaluation evaluate_perturbed(const Program& p, const sym::Env& env, const std::map<std::string, Tensor>& inputs,
                              uint64_t member_seed, Summation summation = {});

// The concrete shape of `t` under `env` (UserError on overflow or a dim < 1).
std::vector<int64_t> concrete_shape(const TensorType& t, const sym::Env& env);

}  // namespace difftest::reference
