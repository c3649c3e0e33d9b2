#include "compiler/loop/visitor.h"

#include "compiler/support/diagnostics.h"

namespace difftest::loop {

void Visitor::visit(const Expr& e) {
  if (!e.defined()) return;
  switch (e.kind()) {
    case ExprKind::Var: visit_var(e); return;
    case ExprKind::Load: visit_load(e); return;
    default:
      for (const auto& o : e.node().operands) visit(o);
  }
}

void Visitor::visit_load(const Expr& e) { visit(e.node().operands[0]); }

void Visitor::visit(const Stmt& s) {
  if (!s.defined()) return;
  switch (s.kind()) {
    case StmtKind::For: visit_for(s); return;
    case StmtKind::Store: visit_store(s); return;
    case StmtKind::Allocate: visit_allocate(s); return;
    case StmtKind::IfThenElse:
    case StmtKind::Evaluate: visit(s.node().value); break;
    case StmtKind::Seq: break;
  }
  for (const auto& b : s.node().body) visit(b);
}

void Visitor::visit_for(const Stmt& s) {
  visit(s.node().min);
  visit(s.node().extent);
  visit(s.node().body[0]);
}

void Visitor::visit_store(const Stmt& s) {
  visit(s.node().index);
  visit(s.node().value);
}

void Visitor::visit_allocate(const Stmt& s) {
  for (const auto& d : s.node().buffer.shape()) visit(d);
  visit(s.node().body[0]);
}

void Visitor::visit(const PrimFunc& f) { visit(f.body); }

Expr Mutator::mutate(const Expr& e) { return mutate_children(e); }
Stmt Mutator::mutate(const Stmt& s) { return mutate_children(s); }

PrimFunc Mutator::mutate(const PrimFunc& f) {
  PrimFunc out = f;
  for (auto& b : out.params) b = mutate_buffer(b);
  out.body = mutate(f.body);
  return out;
}

Expr Mutator::mutate_children(const Expr& e) {
  if (!e.defined()) return e;
  const ExprNode& n = e.node();
  std::vector<Expr> ops;
  bool changed = false;
  for (const auto& o : n.operands) {
    ops.push_back(mutate(o));
    changed = changed || !ops.back().same_as(o);
  }
  const Buffer buf = n.kind == ExprKind::Load ? mutate_buffer(n.buffer) : n.buffer;
  changed = changed || (n.kind == ExprKind::Load && !buf.same_as(n.buffer));
  if (!changed) return e;
  switch (n.kind) {
    case ExprKind::Load: return Expr::load(buf, ops[0]);
    case ExprKind::Binary: return Expr::binary(n.bin, ops[0], ops[1]);
    case ExprKind::Compare: return Expr::compare(n.cmp, ops[0], ops[1]);
    case ExprKind::Not: return Expr::logical_not(ops[0]);
    case ExprKind::Cast: return Expr::cast(n.dtype, ops[0]);
    case ExprKind::Select: return Expr::select(ops[0], ops[1], ops[2]);
    case ExprKind::Call: return Expr::call(n.name, ops);
    default: DT_CHECK(false, "leaf expression with operands");
  }
  return e;
}

Stmt Mutator::mutate_children(const Stmt& s) {
  if (!s.defined()) return s;
  const StmtNode& n = s.node();
  std::vector<Stmt> body;
  bool changed = false;
  for (const auto& b : n.body) {
    body.push_back(mutate(b));
    changed = changed || !body.back().same_as(b);
  }
  switch (n.kind) {
    case StmtKind::For: {
      const Expr lo = mutate(n.min), ext = mutate(n.extent);
      if (!changed && lo.same_as(n.min) && ext.same_as(n.extent)) return s;
      return Stmt::for_loop(n.var, lo, ext, n.for_kind, body[0]);
    }
    case StmtKind::Store: {
      const Buffer b = mutate_buffer(n.buffer);
      const Expr i = mutate(n.index), v = mutate(n.value);
      if (b.same_as(n.buffer) && i.same_as(n.index) && v.same_as(n.value)) return s;
      return Stmt::store(b, i, v);
    }
    case StmtKind::Allocate: {
      const Buffer b = mutate_buffer(n.buffer);
      if (!changed && b.same_as(n.buffer)) return s;
      return Stmt::allocate(b, n.scope, body[0]);
    }
    case StmtKind::IfThenElse: {
      const Expr c = mutate(n.value);
      if (!changed && c.same_as(n.value)) return s;
      return Stmt::if_then_else(c, body[0], body.size() > 1 ? body[1] : Stmt());
    }
    case StmtKind::Seq: return changed ? Stmt::seq(body) : s;
    case StmtKind::Evaluate: {
      const Expr v = mutate(n.value);
      return v.same_as(n.value) ? s : Stmt::evaluate(v);
    }
  }
  return s;
}

namespace {

class VarFinder : public Visitor {
 public:
  explicit VarFinder(const std::string& name) : name_(name) {}
  bool found = false;

 protected:
  void visit_var(const Expr& v) override { found = found || v.node().name == name_; }
  void visit_for(const Stmt& s) override {  // a loop defining the name counts as a use
    found = found || s.node().var.node().name == name_;
    Visitor::visit_for(s);
  }

 private:
  const std::string& name_;
};

class LoadCollector : public Visitor {
 public:
  std::vector<Expr> found;

 protected:
  void visit_load(const Expr& e) override {
    found.push_back(e);
    Visitor::visit_load(e);
  }
};

}  // namespace

bool uses_var(const Expr& e, const std::string& name) {
  VarFinder f(name);
  f.visit(e);
  return f.found;
}

bool uses_var(const Stmt& s, const std::string& name) {
  VarFinder f(name);
  f.visit(s);
  return f.found;
}

std::vector<Expr> loads_in(const Expr& e) {
  LoadCollector c;
  c.visit(e);
  return c.found;
}

}  // namespace difftest::loop
