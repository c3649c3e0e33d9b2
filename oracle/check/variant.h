// The identity of one variant of a check: what the compiler under test compiled (a named
// pipeline, a custom pass list, a random pass order, or the shape-specialized compile of a named
// pipeline) and, for a cross-check, the compile whose results it was compared with. Enough to
// check it again on its own, which is what bisection and reduction do with a failure, whichever
// variant showed it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "compiler/pipeline/pipelines.h"

namespace difftest::oracle {

enum class VariantKind {
  Named,        // a pipeline of compiler/pipeline/pipelines.cc, by name
  Custom,       // a pass list the user gave (--passes, a corpus entry's `# passes:`)
  RandomOrder,  // a random valid pass order (check/strategies.h), "order1", "order2", ...
  Specialized,  // a named pipeline on the program with its dims fixed: SpecializeShapes first
  Reference,    // no compile: where the reference itself is invalid (an invalid_program verdict)
};

// One compile of the program.
struct Variant {
  VariantKind kind = VariantKind::Named;
  pipeline::Pipeline pipeline;  // what is compiled; its name is the variant's

  const std::string& name() const { return pipeline.name; }
  // Custom lists and random orders are recorded with their passes (a name does not say them).
  bool records_passes() const { return kind == VariantKind::Custom || kind == VariantKind::RandomOrder; }
};

// The named pipeline `name`; UserError(Usage) naming `where` when there is none.
Variant named_variant(const std::string& name, const std::string& where);
// The named pipeline `base` on the program with its dims fixed: SpecializeShapes in front.
Variant specialized_variant(const pipeline::Pipeline& base);
Variant custom_variant(pipeline::Pipeline pipe);
// The "variant" of an invalid_program verdict, named "reference".
Variant reference_variant();
// The variant of a pipeline whose origin is not known (a recorded one, a bisection probe): a
// named pipeline when `pipe` is one exactly (same name, passes and settings), a random order
// when its name is one ("order2"), else a custom list.
Variant variant_of_pipeline(const pipeline::Pipeline& pipe);

struct VariantId {
  Variant tested;
  // A cross-check: this compile's results (of the symbolic program) are what `tested`'s are
  // compared with, each element within the sum of both bounds, instead of the reference.
  std::optional<Variant> against;

  VariantId() = default;
  VariantId(Variant tested, std::optional<Variant> against = std::nullopt)  // NOLINT: a variant is its id
      : tested(std::move(tested)), against(std::move(against)) {}

  // The name a verdict gives it: "O3", "order1", "O3-specialized", "O0~O3", "O3~O3-specialized".
  std::string name() const;
  bool specialized() const { return tested.kind == VariantKind::Specialized; }
  // What a failure signature names: the name, or "custom" for a recorded pass list (a random
  // order's name says nothing about the bug).
  std::string signature_place() const;

  // The fields of a verdict's JSON that say the variant: "pipeline" (the name), and as
  // needed "passes", "llvm_opt_level", "fma_contraction", "specialized", "against".
  void write_json(nlohmann::json& j) const;
  // The variant such fields describe. Older records have no "specialized"/"against": the names
  // say it ("O0~O3", "O3-specialized"). UserError(Syntax) naming `where` when a field is missing
  // or of the wrong kind, UserError(Usage) when a recorded name is not a pipeline or pass.
  static VariantId from_json(const nlohmann::json& j, const std::string& where);
};

}  // namespace difftest::oracle
