#include "compiler/passes/fuse_dequantize_matmul.h"

#include "compiler/ops/op.h"
#include "compiler/passes/fuse_ops.h"

namespace difftest::passes {

Program fuse_dequantize_matmul(const Program& p) {
  std::vector<Binding> bindings = p.bindings();
  bool changed = false;
  for (size_t i = 0; i < bindings.size(); ++i) {
    const Binding& mm = bindings[i];
    if (!mm.is_call() || mm.group() >= 0 || mm.args().size() < 2) continue;
    if (mm.op().name != "matmul" && mm.op().name != "linear") continue;
    const ValueNode* w = mm.args()[1].get();
    if (mm.args()[0].get() == w) continue;  // the dequantized value is also the activation
    for (size_t j = 0; j < i; ++j) {
      const Binding& dq = bindings[j];
      if (!dq.is_call() || dq.results().front().get() != w) continue;
      if (dq.op().name == "dequantize" && dq.group() < 0 && group_pair(bindings, j, i)) changed = true;
      break;
    }
  }
  return changed ? with_renumbered_groups(p, std::move(bindings)) : p;
}

}  // namespace difftest::passes
