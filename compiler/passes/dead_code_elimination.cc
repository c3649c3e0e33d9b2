#include "compiler/passes/dead_code_elimination.h"

#include <unordered_set>

namespace difftest::passes {

Program dead_code_elimination(const Program& p) {
  std::unordered_set<const ValueNode*> used;
  for (const auto& o : p.outputs()) used.insert(o.get());
  const auto& bindings = p.bindings();
  std::vector<bool> keep(bindings.size(), false);
  // Backwards, so a binding's operands are marked before the bindings that define them.
  for (size_t i = bindings.size(); i-- > 0;) {
    const Binding& b = bindings[i];
    bool live = b.kind() == BindingKind::Param;
    for (const auto& r : b.results()) live = live || used.count(r.get());
    if (!live) continue;
    keep[i] = true;
    for (const auto& a : b.args()) used.insert(a.get());
  }
  std::vector<Binding> kept;
  for (size_t i = 0; i < bindings.size(); ++i) {
    if (keep[i]) kept.push_back(bindings[i]);
  }
  if (kept.size() == bindings.size()) return p;
  return Program::make(p.name(), p.dims(), std::move(kept), p.outputs(), p.loc());
}

}  // namespace difftest::passes
