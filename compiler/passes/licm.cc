#include "compiler/loop/analysis.h"
#include "compiler/passes/licm.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "compiler/faults/faults.h"
#include "compiler/loop/printer.h"
#include "compiler/loop/visitor.h"
#include "compiler/passes/loop_simplify.h"

namespace difftest::passes {

// Test faults of this file (docs/faults.md): off unless switched on.

const faults::Fault kLicmHoistsDependentLoad({
    .name = "licm-hoists-dependent-load",
    .pass = "LICM",
    .description = "LICM leaves the loop's own stores out of its alias check and hoists a load of a buffer the loop "
        "writes (the partial-sum combine of a scheduled reduction reads back part[0] on every iteration), so every "
        "iteration sees the value from before the loop: loop-invariant code motion across a loop-carried dependence",
    .models = "loop-invariant code motion across a loop-carried dependence",
});

namespace {

using loop::Buffer;
using loop::Expr;
using loop::ExprKind;
using loop::Stmt;
using loop::StmtKind;

class Hoister : public loop::Mutator {
 public:
  Hoister(const loop::PrimFunc& f, bool own_stores_ignored) : own_stores_ignored_(own_stores_ignored) {
    const loop::Footprint whole = loop::footprint(f.body);
    taken_ = whole.buffers();
    for (const auto& p : f.params) taken_.insert(p.name());
    scalars_ = whole.local_scalars;
  }

  using loop::Mutator::mutate;

  Stmt mutate(const Stmt& s) override {
    if (!s.defined() || s.kind() != StmtKind::For) return mutate_children(s);
    const Stmt loop_stmt = mutate_children(s);  // inner loops first
    const loop::StmtNode& n = loop_stmt.node();
    loop::Footprint fx = loop::footprint(n.body[0]);
    fx.loop_vars.insert(n.var.node().name);
    std::vector<Expr> found;
    collect(n.body[0], fx, found);
    if (found.empty()) return loop_stmt;

    // One temporary per distinct expression (by text), in order of first appearance.
    std::map<std::string, Buffer> temps;
    std::vector<std::pair<Buffer, Expr>> order;
    for (const auto& e : found) {
      const std::string key = loop::print(e);
      if (temps.count(key)) continue;
      const Buffer t = Buffer::make(fresh_name(e), e.dtype(), {Expr(1)});
      temps.emplace(key, t);
      order.emplace_back(t, e);
    }
    Replacer replace(temps);
    Stmt out = Stmt::for_loop(n.var, n.min, n.extent, n.for_kind, replace.mutate(n.body[0]));
    std::vector<Stmt> inits;
    for (const auto& [t, e] : order) inits.push_back(Stmt::store(t, Expr(0), e));
    Stmt init = Stmt::seq(inits);
    if (!(n.extent.kind() == ExprKind::IntImm && n.extent.node().int_value > 0)) {
      init = Stmt::if_then_else(n.extent > Expr(0), init);
    }
    out = Stmt::seq({init, out});
    for (auto it = order.rbegin(); it != order.rend(); ++it) out = Stmt::allocate(it->first, loop::Scope::Local, out);
    return out;
  }

 private:
  class Replacer : public loop::Mutator {
   public:
    explicit Replacer(const std::map<std::string, Buffer>& temps) : temps_(temps) {}
    using loop::Mutator::mutate;
    Expr mutate(const Expr& e) override {
      if (!e.defined()) return e;
      if (e.kind() == ExprKind::Load || e.kind() == ExprKind::Call || !e.node().operands.empty()) {
        if (const auto it = temps_.find(loop::print(e)); it != temps_.end()) return Expr::load(it->second, Expr(0));
      }
      return mutate_children(e);
    }

   private:
    const std::map<std::string, Buffer>& temps_;
  };

  std::string fresh_name(const Expr& e) {
    std::string base = "licm";
    if (e.kind() == ExprKind::Load) base = e.node().buffer.name() + "_licm";
    for (int k = 0;; ++k) {
      std::string name = fmt::format("{}{}", base, k);
      if (taken_.insert(name).second) return name;
    }
  }

