// The identity of one variant of a check: what the compiler under test compiled (a named
// variant such as a pipeline, a custom list of steps, a random order, or the shape-specialized
// compile of a named variant) and, for a cross-check, the compile whose results it was compared
// with. Enough to check it again on its own, which is what bisection and reduction do with a
// failure, whichever variant showed it. A variant says what it compiles in terms every compiler
// shares (an ordered list of steps, settings, a bisection limit); the compiler under test
// (compiler.h) gives them their meaning.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compiler/types/dtype.h"

namespace difftest::oracle {

class VariantLadder;

enum class VariantKind {
  Named,        // one of the compiler's own variants, by name (the builtin's pipelines O0..O3)
  Custom,       // a list of steps the user gave (--passes, a corpus entry's `# passes:`)
  RandomOrder,  // a random valid order of steps (backends/builtin/random_orders.h), "order1", "order2", ...
  Specialized,  // a named variant on the program with its dims fixed (the builtin: SpecializeShapes first)
  Reference,    // no compile: where the reference itself is invalid (an invalid_program verdict)
};

// One compile of the program.
struct Variant {
  VariantKind kind = VariantKind::Named;
  std::string label;               // its name in verdicts: "O3", "custom", "order1", "O3-specialized"
  std::vector<std::string> steps;  // what it runs, in order (the builtin's passes); bisection searches these
  // The rest of what decides the compile, in the compiler's own terms, recorded as they are
  // (the builtin: {"llvm_opt_level": 3, "fma_contraction": true}).
  nlohmann::json settings = nlohmann::json::object();
  // Culprit bisection (LLVM's opt-bisect): run only the first `limit` optional step
  // applications; -1: all.
  int limit = -1;
  // A level that computes the program's floats in a narrower dtype (an inference precision of
  // bf16): its outputs are judged against the program as tolerance/precision.h narrows it.
  std::optional<DType> precision = std::nullopt;

  const std::string& name() const { return label; }
  // Custom lists and random orders are recorded with their steps (a name does not say them).
  bool records_steps() const { return kind == VariantKind::Custom || kind == VariantKind::RandomOrder; }
  // The same compile with only its first `applications` optional steps applied.
  Variant limited(int applications) const;
  // The same variant (name, kind, settings) running `list` instead: bisection's shrunk lists.
  Variant with_steps(std::vector<std::string> list) const;
};

// The "variant" of an invalid_program verdict, named "reference".
Variant reference_variant();

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
  // What a failure signature names: the name, or "custom" for a recorded list of steps (a
  // random order's name says nothing about the bug).
  std::string signature_place() const;

  // The fields of a verdict's JSON that say the variant: "pipeline" (the name), and as
  // needed "passes" (the steps) with the settings' fields ("llvm_opt_level", "fma_contraction"),
  // "specialized", "against".
  void write_json(nlohmann::json& j) const;
  // The variant such fields describe, its names resolved by `compiler` (the one whose check
  // recorded them). Older records have no "specialized"/"against": the names say it ("O0~O3",
  // "O3-specialized"). UserError(Syntax) naming `where` when a field is missing or of the wrong
  // kind, UserError(Usage) when a recorded name is not one of the compiler's variants or steps.
  static VariantId from_json(const nlohmann::json& j, const std::string& where, const VariantLadder& compiler);
};

}  // namespace difftest::oracle
