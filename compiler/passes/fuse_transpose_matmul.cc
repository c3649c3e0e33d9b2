#include "compiler/passes/fuse_transpose_matmul.h"

#include <unordered_map>

#include "compiler/ir/visitor.h"
#include "compiler/ops/op.h"

namespace difftest::passes {

namespace {

// True when `b` is permute_dims swapping its operand's last two axes and keeping the others.
bool swaps_last_two(const Binding& b) {
  if (!b.is_call() || b.op().name != "permute_dims") return false;
  const int rank = b.args()[0].type().rank();
  if (rank < 2) return false;
  std::vector<int64_t> axes = b.attrs().get_ints("axes");
  if (axes.empty()) {  // [] reverses the dims, which is the swap only for rank 2
    for (int i = rank - 1; i >= 0; --i) axes.push_back(i);
  }
  for (auto& a : axes) a = a < 0 ? a + rank : a;
  for (int i = 0; i < rank - 2; ++i) {
    if (axes[static_cast<size_t>(i)] != i) return false;
  }
  return axes[static_cast<size_t>(rank - 2)] == rank - 1 && axes[static_cast<size_t>(rank - 1)] == rank - 2;
}

// A matmul operand that is a swap (or a chain of them) is replaced by what the swap reads,
// each swap flipping the operand's transpose flag.
class TransposeFolder : public Mutator {
  std::vector<Value> rewrite(const Binding& b) override {
    if (swaps_last_two(b)) swap_of_[b.result().get()] = remap(b.args()[0]);
    if (!b.is_call() || b.op().name != "matmul") return keep(b);
    std::vector<Value> args = remapped(b).args();
    bool flags[2] = {b.attrs().get_bool("transpose_a"), b.attrs().get_bool("transpose_b")};
    bool fused = false;
    for (size_t i = 0; i < 2; ++i) {
      for (auto it = swap_of_.find(args[i].get()); it != swap_of_.end(); it = swap_of_.find(args[i].get())) {
        args[i] = it->second;
        flags[i] = !flags[i];
        fused = true;
      }
    }
    if (!fused) return keep(b);
    // The normalized list with two values changed is still normalized (schema order, defaults).
    std::vector<std::pair<std::string, AttrValue>> attrs = b.attrs().items();
    for (auto& [name, value] : attrs) {
      if (name == "transpose_a") value = flags[0];
      if (name == "transpose_b") value = flags[1];
    }
    return emit(Binding::call(b.results(), &b.op(), std::move(args), Attrs(std::move(attrs)), b.loc()));
  }

  std::unordered_map<const ValueNode*, Value> swap_of_;  // a swap's result -> what it swaps
};

}  // namespace

Program fuse_transpose_matmul(const Program& p) { return TransposeFolder().mutate(p); }

}  // namespace difftest::passes
