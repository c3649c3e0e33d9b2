// ONNX files and tensors in difftest's terms: a model read from a file with errors that name it,
// TensorProto <-> Tensor in every dtype both have, and the ONNX dtype names for messages.
// protobuf and the ONNX library stay inside interop/onnx/: the compiler core and the reference
// never see them.
#pragma once

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>

#include "compiler/support/diagnostics.h"
#include "compiler/types/dtype.h"
#include "compiler/tensor/tensor.h"

namespace difftest::interop {

// What the importer (or a tensor reader) cannot take: a UserError whose message names the node (its index, name and
// op type), the opset and the attribute or dtype; `reason` is the short form a conformance
// report groups by ("op Loop", "attribute Softmax.axis < 13", "dtype STRING").
class Unsupported : public UserError {
 public:
  Unsupported(std::string reason, std::string message)
      : UserError(ErrorKind::UnknownOp, std::move(message)), reason_(std::move(reason)) {}
  const std::string& reason() const { return reason_; }

 private:
  std::string reason_;
};

// The IR dtype of an ONNX TensorProto.DataType, nullopt for one the IR lacks (int16, uint16,
// uint64, string, complex, ...).
std::optional<DType> dtype_from_onnx(int32_t onnx_type);
int32_t onnx_dtype(DType dtype);
// "FLOAT16", "STRING", ... (TensorProto.DataType's names).
std::string onnx_dtype_name(int32_t onnx_type);

// UserError(Io) when `path` cannot be read, (Syntax) when it is not a serialized ModelProto.
::onnx::ModelProto read_model(const std::string& path);
// A serialized TensorProto (a node test's input_0.pb).
::onnx::TensorProto read_tensor_proto(const std::string& path);

// The tensor a TensorProto holds (raw_data or the typed fields); UserError naming `where` for a
// dtype the IR lacks, external data, or a size that does not match the dims.
Tensor tensor_from_proto(const ::onnx::TensorProto& t, const std::string& where);
// raw_data, little-endian, as ONNX writes it.
::onnx::TensorProto tensor_to_proto(const Tensor& t, const std::string& name);

}  // namespace difftest::interop
