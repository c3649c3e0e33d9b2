// What culprit bisection (reduce/bisect.h) needs to know of a compiler under test's steps (one
// role of CompilerUnderTest, compiler.h): the role of a step, the program a graph step leaves
// (the reference confirms a culprit there), whom to blame when no optional step is needed, and
// whether the compiler searches for its culprit itself.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "compiler/ir/ir.h"
#include "oracle/check/stage.h"
#include "oracle/check/variant.h"

namespace difftest::oracle {

struct CheckOptions;
struct Culprit;     // reduce/bisect.h
struct FailingRun;  // reduce/bisect.h

// What culprit bisection may do with a step of a variant.
enum class StepRole {
  Required,  // always runs whatever the limit, never dropped nor blamed alone (LegalizeOps)
  Graph,     // optional; leaves a program the reference can interpret (program_after)
  Other,     // optional; what it leaves only the compiler can run (loop passes)
};

class CulpritHooks {
 public:
  virtual ~CulpritHooks() = default;
  virtual StepRole step_role(const std::string& step) const = 0;
  // The steps of `variant` in the order a bisect limit counts them: its steps, then any the
  // compiler applies after them on its own (the builtin's codegen steps, from its settings).
  virtual std::vector<std::string> numbered_steps(const Variant& variant) const { return variant.steps; }
  // The program the first `applications` optional steps of `variant` leave of `p` (required
  // steps before them included); nullopt where the compiler cannot say.
  virtual std::optional<Program> program_after(const Program& p, const Variant& variant, int applications) const = 0;
  // Whom to blame when no optional step is needed, by the stage the failure showed in.
  virtual std::string fixed_culprit(const Stage& failed_in) const = 0;
  // A compiler whose steps are not a sequence to cut (ONNX Runtime's transformers, which mask
  // each other) searches for its culprit itself; nullopt: opt-bisect over its steps
  // (reduce/bisect.h, which defines this default beside Culprit). `on_call` reports each check
  // it makes.
  virtual std::optional<Culprit> own_culprit_search(const Program& p, const FailingRun& failing,
                                                    const CheckOptions& base,
                                                    const std::function<void(int, const std::string&)>& on_call) const;
};

}  // namespace difftest::oracle
