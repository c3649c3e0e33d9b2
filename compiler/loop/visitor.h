// Visitor and mutator bases for the loop IR (as Halide's IRVisitor / IRMutator).
//
// ExprVisitor/StmtVisitor walk every node in evaluation order; override a hook and call the
// base to keep walking. Mutator rebuilds bottom-up and returns the very same node when nothing
// below it changed (test with same_as), so passes that touch little cost little.
#pragma once

#include <string>
#include <vector>

#include "compiler/loop/ir.h"

namespace difftest::loop {

class Visitor {
 public:
  virtual ~Visitor() = default;
  virtual void visit(const Expr& e);
  virtual void visit(const Stmt& s);
  void visit(const PrimFunc& f);

 protected:
  // Hooks; the defaults visit the children.
  virtual void visit_var(const Expr&) {}
  virtual void visit_load(const Expr& e);
  virtual void visit_for(const Stmt& s);
  virtual void visit_store(const Stmt& s);
  virtual void visit_allocate(const Stmt& s);
};

class Mutator {
 public:
  virtual ~Mutator() = default;
  virtual Expr mutate(const Expr& e);
  virtual Stmt mutate(const Stmt& s);
  PrimFunc mutate(const PrimFunc& f);

 protected:
  // Rebuilds e with mutated children (e itself when none changed).
  Expr mutate_children(const Expr& e);
  Stmt mutate_children(const Stmt& s);
  // Buffers are rewritten through this hook (e.g. when a pass renames or reshapes one).
  virtual Buffer mutate_buffer(const Buffer& b) { return b; }
};

// Queries the loop passes and codegen share.
bool uses_var(const Expr& e, const std::string& name);
bool uses_var(const Stmt& s, const std::string& name);  // also a loop that defines it
std::vector<Expr> loads_in(const Expr& e);  // every load, in evaluation order

}  // namespace difftest::loop
