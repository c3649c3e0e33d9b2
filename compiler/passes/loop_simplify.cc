#include "compiler/loop/analysis.h"
#include "compiler/passes/loop_simplify.h"

#include "compiler/faults/faults.h"
#include "compiler/support/diagnostics.h"
#include "compiler/ir/ir.h"
#include "compiler/sym/sym_prove.h"
#include "compiler/sym/sym_simplify.h"
#include "compiler/loop/visitor.h"
#include "compiler/passes/loop_simplify_faults.h"

namespace difftest::passes {

// Test faults of this file (docs/faults.md): off unless switched on.

const faults::Fault kFloorDivAsTruncDiv({
    .name = "floor-div-as-trunc-div",
    .pass = "LoopSimplify",
    .description = "LoopSimplify rewrites floor division and floor modulo of signed-integer or float values with "
        "truncating semantics (-7 // 2 = -3, -7 % 2 = -1), wrong where the operands' signs differ and the division "
        "is inexact: a simplifier treating floordiv as truncdiv for operands it cannot prove non-negative",
    .models = "a simplifier that treats floordiv as truncdiv for operands it cannot prove non-negative",
});

using loop::BinOp;
using loop::Expr;
using loop::ExprKind;
using loop::Stmt;
using loop::StmtKind;

std::optional<sym::Expr> to_sym(const Expr& e) {
  if (!e.defined() || e.dtype() != DType::i64) return std::nullopt;
  const loop::ExprNode& n = e.node();
  if (n.kind == ExprKind::IntImm) return sym::Expr::constant(n.int_value);
  if (n.kind == ExprKind::Var) return sym::Expr::var(n.name);
  if (n.kind != ExprKind::Binary) return std::nullopt;
  const auto a = to_sym(n.operands[0]);
  const auto b = to_sym(n.operands[1]);
  if (!a || !b) return std::nullopt;
  switch (n.bin) {
    case BinOp::Add: return sym::Expr::make(sym::Op::Add, *a, *b);
    case BinOp::Sub: return sym::Expr::make(sym::Op::Sub, *a, *b);
    case BinOp::Mul: return sym::Expr::make(sym::Op::Mul, *a, *b);
    case BinOp::Min: return sym::Expr::make(sym::Op::Min, *a, *b);
    case BinOp::Max: return sym::Expr::make(sym::Op::Max, *a, *b);
    case BinOp::FloorDiv:
    case BinOp::FloorMod:
      // Loop IR defines x // 0 as 0; the symbolic arithmetic calls it an error.
      if (!b->is_const() || b->value() == 0) return std::nullopt;
      return sym::Expr::make(n.bin == BinOp::FloorDiv ? sym::Op::FloorDiv : sym::Op::FloorMod, *a, *b);
    default: return std::nullopt;
  }
}

Expr from_sym(const sym::Expr& e) {
  switch (e.op()) {
    case sym::Op::Const: return Expr::int_imm(e.value());
    case sym::Op::Var: return Expr::var(e.name());
    default: break;
  }
  const Expr a = from_sym(e.a()), b = from_sym(e.b());
  switch (e.op()) {
    case sym::Op::Add: return Expr::binary(BinOp::Add, a, b);
    case sym::Op::Sub: return Expr::binary(BinOp::Sub, a, b);
    case sym::Op::Mul: return Expr::binary(BinOp::Mul, a, b);
    case sym::Op::FloorDiv: return Expr::binary(BinOp::FloorDiv, a, b);
    case sym::Op::FloorMod: return Expr::binary(BinOp::FloorMod, a, b);
    case sym::Op::Min: return Expr::binary(BinOp::Min, a, b);
    case sym::Op::Max: return Expr::binary(BinOp::Max, a, b);
    default: break;
  }
  DT_CHECK(false, "from_sym: unexpected node");
  return Expr();
}

namespace {

class Substituter : public loop::Mutator {
 public:
  Substituter(std::string name, Expr value) : name_(std::move(name)), value_(std::move(value)) {}
  using loop::Mutator::mutate;
  Expr mutate(const Expr& e) override {
    if (e.defined() && e.kind() == ExprKind::Var && e.node().name == name_) return value_;
    return mutate_children(e);
  }
  Stmt mutate(const Stmt& s) override {
    if (s.defined() && s.kind() == StmtKind::For && s.node().var.node().name == name_) {
      const loop::StmtNode& n = s.node();
      const Expr lo = mutate(n.min), ext = mutate(n.extent);
      if (lo.same_as(n.min) && ext.same_as(n.extent)) return s;
      return Stmt::for_loop(n.var, lo, ext, n.for_kind, n.body[0]);
    }
    return mutate_children(s);
  }

 private:
  std::string name_;
  Expr value_;
};

sym::Cmp to_sym_cmp(loop::CmpOp c) {
  switch (c) {
    case loop::CmpOp::EQ: return sym::Cmp::EQ;
    case loop::CmpOp::NE: return sym::Cmp::NE;
    case loop::CmpOp::LT: return sym::Cmp::LT;
    case loop::CmpOp::LE: return sym::Cmp::LE;
    case loop::CmpOp::GT: return sym::Cmp::GT;
    case loop::CmpOp::GE: return sym::Cmp::GE;
  }
  return sym::Cmp::EQ;
}

bool is_bool_imm(const Expr& e) { return e.kind() == ExprKind::IntImm && e.dtype() == DType::boolean; }
bool bool_value(const Expr& e) { return e.node().int_value != 0; }
Expr bool_imm(bool v) { return Expr::int_imm(v ? 1 : 0, DType::boolean); }

class Simplifier : public loop::Mutator {
 public:
  Simplifier(const loop::PrimFunc& f, bool truncating) : truncating_(truncating) {
    // Dims are sizes; the bound also keeps interval arithmetic away from overflow.
    for (const auto& d : f.dims) ranges_[d.node().name] = sym::Range{0, kMaxDimVarValue};
  }

