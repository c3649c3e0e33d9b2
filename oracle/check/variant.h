// What one variant of a check compiled and what it was compared with: enough to check it
// again on its own, which is what bisection and reduction do with a failure, whichever
// variant showed it (a named pipeline, a random pass order, the shape-specialized compile, or
// the cross-check of two compiles).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "compiler/pipeline/pipelines.h"
#include "oracle/check/verdict.h"

namespace difftest::oracle {

struct VariantSpec {
  pipeline::Pipeline pipeline;  // the compile under test
  // Compiled on the program with its dims fixed to the binding (`pipeline` starts with
  // SpecializeShapes).
  bool specialized = false;
  // A cross-check: this compile's results (of the symbolic program) are what `pipeline`'s are
  // compared with, each element within the sum of both bounds, instead of the reference.
  std::optional<pipeline::Pipeline> against;

  // The name a verdict gives it: "O3", "order1", "O3-specialized", "O0~O3", "O3~O3-specialized".
  std::string name() const;
};

// The named pipeline `base` on the program with its dims fixed: SpecializeShapes in front.
VariantSpec specialized_variant(const pipeline::Pipeline& base);

// The variant a verdict describes. UserError(Usage) naming `where` when a name it records is
// not a pipeline.
VariantSpec variant_of(const VariantVerdict& v, const std::string& where);

// The variant a saved verdict's JSON (verdict.json beside a reproducer, or a journal record's
// detail) describes, as variant_of; UserError(Syntax) naming `where` when a field is missing
// or of the wrong kind.
VariantVerdict variant_verdict_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace difftest::oracle
