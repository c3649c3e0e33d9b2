#include "compiler/passes/schedule/schedule_reduction.h"

#include "compiler/faults/faults.h"
#include "compiler/loop/visitor.h"
#include "compiler/passes/schedule/common.h"

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

// Fault schedule-reduction-tail: the scalar remainder loop (`kt`, split_reduction_lanes) stops
// one element short, as vector-remainder bugs that compute the tail as K - main - 1 do. When
// the lanes divide K the loop runs zero times either way (a negative extent: `kt < end` fails).
class ShortenTail : public loop::Mutator {
 public:
  explicit ShortenTail(std::string var) : var_(std::move(var)) {}
  using loop::Mutator::mutate;
  Stmt mutate(const Stmt& s) override {
    if (s.kind() != loop::StmtKind::For || s.node().var.node().name != var_) return mutate_children(s);
    const loop::StmtNode& l = s.node();
    return Stmt::for_loop(l.var, l.min, sub(l.extent, 1), l.for_kind, l.body[0]);
  }

 private:
  std::string var_;
};

// The dtype of the load under the fold's casts (the operand's own dtype).
DType operand_dtype(Expr term) {
  while (term.kind() == ExprKind::Cast) term = term.node().operands[0];
  return term.dtype();
}

// Fault reduction-lane-partials-narrow: every value stored into the lanes' partial sums (`part`,
// split_reduction_lanes) is rounded to the operand dtype first, though the buffer is as wide as
// the declared accumulator: partial sums kept in half precision.
class NarrowPartials : public loop::Mutator {
 public:
  NarrowPartials(std::string part, DType narrow) : part_(std::move(part)), narrow_(narrow) {}
  using loop::Mutator::mutate;
  Stmt mutate(const Stmt& s) override {
    if (s.kind() != loop::StmtKind::Store || s.node().buffer.name() != part_) return mutate_children(s);
    const Expr& v = s.node().value;
    return Stmt::store(s.node().buffer, s.node().index, loop::cast(v.dtype(), loop::cast(narrow_, v)));
  }

 private:
  std::string part_;
  DType narrow_;
};

std::optional<Stmt> rewrite_reduction_nest(const Stmt& s, const target::Target& target) {
  const auto n = match_reduction(s);
  if (!n) return std::nullopt;
  const auto fold = match_fold(*n);
  if (!fold || !is_contiguous_operand(fold->term, n->k.node().name)) return std::nullopt;
  const int64_t lanes = vector_lanes(target, n->acc.dtype());
  if (is_const(n->k_extent) && n->k_extent.node().int_value < lanes) return std::nullopt;
  auto split = split_reduction_lanes(*n, *fold, lanes);
  if (!split) return std::nullopt;
  if (faults::enabled(kScheduleReductionTail)) split = ShortenTail(n->k.node().name + "t").mutate(*split);
  const DType narrow = operand_dtype(fold->term);
  if (is_float(narrow) && dtype_bits(narrow) < dtype_bits(n->acc.dtype()) &&
      faults::enabled(kReductionLanePartialsNarrow)) {
    split = NarrowPartials(n->acc.name() + "l", narrow).mutate(*split);
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

loop::Module schedule_reduction(const loop::Module& m) {
  return apply_rule(m, [&](const Stmt& s) { return rewrite_reduction_nest(s, *m.target); });
}

}  // namespace difftest::passes
