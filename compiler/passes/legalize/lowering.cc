#include "compiler/passes/legalize/lowering.h"

#include <fmt/format.h>

#include <map>
#include <mutex>

#include "compiler/support/diagnostics.h"
#include "compiler/ops/op.h"

namespace difftest::passes {

loop::Expr to_loop(const sym::Expr& e) {
  switch (e.op()) {
    case sym::Op::Const: return loop::Expr(e.value());
    case sym::Op::Var: return loop::Expr::var(e.name());
    case sym::Op::Add: return to_loop(e.a()) + to_loop(e.b());
    case sym::Op::Sub: return to_loop(e.a()) - to_loop(e.b());
    case sym::Op::Mul: return to_loop(e.a()) * to_loop(e.b());
    case sym::Op::FloorDiv: return loop::floordiv(to_loop(e.a()), to_loop(e.b()));
    case sym::Op::FloorMod: return loop::floormod(to_loop(e.a()), to_loop(e.b()));
    case sym::Op::Min: return loop::min(to_loop(e.a()), to_loop(e.b()));
    case sym::Op::Max: return loop::max(to_loop(e.a()), to_loop(e.b()));
  }
  return {};
}

std::vector<loop::Expr> to_loop(const std::vector<sym::Expr>& dims) {
  std::vector<loop::Expr> out;
  for (const auto& d : dims) out.push_back(to_loop(d));
  return out;
}

DType LowerContext::acc(DType otherwise) const {
  if (!binding.op().find_attr("acc")) return otherwise;
  return attrs().get_opt_dtype("acc").value_or(otherwise);
}

loop::Expr LowerContext::fresh_var(const std::string& hint) { return loop::Expr::var(fmt::format("{}{}", hint, next_var++)); }

loop::Buffer LowerContext::scratch(const std::string& hint, DType t, std::vector<loop::Expr> shape) {
  return loop::Buffer::make(fmt::format("{}{}", hint, next_var++), t, std::move(shape));
}

const LoweringTable& lowerings() {
  static const LoweringTable table = DIFFTEST_BUILD_OP_TABLE(LoweringTable, "lowering", lowerings);
  return table;
}

const Lowering* find_lowering(const std::string& op) { return lowerings().find(op); }

loop::Expr flat_index(const std::vector<loop::Expr>& idx, const std::vector<loop::Expr>& shape) {
  DT_CHECK(idx.size() == shape.size(), "flat_index: rank mismatch");
  loop::Expr flat = 0;
  for (size_t d = 0; d < idx.size(); ++d) {
    flat = d == 0 ? idx[0] : flat * shape[d] + idx[d];
  }
  return flat;
}

loop::Stmt loop_nest(LowerContext& c, const std::vector<loop::Expr>& extents,
                     const std::function<loop::Stmt(const std::vector<loop::Expr>&)>& body) {
  std::vector<loop::Expr> vars;
  for (size_t d = 0; d < extents.size(); ++d) vars.push_back(c.fresh_var("i"));
  loop::Stmt s = body(vars);
  for (size_t d = extents.size(); d-- > 0;) s = loop::Stmt::for_loop(vars[d], 0, extents[d], loop::ForKind::Serial, s);
  return s;
}

std::vector<loop::Expr> broadcast_index(const std::vector<loop::Expr>& out_idx, const std::vector<loop::Expr>& in_shape) {
  DT_CHECK(in_shape.size() <= out_idx.size(), "broadcast_index: operand has more dims than the result");
  const size_t lead = out_idx.size() - in_shape.size();
  std::vector<loop::Expr> idx;
  for (size_t d = 0; d < in_shape.size(); ++d) idx.push_back(in_shape[d].is_int_imm(1) ? loop::Expr(0) : out_idx[lead + d]);
  return idx;
}

loop::Stmt reduce_into(LowerContext& c, DType t, const loop::Expr& init, const loop::Expr& extent,
                       const std::function<loop::Expr(const loop::Expr& acc, const loop::Expr& k)>& step,
                       const std::function<loop::Stmt(const loop::Expr& acc)>& then) {
  const loop::Buffer acc = c.scratch("acc", t);
  const loop::Expr k = c.fresh_var("k");
  loop::Stmt body = loop::Stmt::seq({
      loop::Stmt::store(acc, 0, init),
      loop::Stmt::for_loop(k, 0, extent, loop::ForKind::Serial, loop::Stmt::store(acc, 0, step(acc[0], k))),
      then(acc[0]),
  });
  return loop::Stmt::allocate(acc, loop::Scope::Local, body);
}

int normalized_axis(int64_t axis, size_t rank) {
  const auto r = static_cast<int64_t>(rank);
  const int64_t a = axis < 0 ? axis + r : axis;
  DT_CHECK(a >= 0 && a < r, fmt::format("axis {} out of range for rank {}", axis, rank));
  return static_cast<int>(a);
}

}  // namespace difftest::passes
