// FoldConstant: a call whose operands are all constants (including results folded earlier in
// the same run; creation ops without operands count) is evaluated at compile time and its
// results become literal constants.
//
// As in TVM, the compiler evaluates it: a one-op program over the constant operands goes to the
// evaluator the pipeline hands in, which compiles it at O0 and runs it
// (pipeline/constant_evaluation.h), so a folded value is exactly what the compiled op computes
// (and the reference interpreter is never linked); the pass itself stands below the pipeline. Integer and bool results stay integers; float
// results are the dtype-rounded elements as doubles.
//
// A call is folded only when every operand and result shape simplifies to constants under
// the dim ranges: a symbolic shape is never guessed (arange(end=n) stays, unless n's range
// is a single value). A result of more than kMaxFoldedElements elements stays an op, so the
// text form stays readable. Generated constants (uniform, normal) are left as they are.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "compiler/context/compile_context.h"
#include "compiler/ir/ir.h"
#include "compiler/tensor/tensor.h"

namespace difftest::passes {

constexpr int64_t kMaxFoldedElements = 4096;  // per result

// The values of a program of one call over constants, or nullopt when the op rejects its values
// at run time (the call is left to run time then): compiled under the same context.
using ConstantEvaluator = std::function<std::optional<std::vector<Tensor>>(const Program& one, const CompileContext& compile)>;

// p itself when nothing folds.
Program fold_constant(const Program& p, const CompileContext& compile, const ConstantEvaluator& evaluate);

}  // namespace difftest::passes
