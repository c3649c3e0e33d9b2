// FoldConstant's evaluator (passes/fold_constant.h): a one-call program compiled at O0 and run.
#pragma once

#include <optional>
#include <vector>

#include "compiler/context/compile_context.h"
#include "compiler/ir/ir.h"
#include "compiler/tensor/tensor.h"

namespace difftest::pipeline {

std::optional<std::vector<Tensor>> values_at_o0(const Program& one, const CompileContext& compile);

}  // namespace difftest::pipeline
