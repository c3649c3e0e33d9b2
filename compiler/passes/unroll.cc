#include "compiler/loop/analysis.h"
#include "compiler/passes/unroll.h"

#include "compiler/support/diagnostics.h"
#include "compiler/sym/sym_simplify.h"
#include "compiler/loop/visitor.h"
#include "compiler/passes/loop_simplify.h"

namespace difftest::passes {

namespace {

using loop::Expr;
using loop::ExprKind;
using loop::Stmt;
using loop::StmtKind;

// Stores and evaluations: what a copy of the body adds to the straight-line code.
int64_t statements(const Stmt& s) {
  struct Counter : loop::Visitor {
    int64_t n = 0;
    using loop::Visitor::visit;
    void visit(const Stmt& s) override {
      n += s.defined() && (s.kind() == StmtKind::Store || s.kind() == StmtKind::Evaluate);
      loop::Visitor::visit(s);
    }
  } counter;
  counter.visit(s);
  return counter.n;
}

bool contains_loop(const Stmt& s) {
  struct Finder : loop::Visitor {
    bool found = false;
    void visit_for(const Stmt&) override { found = true; }
  } finder;
  finder.visit(s);
  return finder.found;
}

// Replaces the variable by a value; i64 arithmetic around it is folded symbolically.
class Instantiate : public loop::Mutator {
 public:
  Instantiate(std::string name, sym::Expr value) : name_(std::move(name)), value_(std::move(value)) {}
  using loop::Mutator::mutate;
  Expr mutate(const Expr& e) override {
    if (!e.defined()) return e;
    if (const auto s = to_sym(e); s && sym::contains_var(*s, name_)) {
      const sym::Expr replaced = sym::substitute(*s, std::map<std::string, sym::Expr>{{name_, value_}});
      try {
        return from_sym(sym::simplify(replaced));
      } catch (const UserError&) {
        return from_sym(replaced);  // an overflowing fold: keep the plain substitution
      }
    }
    return mutate_children(e);
  }

 private:
  std::string name_;
  sym::Expr value_;
};

class Unroller : public loop::Mutator {
 public:
  using loop::Mutator::mutate;
  Stmt mutate(const Stmt& s) override {
    if (!s.defined() || s.kind() != StmtKind::For) return mutate_children(s);
    const Stmt inner = mutate_children(s);  // inner loops first
    const loop::StmtNode& n = inner.node();
    if (n.extent.kind() != ExprKind::IntImm) return inner;
    const int64_t extent = n.extent.node().int_value;
    const bool marked = n.for_kind == loop::ForKind::Unrolled && extent <= kMaxUnrolledExtent;
    const bool small = n.for_kind == loop::ForKind::Serial && extent <= kMaxSmallExtent && !contains_loop(n.body[0]) &&
                       extent * statements(n.body[0]) <= kMaxSmallStatements;
    if (!marked && !small) return inner;
    const auto lo = to_sym(n.min);
    std::vector<Stmt> copies;
    for (int64_t k = 0; k < extent; ++k) {
      if (lo) {
        Instantiate inst(n.var.node().name, sym::simplify(*lo + sym::Expr::constant(k)));
        copies.push_back(inst.mutate(n.body[0]));
      } else {
        copies.push_back(substitute_var(n.body[0], n.var.node().name, n.min + Expr::int_imm(k)));
      }
    }
    return Stmt::seq(std::move(copies));
  }
};

}  // namespace

loop::Module unroll(const loop::Module& m) {
  return loop::with_bodies(m, [](const loop::PrimFunc& f) { return Unroller().mutate(f.body); });
}

}  // namespace difftest::passes
