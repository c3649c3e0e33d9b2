#include "compiler/passes/schedule/schedule_reduction.h"

#include "compiler/faults/faults.h"
#include "compiler/loop/visitor.h"
#include "compiler/passes/schedule/common.h"
#include "compiler/passes/schedule/schedule_reduction_faults.h"

namespace difftest::passes {

// Test faults of this file (docs/faults.md): off unless switched on.

const faults::Fault kReductionLanePartialsNarrow({
    .name = "reduction-lane-partials-narrow",
    .pass = "ScheduleReduction",
    .description = "ScheduleReduction rounds each vector lane's partial sum to the operand dtype (f16, bf16, or f32 "
        "under an f64 accumulator) at every step (the remainder loop and the combine of the lanes too) while the "
        "declared accumulator is wider: partial sums kept in half precision where float accumulation was declared",
    .models = "half-precision partial sums where float accumulation was declared (pytorch/pytorch#2391)",
    .held_out = true,
});

const faults::Fault kScheduleReductionTail({
    .name = "schedule-reduction-tail",
    .pass = "ScheduleReduction",
    .description = "ScheduleReduction's serial remainder loop stops one element short, so a contiguous "
        "sum/mean/max/min over K drops its last element when the vector lanes do not divide K: a vector-remainder "
        "off-by-one",
    .models = "a vector-remainder off-by-one",
});

namespace {

using loop::Expr;
using loop::ExprKind;
using loop::ForKind;
using loop::Stmt;
using namespace schedule;

// The fold's operand: one load (under any casts) that moves with k by unit steps.
bool is_contiguous_operand(Expr term, const std::string& k) {
  while (term.kind() == ExprKind::Cast) term = term.node().operands[0];
  if (term.kind() != ExprKind::Load) return false;
  const Expr& index = term.node().operands[0];
  return uses_var(index, k) && unit_stride(index, k);
}

// The dtype of the load under the fold's casts (the operand's own dtype).
DType operand_dtype(Expr term) {
  while (term.kind() == ExprKind::Cast) term = term.node().operands[0];
  return term.dtype();
}

std::optional<Stmt> rewrite_reduction_nest(const Stmt& s, const target::Target& target, const CompileContext& compile) {
  const auto n = match_reduction(s);
  if (!n) return std::nullopt;
  const auto fold = match_fold(*n);
  if (!fold || !is_contiguous_operand(fold->term, n->k.node().name)) return std::nullopt;
  const int64_t lanes = vector_lanes(target, n->acc.dtype());
  if (is_const(n->k_extent) && n->k_extent.node().int_value < lanes) return std::nullopt;
  auto split = split_reduction_lanes(*n, *fold, lanes);
  if (!split) return std::nullopt;
  if (compile.fault(kScheduleReductionTail)) split = with_tail_one_short(*split, n->k.node().name + "t");
  const DType narrow = operand_dtype(fold->term);
  if (is_float(narrow) && dtype_bits(narrow) < dtype_bits(n->acc.dtype()) &&
      compile.fault(kReductionLanePartialsNarrow)) {
    split = with_partials_rounded(*split, n->acc.name() + "l", narrow);
  }
  std::vector<Stmt> loops = n->spatial;
  for (auto& l : loops) {
    if (!l.node().extent.is_int_imm(1)) {
      l = with_kind(l, ForKind::Parallel);
      break;
    }
  }
  return rewrap(loops, *split);
}

}  // namespace

loop::Module schedule_reduction(const loop::Module& m, const CompileContext& compile) {
  return apply_rule(m, [&](const Stmt& s) { return rewrite_reduction_nest(s, *m.target, compile); });
}

}  // namespace difftest::passes
