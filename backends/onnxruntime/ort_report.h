// What a reduced ONNX Runtime failure leaves for its maintainers: report.md in the shape of
// ORT's bug template (the issue, the reproducer, versions, execution provider, the level, the
// culprit transformers and the optimized graphs with and without them), and two self-checking
// reproducers that need nothing of difftest: repro.py (`onnx`-free: numpy and onnxruntime only)
// and repro.js (onnxruntime-node). Each embeds the model, the failing inputs, the reference
// values and the difference allowed per element, runs the failing level and `disabled` (and the
// level with the culprits disabled), and says PASS or FAIL by itself.
#pragma once

#include <string>

#include "oracle/reduce/reduce_failure.h"

namespace difftest::backends {

void write_ort_report(const std::string& dir, const oracle::ReductionReport& r, const oracle::CheckOptions& options);

}  // namespace difftest::backends
