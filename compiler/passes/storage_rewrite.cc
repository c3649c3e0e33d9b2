#include "compiler/loop/analysis.h"
#include "compiler/passes/storage_rewrite.h"

#include <map>
#include <set>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/ir.h"
#include "compiler/sym/sym_simplify.h"
#include "compiler/loop/visitor.h"
#include "compiler/passes/loop_simplify.h"

namespace difftest::passes {

namespace {

using loop::Buffer;
using loop::Expr;
using loop::ExprKind;
using loop::Stmt;
using loop::StmtKind;

// Does `s` (or `e`) name the buffer: a load, a store or an allocation of it?
bool mentions(const Stmt& s, const std::string& name) { return loop::footprint(s).mentions(name); }
bool mentions(const Expr& e, const std::string& name) { return loop::footprint(e).mentions(name); }

class Rename : public loop::Mutator {
 public:
  Rename(std::string from, Buffer to) : from_(std::move(from)), to_(std::move(to)) {}

 protected:
  Buffer mutate_buffer(const Buffer& b) override { return b.name() == from_ ? to_ : b; }

 private:
  std::string from_;
  Buffer to_;
};

class Rewriter : public loop::Mutator {
 public:
  explicit Rewriter(const loop::PrimFunc& f) {
    for (const auto& d : f.dims) ranges_[d.node().name] = sym::Range{0, kMaxDimVarValue};
  }

  using loop::Mutator::mutate;

  Stmt mutate(const Stmt& s) override {
    if (!s.defined()) return s;
    const Stmt m = mutate_children(s);  // inner allocations first
    if (m.kind() == StmtKind::Allocate) {
      const loop::StmtNode& n = m.node();
      bool changed = false;
      const Stmt sunk = sink(n.buffer, n.scope, n.body[0], changed);
      if (!changed) return m;
      return sunk.kind() == StmtKind::Seq ? merge(sunk) : sunk;
    }
    if (m.kind() == StmtKind::Seq) return merge(m);
    return m;
  }

 private:
  // `alloc buf { body }`, with the allocation pushed as deep as it may go.
  Stmt sink(const Buffer& buf, loop::Scope scope, const Stmt& body, bool& changed) {
    const std::string& name = buf.name();
    const loop::StmtNode& n = body.node();
    auto keep = [&] { return Stmt::allocate(buf, scope, body); };
    switch (n.kind) {
      case StmtKind::Seq: {
        size_t first = n.body.size(), last = 0;
        for (size_t k = 0; k < n.body.size(); ++k) {
          if (!mentions(n.body[k], name)) continue;
          first = std::min(first, k);
          last = k;
        }
        if (first == n.body.size()) {
          changed = true;
          return body;  // nothing uses it
        }
        if (first == 0 && last + 1 == n.body.size()) return keep();
        changed = true;
        std::vector<Stmt> items(n.body.begin(), n.body.begin() + static_cast<std::ptrdiff_t>(first));
        std::vector<Stmt> used(n.body.begin() + static_cast<std::ptrdiff_t>(first),
                               n.body.begin() + static_cast<std::ptrdiff_t>(last) + 1);
        items.push_back(sink(buf, scope, Stmt::seq(std::move(used)), changed));
        items.insert(items.end(), n.body.begin() + static_cast<std::ptrdiff_t>(last) + 1, n.body.end());
        return Stmt::seq(std::move(items));
      }
      case StmtKind::IfThenElse: {
        if (mentions(n.value, name)) return keep();
        const bool in_then = mentions(n.body[0], name);
        const bool in_else = n.body.size() > 1 && mentions(n.body[1], name);
        if (in_then && in_else) return keep();
        changed = true;
        if (!in_then && !in_else) return body;
        Stmt then_case = in_then ? sink(buf, scope, n.body[0], changed) : n.body[0];
        Stmt else_case = n.body.size() < 2 ? Stmt() : (in_else ? sink(buf, scope, n.body[1], changed) : n.body[1]);
        return Stmt::if_then_else(n.value, then_case, else_case);
      }
      case StmtKind::Allocate: {
        if (n.buffer.name() == name) return keep();  // cannot happen in verified IR
        changed = true;
        return Stmt::allocate(n.buffer, n.scope, sink(buf, scope, n.body[0], changed));
      }
      case StmtKind::Store:
      case StmtKind::Evaluate:
        if (!mentions(body, name)) {
          changed = true;
          return body;
        }
        return keep();
      case StmtKind::For:
        if (!mentions(body, name)) {
          changed = true;
          return body;
        }
        return keep();
    }
    return keep();
  }

  std::optional<Expr> merged_size(const Buffer& a, const Buffer& b) const {
    const auto x = to_sym(a.numel()), y = to_sym(b.numel());
    if (!x || !y) return std::nullopt;
    try {
      return from_sym(sym::simplify(sym::max(*x, *y), ranges_));
    } catch (const UserError&) {
      return std::nullopt;
    }
  }

  // Sibling allocations of one dtype and scope share the earlier one's memory.
  Stmt merge(const Stmt& seq) {
    std::vector<Stmt> items = seq.node().body;
    bool changed = false;
    for (size_t k = 0; k < items.size(); ++k) {
      if (items[k].kind() != StmtKind::Allocate) continue;
      for (size_t j = k + 1; j < items.size(); ++j) {
        if (items[j].kind() != StmtKind::Allocate) continue;
        const loop::StmtNode& a = items[k].node();
        const loop::StmtNode& b = items[j].node();
        const std::string& name = a.buffer.name();
        if (a.buffer.dtype() != b.buffer.dtype() || a.scope != b.scope) continue;
        bool clash = mentions(b.body[0], name);
        for (size_t m = k + 1; m < j && !clash; ++m) clash = mentions(items[m], name);
        if (clash) continue;
        const auto size = merged_size(a.buffer, b.buffer);
        if (!size) continue;
        const Buffer shared = Buffer::make(name, a.buffer.dtype(), {*size});
        Rename to_shared_a(name, shared), to_shared_b(b.buffer.name(), shared);
        std::vector<Stmt> body = {to_shared_a.mutate(a.body[0])};
        body.insert(body.end(), items.begin() + static_cast<std::ptrdiff_t>(k) + 1,
                    items.begin() + static_cast<std::ptrdiff_t>(j));
        body.push_back(to_shared_b.mutate(b.body[0]));
        const Stmt merged = Stmt::allocate(shared, a.scope, Stmt::seq(std::move(body)));
        items.erase(items.begin() + static_cast<std::ptrdiff_t>(k) + 1, items.begin() + static_cast<std::ptrdiff_t>(j) + 1);
        items[k] = merged;
        changed = true;
        j = k;  // the merged allocation may take the next sibling too
      }
    }
    return changed ? Stmt::seq(std::move(items)) : seq;
  }

  sym::Ranges ranges_;
};

}  // namespace

loop::Module storage_rewrite(const loop::Module& m) {
  return loop::with_bodies(m, [](const loop::PrimFunc& f) { return Rewriter(f).mutate(f.body); });
}

}  // namespace difftest::passes
