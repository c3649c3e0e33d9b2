// ONNX Runtime as a compiler under test (oracle/check/compiler.h). A program is exported as ONNX
// (interop/onnx, bf16 edges as f32, q4 weights through MatMulNBits) and run by ORT's CPU
// execution provider, single-threaded, in a long-lived Node.js worker (ort_session.h). Its
// variants are ORT's graph optimization levels, the ladder `disabled`, `basic`, `extended`,
// `layout`, `all`; a variant may also disable named transformers, which is what its culprit
// search (ort_culprit.h) looks for.
#pragma once

#include "oracle/check/compiler.h"

namespace difftest::backends {

const oracle::CompilerUnderTest& ort_compiler();

}  // namespace difftest::backends
