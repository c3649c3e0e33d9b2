#include "compiler/passes/fuse_add_rms_norm.h"

#include <unordered_map>

#include "compiler/ops/op.h"
#include "compiler/passes/fuse_ops.h"

namespace difftest::passes {

Program fuse_add_rms_norm(const Program& p) {
  std::vector<Binding> bindings = p.bindings();
  bool changed = false;
  for (size_t i = 0; i < bindings.size(); ++i) {
    const Binding& norm = bindings[i];
    if (!norm.is_call() || norm.op().name != "rms_norm" || norm.group() >= 0) continue;
    const ValueNode* x = norm.args().front().get();
    for (size_t j = 0; j < i; ++j) {
      const Binding& add = bindings[j];
      if (!add.is_call() || add.results().front().get() != x) continue;
      if (add.op().name == "add" && add.group() < 0 && group_pair(bindings, j, i)) changed = true;
      break;
    }
  }
  return changed ? with_renumbered_groups(p, std::move(bindings)) : p;
}

}  // namespace difftest::passes
