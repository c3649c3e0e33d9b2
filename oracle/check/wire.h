// Tensors across the pipe from an isolated child: a compact binary encoding.
#pragma once

#include <string>
#include <vector>

#include "compiler/tensor/tensor.h"

namespace difftest::oracle {

std::string encode_tensors(const std::vector<Tensor>& ts);
// InternalError on a truncated or malformed stream (the child is ours, so that is a bug).
std::vector<Tensor> decode_tensors(const std::string& bytes);

}  // namespace difftest::oracle
