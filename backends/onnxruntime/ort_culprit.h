// The culprit of an ONNX Runtime failure at an optimization level: the smallest set of graph
// transformers whose disabling (session config `optimization.disable_specified_optimizers`)
// makes the level pass. Fusions mask each other — disabling one lets another fire on the same
// pattern — so the search collects every transformer that modified the graph (from ORT's own
// log), disables them all, looks again for transformers that now modify it, and repeats until
// the level passes; then it drops the names one at a time while it still passes. Only names
// ORT logged are ever used: ORT ignores an unknown name silently.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "oracle/reduce/bisect.h"

namespace difftest::backends {

// nullopt when the failing variant is not an ONNX Runtime level.
std::optional<oracle::Culprit> find_culprit_transformers(const Program& p, const oracle::FailingRun& failing,
                                                         const oracle::CheckOptions& base,
                                                         const oracle::BisectProgress& on_call);

// "MatMulNBits x3, Add x2, ..." of a serialized model's graph, most frequent first.
std::string op_histogram(const std::string& model_bytes);

}  // namespace difftest::backends
