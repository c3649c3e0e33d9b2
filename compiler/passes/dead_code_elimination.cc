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
      if (!live(bindings[i])) continue;
      for (const auto& a : bindings[i].args()) used_.insert(a.get());
    }
  }

 private:
  std::vector<Value> rewrite(const Binding& b) override { return live(b) ? keep(b) : b.results(); }

  bool live(const Binding& b) const {
    if (b.kind() == BindingKind::Param) return true;
    for (const auto& r : b.results()) {
      if (used_.count(r.get())) return true;
    }
    return false;
  }

  std::unordered_set<const ValueNode*> used_;
};

}  // namespace

Program dead_code_elimination(const Program& p) { return DeadBindingDropper(p).mutate(p); }

}  // namespace difftest::passes
