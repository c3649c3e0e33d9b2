// What an external compiler's worker is handed for a program and what it hands back: the model
// in the form the backend takes (ONNX as interop/onnx exports it, or the program's own text),
// each case's inputs as raw byte ranges of one file, and the answers read back in the program's
// dtypes. docs/backends.md ("The worker protocol") is the contract these files implement.
#pragma once

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "interop/onnx/tensor_proto.h"
#include "oracle/check/case.h"
#include "oracle/check/compiler.h"

namespace onnx {
class ModelProto;
}  // namespace onnx

namespace difftest::backends {

enum class ModelFormat {
  Onnx,  // model.onnx: bf16 only inside the graph (f32 at its edges), q4 weights through MatMulNBits
  Text,  // program.ir: difftest's IR text (docs/ir.md), every dtype at the edges as declared
  // program.py: a TVM Relax module (exporters/tvmscript), every dtype at the edges as declared;
  // generated constants are inputs after the params, dims no tensor binds an R.Shape argument
  TvmScript,
};
// "onnx", "ir", "tvmscript"; parse_model_format: nullopt for another name.
std::string model_format_name(ModelFormat f);
std::optional<ModelFormat> parse_model_format(const std::string& name);
// The file name a worker is given a model of format `f` under: "model.onnx", "program.ir" or
// "program.py".
std::string model_file_name(ModelFormat f);

struct WorkerModel {
  ModelFormat format = ModelFormat::Onnx;
  std::string bytes;  // the file's contents (a serialized ModelProto, the IR text or the Python module)
  // The model's inputs in order: a param (its index in Program::params(), fed in `dtype`), a
  // generated constant materialized under the case's binding (`constant`, its index in
  // Program::bindings(); TVMScript only) or an extent input carrying dim `dim` as its length (ONNX
  // only). Indices, not pointers: a cached model serves every program of the same text.
  struct Input {
    std::string name;
    int param = -1;     // -1: a constant or an extent input
    int constant = -1;  // -1: a param or an extent input
    std::string dim;
    DType dtype = DType::f32;
  };
  std::vector<Input> inputs;
  // ONNX: the model as ONNX's type inference left it (the type of every value), which a
  // backend's table of kernels is checked against (backends/onnxruntime/ort_kernels.h).
  std::shared_ptr<const ::onnx::ModelProto> typed;
  std::string file_name() const { return model_file_name(format); }
  // The dtype a program value of `t` crosses the boundary in (ONNX: bf16 as f32).
  DType edge_dtype(DType t) const { return format == ModelFormat::Onnx && t == DType::bf16 ? DType::f32 : t; }
};

// The program as an ONNX model. interop::Unsupported for a program without an ONNX form.
WorkerModel export_onnx_model(const Program& p);
// The program as its IR text (every program has one).
WorkerModel export_text_model(const Program& p);
// The program as a TVM Relax module (exporters/tvmscript/tvmscript.h).
WorkerModel export_tvmscript_model(const Program& p);
WorkerModel export_model(const Program& p, ModelFormat format);

// The protocol's name for a dtype at the model's edges ("float32", "bfloat16", ...).
std::string worker_type_name(DType t);

// The tensors fed to the model's inputs under `c`, in the model's input order: a param's input
// (bf16 as f32 in ONNX), a constant's values, an extent input's zeros.
std::vector<std::pair<std::string, Tensor>> feeds_of(const WorkerModel& model, const Program& p, const oracle::Case& c);

// Writes `c`'s inputs, raw and one after another, into the file `dir`/`file`, and returns the
// request's list of them (name, type, dims, file, offset, bytes). One file per case: creating a
// file is what a request spent most on (ext4 took ~0.35 ms a file here, with hundreds a program).
nlohmann::json write_feeds(const WorkerModel& model, const Program& p, const oracle::Case& c,
                           const std::filesystem::path& dir, const std::string& file);

// An answer of the compiler that does not fit the program (another output type, shape or size):
// the compiler's finding, reported at the run.
class WrongAnswer : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One case's answer (run_ms, outputs as byte ranges of files in `dir`, differs) as outputs of
// `p`: f32 answers of bf16 outputs of an ONNX model rounded back (they are exact), shapes and
// types checked against the program. `who` names the compiler in messages ("ONNX Runtime").
oracle::CompiledRuns::Run read_run(const WorkerModel& model, const Program& p, const sym::Env& binding,
                                   const nlohmann::json& answer, const std::filesystem::path& dir,
                                   const std::string& who);

}  // namespace difftest::backends