  using loop::Mutator::mutate;

  Expr mutate(const Expr& e) override {
    if (!e.defined()) return e;
    // A whole index expression is simplified at once (not node by node: that would be
    // quadratic and could undo the canonical form of a sum).
    if (const auto s = to_sym(e)) {
      const sym::Expr simple = simplify(*s);
      return simple == *s ? e : from_sym(simple);
    }
    const Expr m = mutate_children(e);
    const loop::ExprNode& n = m.node();
    switch (n.kind) {
      case ExprKind::Compare: {
        const auto a = to_sym(n.operands[0]), b = to_sym(n.operands[1]);
        if (!a || !b) break;
        const sym::Truth t = prove(to_sym_cmp(n.cmp), *a, *b);
        if (t != sym::Truth::Unknown) return bool_imm(t == sym::Truth::True);
        break;
      }
      case ExprKind::Not:
        if (is_bool_imm(n.operands[0])) return bool_imm(!bool_value(n.operands[0]));
        break;
      case ExprKind::Binary:
        if ((n.bin == BinOp::FloorDiv || n.bin == BinOp::FloorMod) && truncating_) {
          return truncating_division(m);
        }
        if (n.bin == BinOp::And || n.bin == BinOp::Or) {
          // Expressions have no side effects, so the other operand may go.
          const bool absorbing = n.bin == BinOp::Or;  // x || true == true; x && false == false
          for (int k = 0; k < 2; ++k) {
            if (!is_bool_imm(n.operands[k])) continue;
            return bool_value(n.operands[k]) == absorbing ? n.operands[k] : n.operands[1 - k];
          }
        }
        break;
      case ExprKind::Select:
        if (is_bool_imm(n.operands[0])) return bool_value(n.operands[0]) ? n.operands[1] : n.operands[2];
        break;
      default: break;
    }
    return m;
  }

  Stmt mutate(const Stmt& s) override {
    if (!s.defined()) return s;
    const loop::StmtNode& n = s.node();
    if (n.kind == StmtKind::IfThenElse) {
      const Expr c = mutate(n.value);
      if (is_bool_imm(c)) {
        if (bool_value(c)) return mutate(n.body[0]);
        return n.body.size() > 1 ? mutate(n.body[1]) : Stmt::seq({});
      }
      const Stmt then_case = mutate(n.body[0]);
      const Stmt else_case = n.body.size() > 1 ? mutate(n.body[1]) : Stmt();
      if (c.same_as(n.value) && then_case.same_as(n.body[0]) && (n.body.size() < 2 || else_case.same_as(n.body[1]))) {
        return s;
      }
      return Stmt::if_then_else(c, then_case, else_case);
    }
    if (n.kind != StmtKind::For) return mutate_children(s);
    const Expr lo = mutate(n.min), ext = mutate(n.extent);
    if (ext.kind() == ExprKind::IntImm && ext.node().int_value <= 0) return Stmt::seq({});
    if (ext.is_int_imm(1)) return mutate(substitute_var(n.body[0], n.var.node().name, lo));
    const std::string& var = n.var.node().name;
    const auto saved = ranges_.find(var) == ranges_.end() ? std::nullopt : std::optional<sym::Range>(ranges_.at(var));
    ranges_.erase(var);
    if (const auto r = var_range(lo, ext)) ranges_[var] = *r;
    const Stmt body = mutate(n.body[0]);
    ranges_.erase(var);
    if (saved) ranges_[var] = *saved;
    if (lo.same_as(n.min) && ext.same_as(n.extent) && body.same_as(n.body[0])) return s;
    return Stmt::for_loop(n.var, lo, ext, n.for_kind, body);
  }

 private:
  // The values the loop variable takes while the body runs: [min.lo, min.hi + extent.hi - 1].
  std::optional<sym::Range> var_range(const Expr& lo, const Expr& ext) const {
    const auto l = to_sym(lo), x = to_sym(ext);
    if (!l || !x) return std::nullopt;
    const sym::Interval li = sym::bounds(*l, ranges_), xi = sym::bounds(*x, ranges_);
    constexpr int64_t kLimit = int64_t{1} << 61;  // far from overflow when added
    if (!li.lo_finite() || !li.hi_finite() || !xi.hi_finite()) return std::nullopt;
    if (li.lo < -kLimit || li.hi > kLimit || xi.hi > kLimit || xi.hi < 1) return std::nullopt;
    return sym::Range{li.lo, std::max(li.lo, li.hi + xi.hi - 1)};
  }

  sym::Expr simplify(const sym::Expr& e) const {
    try {
      return sym::simplify(e, ranges_);
    } catch (const UserError&) {
      return e;  // e.g. a constant overflow: keep the expression as written
    }
  }
  sym::Truth prove(sym::Cmp c, const sym::Expr& a, const sym::Expr& b) const {
    try {
      return sym::prove(c, a, b, ranges_);
    } catch (const UserError&) {
      return sym::Truth::Unknown;
    }
  }

  sym::Ranges ranges_;
  bool truncating_;  // fault floor-div-as-trunc-div
};

}  // namespace

Stmt substitute_var(const Stmt& s, const std::string& name, const Expr& value) {
  Substituter sub(name, value);
  return sub.mutate(s);
}

loop::Module loop_simplify(const loop::Module& m, const CompileContext& compile) {
  return loop::with_bodies(m, [&](const loop::PrimFunc& f) {
    return Simplifier(f, compile.fault(kFloorDivAsTruncDiv)).mutate(f.body);
  });
}

}  // namespace difftest::passes
