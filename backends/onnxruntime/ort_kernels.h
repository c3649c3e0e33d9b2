// The kernels ONNX Runtime's CPU provider registers in the pinned package (cpu_kernels.tsv, written
// by list_cpu_kernels.py from the installed onnxruntime and compiled in), checked against a
// program's ONNX model: what `--backend ort` declares it runs, op by dtype, so that the generator
// draws programs ORT has kernels for instead of ending a fifth of a campaign `unsupported`.
// The verdict of a check stays ORT's own answer; the table only steers the generator.
#pragma once

#include <string>

namespace onnx {
class ModelProto;
}  // namespace onnx

namespace difftest::backends {

// "" when every node of `typed` (a model after ONNX's type inference) has a CPU kernel for its
// opset version and the types of its inputs and outputs; otherwise why not, naming the node's op,
// its opset version and the type constraint no kernel accepts ("no CPU kernel for Relu(14) with
// T = int64; its kernels take T = double, float, int32, int8").
std::string ort_missing_kernel(const ::onnx::ModelProto& typed);

// The version of onnxruntime the table was listed from (its first line).
std::string ort_kernel_table_version();

}  // namespace difftest::backends
