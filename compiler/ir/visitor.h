// Visitor and mutator bases for the graph IR.
//
// Visitor walks the bindings in program order. Mutator rebuilds a program binding by binding
// (like TVM's ExprMutator with a BlockBuilder): for each binding of the input, rewrite() returns
// the values that stand for its results in the new program, emitting bindings on the way or
// not at all (a dropped binding's results must then be unused). Nothing is rebuilt unless
// something changed: an untouched binding is reused as is, and mutate() returns the very same
// Program when nothing changed (test with Program::same_as), which is how the pass manager
// tells that a pass did nothing.
//
// The graph rewrites (FoldConstant, SimplifyExpr, CommonSubexprElimination, DeadCodeElimination,
// SpecializeShapes, DecomposeOps, FuseTransposeMatmul) are Mutators. The fusion passes are not:
// they partition the whole graph and move bindings next to their group (fuse_ops.h).
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "compiler/ir/ir.h"

namespace difftest {

class Visitor {
 public:
  virtual ~Visitor() = default;
  void visit_program(const Program& p);

 protected:
  virtual void visit_binding(const Binding& b);
  virtual void visit_param(const Binding&) {}
  virtual void visit_const(const Binding&) {}
  virtual void visit_call(const Binding&) {}
  virtual void visit_outputs(const std::vector<Value>&) {}
};

class Mutator {
 public:
  virtual ~Mutator() = default;
  Program mutate(const Program& p);

 protected:
  // Default: keep(b). Overrides may return other values of the same types (the binding is then
  // dropped) or emit new bindings first and return their results.
  virtual std::vector<Value> rewrite(const Binding& b);
  // The dim variables of the output program (default: the input's).
  virtual std::vector<DimVar> rewrite_dims(const std::vector<DimVar>& dims) { return dims; }

  // The value that stands for `v` (a value of the input program) in the output program.
  Value remap(const Value& v) const;
  // b with its operands remapped, not emitted; b itself when no operand changed. The fusion
  // group survives: a pass that only renames operands must not unfuse.
  Binding remapped(const Binding& b) const;
  // Emits remapped(b) and returns b's results.
  std::vector<Value> keep(const Binding& b);
  // Emits a binding built by the pass (new, or b rebuilt with other operands or attributes)
  // and returns its results.
  std::vector<Value> emit(Binding b);
  // Emits a new call binding with fresh result names derived from `name_hint`.
  std::vector<Value> emit_call(const OpDef& op, std::vector<Value> args, Attrs attrs, std::vector<TensorType> types,
                               const std::string& name_hint);
  Value emit_constant(ConstantInit init, TensorType type, const std::string& name_hint);
  // "hint_N", unused in the input and the output.
  std::string fresh_name(const std::string& hint);
  // Every value name of the input and every name taken since: passes with their own naming
  // scheme ("%3_max") claim names here.
  std::unordered_set<std::string>& names() { return names_; }

  // The emitted binding that defines `v` (a value of the output program), or nullptr.
  const Binding* definition(const Value& v) const;
  const std::vector<Binding>& emitted() const { return out_; }
  const Program& input() const { return *input_; }

 private:
  // b rebuilt on the remapped operands, or nothing when none changed.
  std::optional<Binding> with_remapped_args(const Binding& b) const;
  void append(Binding b);

  const Program* input_ = nullptr;
  std::vector<Binding> out_;
  std::unordered_map<const ValueNode*, Value> map_;
  std::unordered_map<const ValueNode*, size_t> defs_;
  std::unordered_set<std::string> names_;
  bool changed_ = false;
  size_t counter_ = 0;
};

}  // namespace difftest
