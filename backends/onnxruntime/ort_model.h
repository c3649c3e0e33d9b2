// The model ONNX Runtime runs for a program, and the tensors that cross to its worker: the
// export in the forms ORT takes (bf16 only inside the graph, q4 weights through MatMulNBits),
// each case's feeds written as raw files, and the answers read back in the program's dtypes.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "interop/onnx/tensor_proto.h"
#include "oracle/check/case.h"
#include "oracle/check/compiler.h"

namespace difftest::backends {

struct OrtModel {
  std::string bytes;  // the serialized ModelProto
  // The graph's inputs in order: a param (its index in Program::params(), fed in `dtype`) or an
  // extent input carrying dim `dim` as its length.
  struct Input {
    std::string name;
    int param = -1;  // -1: an extent input
    std::string dim;
    DType dtype = DType::f32;
  };
  std::vector<Input> inputs;
};

// interop::Unsupported for a program without an ONNX form.
OrtModel export_for_ort(const Program& p);

// The worker's name for a dtype at the graph's edges ("float32", ...).
std::string ort_type_name(DType t);

// The tensors fed to the model's inputs under `c`, in the graph's input order: a param's input
// (bf16 as f32), an extent input's zeros.
std::vector<std::pair<std::string, Tensor>> feeds_of(const OrtModel& model, const Program& p, const oracle::Case& c);

// Writes `c`'s inputs, raw and one after another, into the file `dir`/`file`, and returns the
// request's list of them (name, type, dims, file, offset, bytes). One file per case: creating a
// file is what a request spent most on (ext4 took ~0.35 ms a file here, with hundreds a program).
nlohmann::json write_feeds(const OrtModel& model, const Program& p, const oracle::Case& c,
                           const std::filesystem::path& dir, const std::string& file);

// An answer of ONNX Runtime that does not fit the program (another output type, shape or size):
// ORT's finding, reported at the run.
class WrongAnswer : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One case's answer (run_ms, outputs as byte ranges of files in `dir`, differs) as outputs of `p`: f32 answers
// of bf16 outputs rounded back (they are exact), shapes and types checked against the program.
oracle::CompiledRuns::Run read_run(const Program& p, const sym::Env& binding, const nlohmann::json& answer,
                                   const std::filesystem::path& dir);

}  // namespace difftest::backends
