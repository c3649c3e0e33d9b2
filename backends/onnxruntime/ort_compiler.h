// ONNX Runtime as a compiler under test (oracle/check/compiler.h). A program is exported as ONNX
// (interop/onnx, bf16 edges as f32, q4 weights through MatMulNBits) and run by ORT's CPU
// execution provider, single-threaded, in a long-lived Node.js worker (ort_worker.js, over the
// pinned onnxruntime-node package that scripts/setup.sh installs into the build tree). Its
// variants are ORT's graph optimization levels, the ladder `disabled`, `basic`, `extended`,
// `layout`, `all`; a variant may also disable named transformers (its steps), which is what
// culprit bisection searches.
#pragma once

#include <string>
#include <vector>

#include "oracle/check/compiler.h"

namespace difftest::backends {

// ORT's graph optimization levels, lowest first, as the Node binding names them.
const std::vector<std::string>& ort_levels();

// Where the worker and the package are: the build tree's onnxruntime-node/ (DIFFTEST_ORT_DIR
// overrides it); the node binary is `node` on PATH (DIFFTEST_NODE overrides it).
struct OrtInstall {
  std::string dir;      // holds ort_worker.js and node_modules/onnxruntime-node
  std::string node;     // the Node.js binary
  std::string version;  // onnxruntime-node's, read from its package.json ("" when not installed)
  std::string missing;  // why it cannot run ("" when it can)
};
OrtInstall ort_install();

const oracle::CompilerUnderTest& ort_compiler();

// One session of `variant` of `p` on `c`'s inputs with ORT's log on: the transformers that ran
// and those that modified the graph, each in the order it first did, and the optimized model
// ORT saved. `ok` false (and `error`) when the session did not run.
struct OrtSessionLog {
  bool ok = false;
  std::string error;
  std::vector<std::string> applied, modified;
  std::string optimized_model;  // serialized ModelProto
};
OrtSessionLog ort_session_log(const Program& p, const oracle::Variant& variant, const oracle::Case& c,
                              const oracle::IsolationLimits& limits);
// Reads ORT's severity-0 log into `out.applied` and `out.modified`.
void parse_transformer_log(const std::string& log, OrtSessionLog& out);

}  // namespace difftest::backends
