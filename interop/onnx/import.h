// An ONNX model as a difftest program (`difftest import`): graph inputs become params,
// initializers and Constant nodes constants, `dim_param`s dim variables with the ranges given,
// and each node one or more calls (interop/onnx/import_ops.cc, one translator per op type).
#pragma once

#include <map>
#include <string>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/ir.h"
#include "interop/onnx/tensor_proto.h"

namespace difftest::interop {

// The model metadata key under which difftest's exporter records each dim variable's range
// ("n=1..64,m=10..100"); the importer takes them unless --dim gives others.
inline constexpr const char* kDimRangesKey = "difftest.dim_ranges";
// Graph inputs that only carry a dim variable as their shape (u8[n], contents unused): the
// exporter adds one for a dim variable no param has, so the graph can compute it; the importer
// reads the dim from it and makes no param of it.
inline constexpr const char* kExtentInputsKey = "difftest.extent_inputs";
// ONNX Runtime's contrib ops (MatMulNBits) live in this domain, at version 1.
inline constexpr const char* kMicrosoftDomain = "com.microsoft";
std::map<std::string, sym::Range> recorded_dim_ranges(const ::onnx::ModelProto& model, const std::string& where);

struct ImportOptions {
  std::map<std::string, sym::Range> dims;  // a range for every dim_param (`--dim n=1..512`)
  // Graph inputs whose values are known (a node test's data): constants, not params, so that
  // an op taking its shape or axes from an input can be imported.
  std::map<std::string, Tensor> known_inputs;
};

// Unsupported unless every graph input and output is a tensor without a dim of size 0.
void require_tensors(const ::onnx::ModelProto& model, const std::string& where);

// `where` names the model in messages (its file).
Program import_model(const ::onnx::ModelProto& model, const ImportOptions& options, const std::string& where);

// The graph's inputs that are not initializers, in order: their ONNX names and their names in
// the imported program (sanitized: [A-Za-z0-9_]+, unique) — how a node test's input_<i>.pb is fed.
struct ImportedInput {
  std::string onnx_name, name;
};
std::vector<ImportedInput> imported_inputs(const ::onnx::ModelProto& model);

// The ONNX op types the importer translates.
std::vector<std::string> importable_op_types();

}  // namespace difftest::interop
