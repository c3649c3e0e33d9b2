// ONNX Runtime's worker, below its adapter (ort_compiler.h), its culprit search and its report: where
// the pinned package is, its levels as variants, and one long-lived Node.js worker (ort_worker.js)
// that runs a level of a program on every case, or once with ORT's log on (the transformers that
// ran and those that changed the graph, the optimized model), on the worker protocol
// (backends/kit/worker_requests.h).
#pragma once

#include <string>
#include <vector>

#include "oracle/check/case.h"
#include "oracle/check/variant.h"
#include "oracle/isolate/isolate.h"

namespace difftest::backends {

// ORT's graph optimization levels, lowest first, as the Node binding names them.
const std::vector<std::string>& ort_levels();

// A level as a variant, with transformers disabled (session config
// `optimization.disable_specified_optimizers`); UserError(Usage) naming `where` for another name.
oracle::Variant ort_level_variant(const std::string& level, const std::string& where,
                                  std::vector<std::string> disabled = {});
std::string ort_level_of(const oracle::Variant& v);
std::vector<std::string> ort_disabled_of(const oracle::Variant& v);

// Where the worker and the package are: the build tree's onnxruntime-node/ (DIFFTEST_ORT_DIR
// overrides it); the node binary is `node` on PATH (DIFFTEST_NODE overrides it).
struct OrtInstall {
  std::string dir;      // holds ort_worker.js and node_modules/onnxruntime-node
  std::string node;     // the Node.js binary
  std::string version;  // onnxruntime-node's, read from its package.json ("" when not installed)
  std::string missing;  // why it cannot run ("" when it can)
};
OrtInstall ort_install();

// Whether `p` has an ONNX model ORT can be handed and a CPU kernel for each of its nodes (the
// generator's Backend::can_take; ort_kernels.h); the model stays prepared for the check that
// follows.
bool ort_has_model(const Program& p);

// `variant` of `p` on `cases` in the worker: what an isolated child would return.
oracle::ChildOutcome ort_run(const Program& p, const oracle::Variant& variant,
                             const std::vector<const oracle::Case*>& cases, const oracle::IsolationLimits& limits);

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
