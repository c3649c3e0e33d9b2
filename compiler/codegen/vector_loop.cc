#include "compiler/codegen/vector_loop.h"

#include <map>

#include "compiler/loop/printer.h"
#include "compiler/loop/visitor.h"

namespace difftest::codegen {

using loop::BinOp;
using loop::Expr;
using loop::ExprKind;
using loop::Stmt;
using loop::StmtKind;

namespace {

bool collect_stores(const Stmt& s, std::vector<Stmt>& out) {
  const loop::StmtNode& n = s.node();
  if (n.kind == StmtKind::Store) {
    out.push_back(s);
    return true;
  }
  if (n.kind != StmtKind::Seq) return false;
  for (const auto& b : n.body) {
    if (!collect_stores(b, out)) return false;
  }
  return true;
}

}  // namespace

std::optional<int64_t> lane_stride(const Expr& index, const std::string& var) {
  if (!loop::uses_var(index, var)) return 0;
  const loop::ExprNode& n = index.node();
  if (n.kind == ExprKind::Var) return 1;
  if (n.kind != ExprKind::Binary) return std::nullopt;
  const auto a = lane_stride(n.operands[0], var);
  const auto b = lane_stride(n.operands[1], var);
  if (!a || !b) return std::nullopt;
  switch (n.bin) {
    case BinOp::Add: return *a + *b;
    case BinOp::Sub: return *a - *b;
    case BinOp::Mul:
      if (n.operands[0].kind() == ExprKind::IntImm) return n.operands[0].node().int_value * *b;
      if (n.operands[1].kind() == ExprKind::IntImm) return *a * n.operands[1].node().int_value;
      return std::nullopt;
    default: return std::nullopt;
  }
}

std::optional<std::vector<Stmt>> vector_loop_stores(const loop::StmtNode& f) {
  if (f.kind != StmtKind::For || f.for_kind != loop::ForKind::Vectorized) return std::nullopt;
  if (f.extent.kind() != ExprKind::IntImm) return std::nullopt;
  const int64_t lanes = f.extent.node().int_value;
  if (lanes < 2 || lanes > kMaxVectorLanes) return std::nullopt;
  std::vector<Stmt> stores;
  if (!collect_stores(f.body[0], stores)) return std::nullopt;
  const std::string& var = f.var.node().name;
  std::map<std::string, std::string> index_of;  // a stored buffer -> its one index, printed
  for (const auto& s : stores) {
    if (lane_stride(s.node().index, var) != 1) return std::nullopt;
    const auto [it, fresh] = index_of.emplace(s.node().buffer.name(), loop::print(s.node().index));
    if (!fresh && it->second != loop::print(s.node().index)) return std::nullopt;
  }
  for (const auto& s : stores) {
    for (const auto& l : loop::loads_in(s.node().value)) {
      const auto it = index_of.find(l.node().buffer.name());
      if (it != index_of.end() && it->second != loop::print(l.node().operands[0])) return std::nullopt;
    }
  }
  return stores;
}

}  // namespace difftest::codegen
