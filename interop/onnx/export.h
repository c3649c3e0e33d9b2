// A difftest program as an ONNX model (`difftest export FILE.ir --onnx OUT.onnx`): params become
// graph inputs (a symbolic dim a dim_param), constants initializers, and each call one or more
// nodes (interop/onnx/export_ops.cc). A dim an attribute derives from dim variables (`2*m`,
// `m//5-1`) is computed in the graph from the inputs' shapes, not fixed. A program the exporter
// cannot write is an error naming the binding and the op, never a wrong model.
#pragma once

#include <cstdint>

#include "compiler/ir/ir.h"
#include "interop/onnx/tensor_proto.h"

namespace difftest::interop {

inline constexpr int kExportOpset = 17;

struct ExportOptions {
  // Chooses among equivalent forms of a decomposition (the operand order of a commutative op,
  // x*x or Pow(x, 2), ...): the forms are what an ONNX compiler's pattern matchers see.
  uint64_t form_seed = 0;
  // How a dequantize feeding a matmul's weights is written: ORT's MatMulNBits where the format
  // and shapes allow (else unpacked), or always unpacked then MatMul.
  enum class Q4Form { MatMulNBits, Dequantize };
  Q4Form q4_form = Q4Form::MatMulNBits;
  // bf16 inputs and outputs as f32 at the graph's edges (cast to and from bf16 inside), for
  // runtimes that take no bf16 tensors (ONNX Runtime's CPU provider); the input is named
  // `<param>_f32`. bf16 values are exact in f32, so the model computes the same.
  bool bf16_edges_as_f32 = false;
};

// Unsupported (tensor_proto.h) naming the binding and op for what it cannot write; the model it
// returns passes onnx::checker::check_model.
::onnx::ModelProto export_program(const Program& p, const ExportOptions& options = {});

}  // namespace difftest::interop
