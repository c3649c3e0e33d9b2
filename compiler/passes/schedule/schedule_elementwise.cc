#include "compiler/passes/schedule/schedule_elementwise.h"

#include "compiler/loop/visitor.h"
#include "compiler/faults/faults.h"
#include "compiler/passes/schedule/common.h"

namespace difftest::passes {

// Test faults of this file (docs/faults.md): off unless switched on.

const faults::Fault kSplitNoGuardSymbolic({
    .name = "split-no-guard-symbolic",
    .pass = "ScheduleElementwise",
    .description = "ScheduleElementwise splits a symbolic extent into vectors without the tail loop, assuming the "
        "lanes (16 for f32) divide it, so the last extent % 16 elements are never written: a loop split that trusts "
        "a divisibility hint for a symbolic extent",
    .models = "a loop split that trusts a divisibility hint for a symbolic extent",
});


namespace {

using loop::Expr;
using loop::ExprKind;
using loop::ForKind;
using loop::Stmt;
using loop::StmtKind;
using namespace schedule;

// Below this many elements a constant-shape nest stays serial: the fork costs more than it saves.
constexpr int64_t kParallelMinElements = 4096;

// Replaces every subexpression structurally equal to `target` by `with`.
class ReplaceSubexpr : public loop::Mutator {
 public:
  ReplaceSubexpr(Expr target, Expr with) : target_(std::move(target)), with_(std::move(with)) {}
  Expr mutate(const Expr& e) override { return structurally_equal(e, target_) ? with_ : mutate_children(e); }
  using Mutator::mutate;

 private:
  Expr target_, with_;
};

bool uses_any(const Expr& e, const std::vector<Expr>& vars) {
  for (const auto& v : vars) {
    if (uses_var(e, v.node().name)) return true;
  }
  return false;
}

std::optional<Stmt> rewrite_elementwise_nest(const Stmt& s, const target::Target& target, const CompileContext& compile) {
  std::vector<Expr> vars, extents;
  Stmt cur = s;
  while (cur.kind() == StmtKind::For && cur.node().for_kind == ForKind::Serial && cur.node().min.is_int_imm(0)) {
    vars.push_back(cur.node().var);
    extents.push_back(cur.node().extent);
    cur = cur.node().body[0];
  }
  if (vars.empty() || cur.kind() != StmtKind::Store) return std::nullopt;
  const loop::Buffer& out = cur.node().buffer;
  Expr index = cur.node().index, value = cur.node().value;
  if (uses_buffer(value, out)) return std::nullopt;
  for (const auto& e : extents) {
    if (uses_any(e, vars)) return std::nullopt;
  }
  // The row-major flat index exactly as LegalizeOps writes it (lowering.h flat_index): a
  // distinct element per iteration, so iterations may run in any order.
  Expr flat = vars[0];
  for (size_t d = 1; d < vars.size(); ++d) flat = flat * extents[d] + vars[d];
  if (!structurally_equal(index, flat)) return std::nullopt;

  bool flattened = false;
  if (vars.size() > 1) {
    const Expr f = Expr::var(vars[0].node().name + "f");
    const Expr fused = ReplaceSubexpr(index, f).mutate(value);
    if (!uses_any(fused, vars)) {
      Expr total = 1;
      for (const auto& e : extents) total = mul(total, e);
      vars = {f};
      extents = {total};
      index = f;
      value = fused;
      flattened = true;
    }
  }
  Expr elements = 1;
  for (const auto& e : extents) elements = mul(elements, e);
  const bool parallel = !is_const(elements) || elements.node().int_value >= kParallelMinElements;
  const int64_t lanes = vector_lanes(target, value.dtype());
  const Expr& inner = extents.back();
  const bool split = !is_const(inner) || inner.node().int_value >= lanes;
  if (!flattened && !split && !parallel) return std::nullopt;

  const std::string inner_name = vars.back().node().name;
  const auto body = [&](const Expr& at) {
    const Substitution sub{{{inner_name, at}}, {}, {}, {}};
    return Stmt::store(out, substitute(index, sub), substitute(value, sub));
  };
  const ForKind inner_outer_kind = vars.size() == 1 && parallel ? ForKind::Parallel : ForKind::Serial;
  const Tail tail = compile.fault(kSplitNoGuardSymbolic) ? Tail::DroppedWhenSymbolic : Tail::Kept;
  Stmt nest = split ? split_vectorized(inner_name, inner, lanes, inner_outer_kind, body, tail)
                    : Stmt::for_loop(vars.back(), 0, inner, inner_outer_kind, body(vars.back()));
  for (size_t d = vars.size() - 1; d-- > 0;) {
    nest = Stmt::for_loop(vars[d], 0, extents[d], d == 0 && parallel ? ForKind::Parallel : ForKind::Serial, nest);
  }
  return nest;
}

}  // namespace

loop::Module schedule_elementwise(const loop::Module& m, const CompileContext& compile) {
  return apply_rule(m, [&](const Stmt& s) { return rewrite_elementwise_nest(s, *m.target, compile); });
}

}  // namespace difftest::passes
