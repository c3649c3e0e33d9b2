#include "compiler/loop/analysis.h"

#include "compiler/loop/visitor.h"

namespace difftest::loop {

namespace {

class FootprintWalk : public Visitor {
 public:
  Footprint out;

 protected:
  void visit_load(const Expr& e) override {
    out.loaded.insert(e.node().buffer.name());
    Visitor::visit_load(e);
  }
  void visit_store(const Stmt& s) override {
    out.stored.insert(s.node().buffer.name());
    Visitor::visit_store(s);
  }
  void visit_allocate(const Stmt& s) override {
    const StmtNode& n = s.node();
    out.allocated.insert(n.buffer.name());
    if (n.scope == Scope::Local && n.buffer.numel().is_int_imm(1)) out.local_scalars.insert(n.buffer.name());
    Visitor::visit_allocate(s);
  }
  void visit_for(const Stmt& s) override {
    out.loop_vars.insert(s.node().var.node().name);
    Visitor::visit_for(s);
  }
};

}  // namespace

std::set<std::string> Footprint::buffers() const {
  std::set<std::string> all = loaded;
  all.insert(stored.begin(), stored.end());
  all.insert(allocated.begin(), allocated.end());
  return all;
}

bool Footprint::mentions(const std::string& buffer) const {
  return loaded.count(buffer) || stored.count(buffer) || allocated.count(buffer);
}

Footprint footprint(const Stmt& s) {
  FootprintWalk w;
  w.visit(s);
  return w.out;
}

Footprint footprint(const Expr& e) {
  FootprintWalk w;
  w.visit(e);
  return w.out;
}

Module with_bodies(const Module& m, const std::function<Stmt(const PrimFunc&)>& rewrite) {
  Module out = m;
  for (auto& f : out.funcs) f.body = rewrite(f);
  return out;
}

}  // namespace difftest::loop
