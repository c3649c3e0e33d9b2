#include "compiler/loop/analysis.h"
#include "compiler/passes/schedule/common.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "compiler/loop/visitor.h"

namespace difftest::passes::schedule {

using loop::Buffer;
using loop::Expr;
using loop::ExprKind;
using loop::ForKind;
using loop::Stmt;
using loop::StmtKind;

namespace {

class Uses : public loop::Visitor {
 public:
  Uses(std::string var, const loop::BufferNode* buffer) : var_(std::move(var)), buffer_(buffer) {}
  bool found = false;

 protected:
  void visit_var(const Expr& e) override { found = found || e.node().name == var_; }
  void visit_load(const Expr& e) override {
    found = found || (buffer_ && e.node().buffer.name() == buffer_->name);
    Visitor::visit_load(e);
  }
  void visit_store(const Stmt& s) override {
    found = found || (buffer_ && s.node().buffer.name() == buffer_->name);
    Visitor::visit_store(s);
  }
  void visit_for(const Stmt& s) override {
    found = found || s.node().var.node().name == var_;
    Visitor::visit_for(s);
  }

 private:
  std::string var_;
  const loop::BufferNode* buffer_;
};

template <typename T>
bool find_buffer(const T& x, const Buffer& b) {
  Uses u("", b.get());
  u.visit(x);
  return u.found;
}

class Substituter : public loop::Mutator {
 public:
  explicit Substituter(const Substitution& s) : s_(s) {}
  Expr mutate(const Expr& e) override {
    if (e.kind() == ExprKind::Var) {
      const auto it = s_.vars.find(e.node().name);
      return it == s_.vars.end() ? e : it->second;
    }
    if (e.kind() == ExprKind::Load && s_.from.defined() && e.node().buffer.name() == s_.from.name()) {
      return Expr::load(s_.to, s_.to_index);
    }
    return mutate_children(e);
  }
  Stmt mutate(const Stmt& s) override {
    if (s.kind() == StmtKind::Store && s_.from.defined() && s.node().buffer.name() == s_.from.name()) {
      return Stmt::store(s_.to, s_.to_index, mutate(s.node().value));
    }
    return mutate_children(s);
  }