  bool invariant(const Expr& e, const loop::Footprint& fx) const {
    const loop::ExprNode& n = e.node();
    if (n.kind == ExprKind::Var) return !fx.loop_vars.count(n.name);
    // Fault licm-hoists-dependent-load: the loop's own stores are left out of the alias check,
    // so a load the loop feeds (an accumulator read back on the next iteration) is hoisted and
    // every iteration sees the value from before the loop.
    if (n.kind == ExprKind::Load && ((fx.stored.count(n.buffer.name()) && !own_stores_ignored_) ||
                                     fx.allocated.count(n.buffer.name()))) {
      return false;
    }
    for (const auto& o : n.operands) {
      if (!invariant(o, fx)) return false;
    }
    return true;
  }

  static bool has_load_or_call(const Expr& e) {
    if (e.kind() == ExprKind::Load || e.kind() == ExprKind::Call) return true;
    for (const auto& o : e.node().operands) {
      if (has_load_or_call(o)) return true;
    }
    return false;
  }

  // Maximal invariant subexpressions of `e` worth a temporary, in evaluation order.
  void candidates(const Expr& e, const loop::Footprint& fx, const std::set<std::string>& scalars,
                  std::vector<Expr>& out) const {
    if (!e.defined() || e.kind() == ExprKind::Var || e.kind() == ExprKind::IntImm || e.kind() == ExprKind::FloatImm) {
      return;
    }
    // A local scalar is a register after LLVM's mem2reg: copying it gains nothing (and this
    // keeps the pass idempotent on its own temporaries).
    const bool scalar_load = e.kind() == ExprKind::Load && scalars.count(e.node().buffer.name());
    if (!scalar_load && has_load_or_call(e) && !to_sym(e) && invariant(e, fx)) {
      out.push_back(e);
      return;
    }
    const auto& ops = e.node().operands;
    // Only a select's condition runs for sure (as far as the IR's semantics promise).
    const size_t count = e.kind() == ExprKind::Select ? 1 : ops.size();
    for (size_t k = 0; k < count; ++k) candidates(ops[k], fx, scalars, out);
  }

  // Candidates in the statements that run on every iteration of the loop being processed.
  void collect(const Stmt& s, const loop::Footprint& fx, std::vector<Expr>& out) const {
    const loop::StmtNode& n = s.node();
    switch (n.kind) {
      case StmtKind::Store:
        candidates(n.index, fx, scalars_, out);
        candidates(n.value, fx, scalars_, out);
        break;
      case StmtKind::Evaluate:
      case StmtKind::IfThenElse: candidates(n.value, fx, scalars_, out); break;
      case StmtKind::For:
        candidates(n.min, fx, scalars_, out);
        candidates(n.extent, fx, scalars_, out);
        break;
      case StmtKind::Allocate: collect(n.body[0], fx, out); break;
      case StmtKind::Seq:
        for (const auto& b : n.body) collect(b, fx, out);
        break;
    }
  }

  std::set<std::string> taken_;
  std::set<std::string> scalars_;  // local allocations of one element
  bool own_stores_ignored_;  // fault licm-hoists-dependent-load
};

}  // namespace

std::string licm_precondition(const loop::Module& m) {
  for (const auto& c : m.calls) {
    const loop::PrimFunc* f = m.find(c.func);
    if (f == nullptr || f->params.size() != c.buffers.size()) continue;
    const loop::Footprint fx = loop::footprint(f->body);
    for (size_t k = 0; k < c.buffers.size(); ++k) {
      if (!fx.stored.count(f->params[k].name())) continue;
      for (size_t j = 0; j < c.buffers.size(); ++j) {
        if (j != k && c.buffers[j] == c.buffers[k]) {
          return fmt::format("call @{} passes {} as both {} (written) and {}: LICM assumes distinct buffers", c.func,
                             c.buffers[k], f->params[k].name(), f->params[j].name());
        }
      }
    }
  }
  return "";
}

loop::Module licm(const loop::Module& m, const CompileContext& compile) {
  return loop::with_bodies(m, [&](const loop::PrimFunc& f) {
    return Hoister(f, compile.fault(kLicmHoistsDependentLoad)).mutate(f.body);
  });
}

}  // namespace difftest::passes
