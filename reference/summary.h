// Human-readable summaries and on-disk dumps of evaluation results (used by `difftest eval`).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/tensor/tensor.h"

namespace difftest::reference {

// "f16[4, 640] min=-1.5 max=2 mean=0.03125 hash=0123456789abcdef"; the dtype shown is the
// declared one, the statistics are over the stored values.
std::string summarize(const Tensor& t, DType declared);

std::string binding_str(const sym::Env& env);

// Writes DIR/in_<name>.npy for every input, DIR/out_<i>.npy for every output and DIR/README.txt
// (how the files were produced, and that bf16 is stored as raw <u2). Creates DIR if needed.
void dump_tensors(const std::string& dir, const std::map<std::string, Tensor>& inputs,
                  const std::vector<Tensor>& outputs, const std::string& note);

}  // namespace difftest::reference