 private:
  const Substitution& s_;
};

bool is_loop_from_zero(const Stmt& s) {
  return s.kind() == StmtKind::For && s.node().for_kind == ForKind::Serial && s.node().min.is_int_imm(0);
}

}  // namespace

bool uses_buffer(const Expr& e, const Buffer& b) { return find_buffer(e, b); }
bool uses_buffer(const Stmt& s, const Buffer& b) { return find_buffer(s, b); }

bool structurally_equal(const Expr& a, const Expr& b) {
  if (a.same_as(b)) return true;
  if (!a.defined() || !b.defined()) return false;
  const loop::ExprNode& x = a.node();
  const loop::ExprNode& y = b.node();
  if (x.kind != y.kind || x.dtype != y.dtype || x.int_value != y.int_value || x.name != y.name || x.bin != y.bin ||
      x.cmp != y.cmp || x.operands.size() != y.operands.size()) {
    return false;
  }
  // Bit patterns, so that NaN equals NaN and -0.0 differs from 0.0.
  if (x.kind == ExprKind::FloatImm && std::memcmp(&x.float_value, &y.float_value, sizeof(double)) != 0) return false;
  if (x.kind == ExprKind::Load && x.buffer.name() != y.buffer.name()) return false;
  for (size_t i = 0; i < x.operands.size(); ++i) {
    if (!structurally_equal(x.operands[i], y.operands[i])) return false;
  }
  return true;
}

Expr substitute(const Expr& e, const Substitution& sub) { return Substituter(sub).mutate(e); }
Stmt substitute(const Stmt& s, const Substitution& sub) { return Substituter(sub).mutate(s); }

std::optional<ReductionNest> match_reduction(const Stmt& s) {
  ReductionNest n;
  Stmt cur = s;
  while (is_loop_from_zero(cur)) {
    n.spatial.push_back(cur);
    cur = cur.node().body[0];
  }
  if (cur.kind() != StmtKind::Allocate || cur.node().scope != loop::Scope::Local) return std::nullopt;
  n.alloc = cur;
  n.acc = cur.node().buffer;
  if (n.acc.shape().size() != 1 || !n.acc.shape()[0].is_int_imm(1)) return std::nullopt;
  const Stmt& body = cur.node().body[0];
  if (body.kind() != StmtKind::Seq || body.node().body.size() != 3) return std::nullopt;
  const Stmt& init = body.node().body[0];
  const Stmt& red = body.node().body[1];
  n.tail = body.node().body[2];
  if (init.kind() != StmtKind::Store || !init.node().buffer.same_as(n.acc) || !init.node().index.is_int_imm(0) ||
      uses_buffer(init.node().value, n.acc)) {
    return std::nullopt;
  }
  n.init = init.node().value;
  if (!is_loop_from_zero(red)) return std::nullopt;
  const Stmt& update = red.node().body[0];
  if (update.kind() != StmtKind::Store || !update.node().buffer.same_as(n.acc) || !update.node().index.is_int_imm(0)) {
    return std::nullopt;
  }
  n.k = red.node().var;
  n.k_extent = red.node().extent;
  n.step = update.node().value;
  if (n.tail.kind() != StmtKind::Store || n.tail.node().buffer.name() == n.acc.name()) return std::nullopt;
  for (const auto& l : n.spatial) {
    for (const auto& other : n.spatial) {
      if (uses_var(other.node().extent, l.node().var.node().name)) return std::nullopt;
    }
    if (uses_var(n.k_extent, l.node().var.node().name)) return std::nullopt;
  }
  return n;
}

std::optional<Fold> match_fold(const ReductionNest& n) {
  const Expr& s = n.step;
  if (s.kind() != ExprKind::Binary) return std::nullopt;
  const loop::BinOp op = s.node().bin;
  if (op != loop::BinOp::Add && op != loop::BinOp::Max && op != loop::BinOp::Min) return std::nullopt;
  const Expr& a = s.node().operands[0];
  const Expr& term = s.node().operands[1];
  if (a.kind() != ExprKind::Load || a.node().buffer.name() != n.acc.name() || uses_buffer(term, n.acc)) {
    return std::nullopt;
  }
  return Fold{op, term};
}

bool is_const(const Expr& e) { return e.kind() == ExprKind::IntImm; }
bool is_zero(const Expr& e) { return e.is_int_imm(0); }

Expr add(const Expr& a, const Expr& b) {
  if (is_const(a) && is_const(b)) return a.node().int_value + b.node().int_value;
  if (is_zero(a)) return b;
  if (is_zero(b)) return a;
  return a + b;
}
Expr sub(const Expr& a, const Expr& b) {
  if (is_const(a) && is_const(b)) return a.node().int_value - b.node().int_value;
  if (is_zero(b)) return a;
  return a - b;
}
Expr mul(const Expr& a, const Expr& b) {
  if (is_const(a) && is_const(b)) return a.node().int_value * b.node().int_value;
  if (a.is_int_imm(1)) return b;
  if (b.is_int_imm(1)) return a;
  return a * b;
}
Expr div(const Expr& a, int64_t b) {
  if (is_const(a)) return a.node().int_value / b;  // extents are non-negative: truncation is floor
  if (b == 1) return a;
  return loop::floordiv(a, b);
}

Stmt nothing() { return Stmt::seq({}); }

Stmt make_for(const Expr& v, const Expr& min, const Expr& extent, ForKind kind, Stmt body) {
  if (is_zero(extent) || (body.kind() == StmtKind::Seq && body.node().body.empty())) return nothing();
  return Stmt::for_loop(v, min, extent, kind, std::move(body));
}

Stmt rewrap(const std::vector<Stmt>& loops, Stmt body) {
  for (size_t d = loops.size(); d-- > 0;) {
    const loop::StmtNode& l = loops[d].node();
    body = Stmt::for_loop(l.var, l.min, l.extent, l.for_kind, body);
  }
  return body;
}

Stmt with_kind(const Stmt& f, ForKind kind) {
  const loop::StmtNode& l = f.node();
  return Stmt::for_loop(l.var, l.min, l.extent, kind, l.body[0]);
}

Stmt split_vectorized(const std::string& name, const Expr& extent, int64_t lanes, ForKind outer_kind,
                      const std::function<Stmt(const Expr&)>& body, Tail tail) {
  const Expr o = Expr::var(name + "o"), l = Expr::var(name + "l"), t = Expr::var(name + "t");
  const Expr chunks = div(extent, lanes);
  const Expr main = mul(chunks, lanes);
  const Stmt vec = make_for(o, 0, chunks, outer_kind,
                            Stmt::for_loop(l, 0, lanes, ForKind::Vectorized, body(add(mul(o, lanes), l))));
  const Stmt rest = make_for(t, main, sub(extent, main), ForKind::Serial, body(t));
  if (tail == Tail::DroppedWhenSymbolic && !is_const(extent)) return vec;
  return Stmt::seq({vec, rest});
}

namespace {

// The loop variables and allocations a statement binds.
std::set<std::string> binders(const Stmt& s) {
  const loop::Footprint f = loop::footprint(s);
  std::set<std::string> names = f.loop_vars;
  names.insert(f.allocated.begin(), f.allocated.end());
  return names;
}

}  // namespace

loop::Module apply_rule(const loop::Module& m, const std::function<std::optional<Stmt>(const Stmt&)>& rule) {
  loop::Module out = m;
  for (auto& f : out.funcs) {
    const std::vector<Stmt> items =
        f.body.kind() == StmtKind::Seq ? f.body.node().body : std::vector<Stmt>{f.body};
    // Names a rewrite must not introduce: the rules derive theirs from the nest's own names
    // (i3 -> i3o), which a user's dim or another nest could already use.
    std::set<std::string> taken = binders(f.body);
    for (const auto& d : f.dims) taken.insert(d.node().name);
    for (const auto& p : f.params) taken.insert(p.name());
    std::vector<Stmt> rewritten;
    bool changed = false;
    for (const auto& s : items) {
      std::optional<Stmt> r = rule(s);
      if (r) {
        const std::set<std::string> before = binders(s);
        for (const auto& name : binders(*r)) {
          if (!before.count(name) && taken.count(name)) r.reset();
          if (!r) break;
        }
      }
      changed = changed || r.has_value();
      rewritten.push_back(r ? *r : s);
    }
    if (changed) f.body = rewritten.size() == 1 ? rewritten[0] : Stmt::seq(std::move(rewritten));
  }
  return out;
}


namespace {

bool is_identity_zero(const Expr& e) {
  if (e.kind() == ExprKind::IntImm) return e.node().int_value == 0;
  return e.kind() == ExprKind::FloatImm && e.node().float_value == 0;
}

void collect_terms(const Expr& e, std::vector<Expr>& out) {
  if (e.kind() == ExprKind::Binary && e.node().bin == loop::BinOp::Add) {
    collect_terms(e.node().operands[0], out);
    collect_terms(e.node().operands[1], out);
    return;
  }
  out.push_back(e);
}

}  // namespace

std::optional<Stmt> split_reduction_lanes(const ReductionNest& n, const Fold& f, int64_t lanes, int64_t chains) {
  if (f.op == loop::BinOp::Add && !is_identity_zero(n.init)) return std::nullopt;
  const std::string& k = n.k.node().name;
  const int64_t width = lanes * chains;
  const loop::Buffer part = loop::Buffer::make(n.acc.name() + "l", n.acc.dtype(), {width});
  const Expr ko = Expr::var(k + "o"), w = Expr::var(k + "w"), l = Expr::var(k + "l"), kt = Expr::var(k + "t"),
             c = Expr::var(k + "c");
  const Expr chunks = div(n.k_extent, width);
  const Expr main = mul(chunks, width);
  const Expr slot = chains == 1 ? l : add(mul(w, lanes), l);
  const Substitution lane{{{k, add(mul(ko, width), slot)}}, n.acc, part, slot};
  const Substitution rest{{{k, kt}}, n.acc, part, 0};
  const Substitution result{{}, n.acc, part, 0};
  Stmt step = Stmt::for_loop(l, 0, lanes, ForKind::Vectorized, Stmt::store(part, slot, substitute(n.step, lane)));
  if (chains > 1) step = Stmt::for_loop(w, 0, chains, ForKind::Unrolled, step);
  const Stmt body = Stmt::seq({
      Stmt::for_loop(l, 0, width, ForKind::Vectorized, Stmt::store(part, l, n.init)),
      make_for(ko, 0, chunks, ForKind::Serial, step),
      make_for(kt, main, sub(n.k_extent, main), ForKind::Serial, Stmt::store(part, 0, substitute(n.step, rest))),
      Stmt::for_loop(c, 1, width - 1, ForKind::Serial, Stmt::store(part, 0, Expr::binary(f.op, part[0], part[c]))),
      substitute(n.tail, result),
  });
  return Stmt::allocate(part, loop::Scope::Local, body);
}

int64_t packing_factor(const Expr& index, const std::string& k) {
  std::vector<Expr> terms;
  collect_terms(index, terms);
  for (const auto& t : terms) {
    if (t.kind() == ExprKind::Binary && t.node().bin == loop::BinOp::FloorDiv && uses_var(t, k) &&
        t.node().operands[1].kind() == ExprKind::IntImm) {
      return t.node().operands[1].node().int_value;
    }
  }
  return 1;
}

bool unit_stride(const Expr& index, const std::string& k) {
  std::vector<Expr> terms;
  collect_terms(index, terms);
  for (const auto& t : terms) {
    if (!uses_var(t, k)) continue;
    const bool bare = t.kind() == ExprKind::Var;
    const bool divided = t.kind() == ExprKind::Binary && t.node().bin == loop::BinOp::FloorDiv &&
                         t.node().operands[0].kind() == ExprKind::Var && t.node().operands[1].kind() == ExprKind::IntImm;
    if (!bare && !divided) return false;
  }
  return true;
}

int64_t vector_lanes(const target::Target& target, DType acc) { return target::vector_lanes(target, dtype_bytes(acc)); }

}  // namespace difftest::passes::schedule
