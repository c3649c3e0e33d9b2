// What crosses the pipe from an isolated child: tensors and the stages it reaches, in a
// compact binary encoding.
#pragma once

#include <string>
#include <vector>

#include "compiler/tensor/tensor.h"
#include "oracle/check/compiler.h"
#include "oracle/check/stage.h"

namespace difftest::oracle {

std::string encode_tensors(const std::vector<Tensor>& ts);
// InternalError on a truncated or malformed stream (the child is ours, so that is a bug).
std::vector<Tensor> decode_tensors(const std::string& bytes);

// A compile's results, as the child returns them.
std::string encode_compiled_runs(const CompiledRuns& runs);
CompiledRuns decode_compiled_runs(const std::string& bytes);  // InternalError when malformed

std::string encode_stage(const Stage& stage);
// The stage encode_stage wrote; "" (a child that died before it reported one) is the start of
// the compile. InternalError on a malformed one.
Stage decode_stage(const std::string& bytes);

}  // namespace difftest::oracle
