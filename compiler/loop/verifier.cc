#include "compiler/loop/verifier.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "compiler/support/diagnostics.h"
#include "compiler/loop/printer.h"
#include "compiler/loop/visitor.h"

namespace difftest::loop {

namespace {

class Checker : public Visitor {
 public:
  explicit Checker(const PrimFunc& f) : func_(f) {}

  void run() {
    for (const auto& d : func_.dims) {
      if (d.kind() != ExprKind::Var || d.dtype() != DType::i64) fail(ErrorKind::TypeMismatch, "a dim parameter must be an i64 variable", print(d));
      if (!vars_.insert(d.node().name).second) fail(ErrorKind::DuplicateName, "dim parameter defined twice", d.node().name);
    }
    for (const auto& b : func_.params) declare(b);
    visit(func_.body);
  }

 protected:
  void visit_var(const Expr& e) override {
    if (!vars_.count(e.node().name)) fail(ErrorKind::UnknownName, "undefined variable", e.node().name);
    if (e.dtype() != DType::i64) fail(ErrorKind::TypeMismatch, "variables are i64", e.node().name);
  }
  void visit_load(const Expr& e) override {
    use(e.node().buffer, print(e));
    Visitor::visit_load(e);
  }
  void visit_store(const Stmt& s) override {
    use(s.node().buffer, fmt::format("store to {}", s.node().buffer.name()));
    if (s.node().value.dtype() != s.node().buffer.dtype()) {
      fail(ErrorKind::TypeMismatch, "stored value's dtype differs from the buffer's", print(s));
    }
    Visitor::visit_store(s);
  }
  void visit_for(const Stmt& s) override {
    visit(s.node().min);
    visit(s.node().extent);
    const std::string& v = s.node().var.node().name;
    if (!vars_.insert(v).second) fail(ErrorKind::DuplicateName, "loop variable shadows another variable", v);
    visit(s.node().body[0]);
    vars_.erase(v);
  }
  void visit_allocate(const Stmt& s) override {
    const Buffer& b = s.node().buffer;
    for (const auto& d : b.shape()) visit(d);
    declare(b);
    visit(s.node().body[0]);
    buffers_.erase(b.name());
  }

 private:
  [[noreturn]] void fail(ErrorKind k, const std::string& what, const std::string& where) const {
    throw UserError(k, fmt::format("loop IR @{}: {}: {}", func_.name, what, where));
  }
  void declare(const Buffer& b) {
    for (const auto& d : b.shape()) {
      Visitor::visit(d);
    }
    if (!buffers_.emplace(b.name(), b).second) fail(ErrorKind::DuplicateName, "buffer defined twice", b.name());
  }
  void use(const Buffer& b, const std::string& where) const {
    const auto it = buffers_.find(b.name());
    if (it == buffers_.end()) fail(ErrorKind::UnknownName, "buffer is not a parameter or an enclosing allocation", where);
    if (it->second.dtype() != b.dtype()) fail(ErrorKind::TypeMismatch, "buffer used with another dtype", where);
  }

  const PrimFunc& func_;
  std::set<std::string> vars_;
  std::map<std::string, Buffer> buffers_;
};

}  // namespace

void verify(const PrimFunc& f) {
  if (!f.body.defined()) throw UserError(ErrorKind::Syntax, fmt::format("loop IR @{}: no body", f.name));
  Checker(f).run();
}

void verify(const Module& m) {
  std::set<std::string> names;
  for (const auto& f : m.funcs) {
    if (!names.insert(f.name).second) {
      throw UserError(ErrorKind::DuplicateName, fmt::format("loop IR: function @{} defined twice", f.name));
    }
    verify(f);
  }
  for (const auto& c : m.calls) {
    const PrimFunc* f = m.find(c.func);
    if (!f) throw UserError(ErrorKind::UnknownName, fmt::format("loop IR: call of undefined function @{}", c.func));
    if (f->params.size() != c.buffers.size() || f->dims.size() != c.dims.size()) {
      throw UserError(ErrorKind::Arity, fmt::format("loop IR: call of @{} with {} buffers and {} dims; it takes {} and {}",
                                                    c.func, c.buffers.size(), c.dims.size(), f->params.size(),
                                                    f->dims.size()));
    }
    if (c.group < -1) throw UserError(ErrorKind::Syntax, fmt::format("loop IR: call of @{} in group {}", c.func, c.group));
  }
  // A planned value shares its slot with values whose lifetimes are disjoint; a result must
  // outlive the run, so it never shares.
  const std::set<std::string> outputs(m.outputs.begin(), m.outputs.end());
  std::set<std::string> planned;
  for (const auto& slot : m.storage) {
    if (slot.empty()) throw UserError(ErrorKind::Syntax, "loop IR: an empty storage slot");
    for (const auto& v : slot) {
      if (!planned.insert(v).second) throw UserError(ErrorKind::DuplicateName, fmt::format("loop IR: {} is in two storage slots", v));
      if (outputs.count(v)) throw UserError(ErrorKind::Syntax, fmt::format("loop IR: result {} is in a storage slot", v));
    }
  }
}

}  // namespace difftest::loop
