#include "compiler/passes/dead_code_elimination.h"

#include <unordered_set>

#include "compiler/ir/visitor.h"

namespace difftest::passes {

namespace {

// Liveness first, backwards, so a binding's operands are marked before the bindings that
// define them; the rebuild then drops what is dead (its results are unused by construction).
class DeadBindingDropper : public Mutator {
 public:
  explicit DeadBindingDropper(const Program& p) {
    for (const auto& o : p.outputs()) used_.insert(o.get());
    const auto& bindings = p.bindings();
    for (size_t i = bindings.size(); i-- > 0;) {
      const Binding& b = bindings[i];
      bool live = b.kind() == BindingKind::Param;
      for (const auto& r : b.results()) live = live || used_.count(r.get());
      if (!live) continue;
      for (const auto& a : b.args()) used_.insert(a.get());
    }
  }

 private:
  std::vector<Value> rewrite(const Binding& b) override {
    bool live = b.kind() == BindingKind::Param;
    for (const auto& r : b.results()) live = live || used_.count(r.get());
    return live ? keep(b) : b.results();
  }

  std::unordered_set<const ValueNode*> used_;
};

}  // namespace

Program dead_code_elimination(const Program& p) { return DeadBindingDropper(p).mutate(p); }

}  // namespace difftest::passes
