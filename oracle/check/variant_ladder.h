// A compiler under test's variants (one role of CompilerUnderTest, compiler.h): the ladder a
// check compiles, the shape-specialized compile of one, the variant a record or a corpus entry
// names, a list of steps the user spells out, and the baseline that applies no optimization.
// Records resolve their variants through it (VariantId::from_json and the records above it).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "oracle/check/variant.h"

namespace difftest::oracle {

struct CheckOptions;

class VariantLadder {
 public:
  virtual ~VariantLadder() = default;
  // The variants a check of `p` compiles, in order: `options`' named pipelines, custom pass
  // lists and random orders. UserError(Usage) for a name it does not know.
  virtual std::vector<Variant> variants(const Program& p, const CheckOptions& options) const = 0;
  // The compile of `symbolic` on the program with its dims fixed to one case's binding, which
  // the check cross-checks with the symbolic compile; nullopt when the compiler has none.
  virtual std::optional<Variant> specialized(const Variant& symbolic) const = 0;
  // The named variant `name` (a record's, a corpus entry's): UserError(Usage) naming `where`
  // and the names it knows when it has none.
  virtual Variant named(const std::string& name, const std::string& where) const = 0;
  // The variant a record spells out (a custom list or a random order): its name, its steps and
  // the record's JSON, from which the compiler reads its settings. UserError naming `where` for
  // a step it does not know or a setting of the wrong kind.
  virtual Variant recorded(const std::string& name, std::vector<std::string> steps, const nlohmann::json& record,
                           const std::string& where) const = 0;
  // The steps of a list the user spells out (a corpus entry's `# passes: a,b,c`), checked:
  // UserError(Usage) naming `where` for a step it does not know or an order it refuses. Only
  // the builtin takes such lists; another compiler refuses any.
  virtual std::vector<std::string> step_list(const std::string& text, const std::string& where) const;
  // The variant that applies none of the compiler's optimizations (ONNX Runtime: `disabled`);
  // nullopt when it has none to hold (the builtin's O0 is a pipeline like the others). A
  // failure of another variant is an optimizer finding only while the baseline runs right, so
  // a reduction that starts with the baseline `ok` keeps it `ok`.
  virtual std::optional<Variant> baseline() const { return std::nullopt; }
};

}  // namespace difftest::oracle
