// Visitor and mutator bases for the graph IR.
//
// Visitor walks the bindings in program order. Mutator rebuilds a program binding by binding
// (like TVM's ExprMutator with a BlockBuilder): for each binding, rewrite() returns the values
// that stand for its results in the new program. Nothing is rebuilt unless something changed:
// an untouched binding is reused as is, and mutate() returns the very same Program when no
// binding changed (test with Program::same_as).
#pragma once

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

  // The value that stands for `v` (a value of the input program) in the output program.
  Value remap(const Value& v) const;
  // Re-emits b with remapped operands (b itself when no operand changed).
  std::vector<Value> keep(const Binding& b);
  // Emits a new call binding with fresh result names derived from `name_hint`.
  std::vector<Value> emit_call(const OpDef& op, std::vector<Value> args, Attrs attrs, std::vector<TensorType> types,
                               const std::string& name_hint);
  Value emit_constant(ConstantInit init, TensorType type, const std::string& name_hint);
  std::string fresh_name(const std::string& hint);
  const Program& input() const { return *input_; }

 private:
  void emit(Binding b);

  const Program* input_ = nullptr;
  std::vector<Binding> out_;
  std::unordered_map<const ValueNode*, Value> map_;
  std::unordered_set<std::string> names_;
  bool changed_ = false;
  size_t counter_ = 0;
};

}  // namespace difftest
