#include "compiler/passes/schedule/schedule_gemv.h"

#include <algorithm>

#include "compiler/passes/schedule/common.h"

namespace difftest::passes {

namespace {

using loop::Expr;
using loop::ForKind;
using loop::Stmt;
using namespace schedule;

// A product of two factors that both read along K, at least one load of which depends on the
// output column too (the weight), and every load that moves with k steps by k or k // c.
bool is_gemv_term(const Expr& term, const std::string& j, const std::string& k) {
  if (term.kind() != loop::ExprKind::Binary || term.node().bin != loop::BinOp::Mul) return false;
  if (!uses_var(term.node().operands[0], k) || !uses_var(term.node().operands[1], k)) return false;
  bool weight = false;
  for (const auto& load : loads_in(term)) {
    const Expr& index = load.node().operands[0];
    if (!uses_var(index, k)) continue;
    if (!unit_stride(index, k)) return false;
    weight = weight || uses_var(index, j);
  }
  return weight;
}

constexpr int64_t kChainedLanes = 32;

// The packing factor of the weight (the load whose index moves with both j and k), or 1.
int64_t weight_packing(const Expr& term, const std::string& j, const std::string& k) {
  for (const auto& load : loads_in(term)) {
    const Expr& index = load.node().operands[0];
    if (uses_var(index, j) && uses_var(index, k)) return packing_factor(index, k);
  }
  return 1;
}

std::optional<Stmt> rewrite_gemv_nest(const Stmt& s, const target::Target& target) {
  const auto n = match_reduction(s);
  if (!n || n->spatial.empty()) return std::nullopt;
  for (size_t d = 0; d + 1 < n->spatial.size(); ++d) {
    if (!n->spatial[d].node().extent.is_int_imm(1)) return std::nullopt;
  }
  const auto fold = match_fold(*n);
  const Stmt& lj = n->spatial.back();
  if (!fold || fold->op != loop::BinOp::Add || !is_gemv_term(fold->term, lj.node().var.node().name, n->k.node().name)) {
    return std::nullopt;
  }
  // Packed weights (k // c picks the word): c lanes decode one word, so its load is one per
  // vector; otherwise full vectors. Four chains of partial sums hide the add latency.
  const int64_t packing = weight_packing(fold->term, lj.node().var.node().name, n->k.node().name);
  const int64_t lanes = packing >= 4 && packing <= 64 ? packing : vector_lanes(target, n->acc.dtype());
  int64_t chains = std::max<int64_t>(1, kChainedLanes / lanes);
  if (is_const(n->k_extent)) {
    if (n->k_extent.node().int_value < lanes) return std::nullopt;
    chains = std::min(chains, n->k_extent.node().int_value / lanes);
  }
  const auto split = split_reduction_lanes(*n, *fold, lanes, chains);
  if (!split) return std::nullopt;
  std::vector<Stmt> rows(n->spatial.begin(), n->spatial.end() - 1);
  return rewrap(rows, Stmt::for_loop(lj.node().var, 0, lj.node().extent, ForKind::Parallel, *split));
}

}  // namespace

loop::Module schedule_gemv(const loop::Module& m) {
  return apply_rule(m, [&](const Stmt& s) { return rewrite_gemv_nest(s, *m.target); });
}

}  // namespace difftest::passes
