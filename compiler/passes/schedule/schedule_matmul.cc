#include "compiler/passes/schedule/schedule_matmul.h"

#include <algorithm>
#include <functional>

#include "compiler/faults/faults.h"
#include "compiler/passes/schedule/common.h"

namespace difftest::passes {

// Test faults of this file (docs/faults.md): off unless switched on.

const faults::Fault kMatmulVectorTailDropped({
    .name = "matmul-vector-tail-dropped",
    .pass = "ScheduleMatmul",
    .description = "ScheduleMatmul leaves out the column tail after the last full 2-vector tile, so output columns "
        "past N // nr * nr of the tiled rows are never written when N is not a multiple of the tile width: a GEMM "
        "microkernel written for N a multiple of the vector width, with its scalar tail lost",
    .models = "a GEMM microkernel written for N a multiple of the vector width whose scalar tail is lost",
});

const faults::Fault kReductionInitPerTile({
    .name = "reduction-init-per-tile",
    .pass = "ScheduleMatmul",
    .description = "ScheduleMatmul keeps one row of accumulators per register tile, zeroed once before the tile's "
        "rows, so row r of every tile starts from row r - 1's finished sums: the accumulator initialisation hoisted "
        "out of the row loop of a hand-tiled GEMM",
    .models = "the accumulator initialisation hoisted out of the row loop of a hand-tiled GEMM",
});

namespace {

using loop::Expr;
using loop::ForKind;
using loop::Stmt;
using namespace schedule;

constexpr int64_t kRows = 4;  // MR: rows per tile (A elements broadcast per K step)

// MR rows of two accumulator vectors each, plus the two vectors of B and A's broadcast, stay
// in the target's vector registers.
int64_t tile_rows(const target::Target& target) {
  return std::max<int64_t>(1, std::min<int64_t>(kRows, (target.vector_registers - 3) / 2));
}

// term = a * b with a free of the column and b free of the row (or the other way round), both
// reading along K: the dot product of a matmul or linear, whatever the operands' expressions.
bool is_dot_term(const Expr& term, const std::string& i, const std::string& j, const std::string& k) {
  if (term.kind() != loop::ExprKind::Binary || term.node().bin != loop::BinOp::Mul) return false;
  const Expr& a = term.node().operands[0];
  const Expr& b = term.node().operands[1];
  if (!uses_var(a, k) || !uses_var(b, k)) return false;
  return (!uses_var(a, j) && !uses_var(b, i)) || (!uses_var(a, i) && !uses_var(b, j));
}

std::optional<Stmt> tile(const Stmt& s, const target::Target& target, const CompileContext& compile) {
  const auto n = match_reduction(s);
  if (!n || n->spatial.size() < 2) return std::nullopt;
  const auto fold = match_fold(*n);
  const Stmt& li = n->spatial[n->spatial.size() - 2];
  const Stmt& lj = n->spatial.back();
  const std::string i = li.node().var.node().name, j = lj.node().var.node().name, k = n->k.node().name;
  if (!fold || fold->op != loop::BinOp::Add || !is_dot_term(fold->term, i, j, k)) return std::nullopt;
  const Expr& m_ext = li.node().extent;
  const Expr& n_ext = lj.node().extent;
  int64_t mr = tile_rows(target), nr = 2 * vector_lanes(target, n->acc.dtype());
  if (is_const(m_ext)) mr = std::min(mr, m_ext.node().int_value);
  if (is_const(n_ext)) nr = std::min(nr, n_ext.node().int_value);
  if (mr <= 0 || nr <= 0) return std::nullopt;

  const Expr io = Expr::var(i + "o"), ii = Expr::var(i + "i"), jo = Expr::var(j + "o"), ji = Expr::var(j + "i");
  const loop::Buffer acc = loop::Buffer::make(n->acc.name() + "t", n->acc.dtype(), {mr * nr});
  // Rows are unrolled here rather than marked: with constant accumulator indices LLVM keeps the
  // whole tile in registers.
  const auto over_tile = [&](const std::function<Stmt(const Substitution&, const Expr& slot)>& body) {
    std::vector<Stmt> rows;
    for (int64_t r = 0; r < mr; ++r) {
      const Expr slot = add(mul(r, nr), ji);
      const Substitution in_tile{{{i, add(mul(io, mr), r)}, {j, add(mul(jo, nr), ji)}}, n->acc, acc, slot};
      rows.push_back(Stmt::for_loop(ji, 0, nr, ForKind::Vectorized, body(in_tile, slot)));
    }
    return Stmt::seq(rows);
  };
  Stmt tile_body = Stmt::allocate(
      acc, loop::Scope::Local,
      Stmt::seq({
          over_tile([&](const Substitution& t, const Expr& slot) { return Stmt::store(acc, slot, substitute(n->init, t)); }),
          Stmt::for_loop(n->k, 0, n->k_extent, ForKind::Serial, over_tile([&](const Substitution& t, const Expr& slot) {
                           return Stmt::store(acc, slot, substitute(n->step, t));
                         })),
          over_tile([&](const Substitution& t, const Expr&) { return substitute(n->tail, t); }),
      }));

  if (compile.fault(kReductionInitPerTile)) {
    // Fault reduction-init-per-tile: one row of accumulators per tile, zeroed once before the
    // tile's rows, as a hand-written kernel that hoists `acc = 0` out of its row loop: row r
    // of the tile starts from row r - 1's finished sums.
    const loop::Buffer row_acc = loop::Buffer::make(n->acc.name() + "t", n->acc.dtype(), {nr});
    const auto at_row = [&](int64_t r) {
      return Substitution{{{i, add(mul(io, mr), r)}, {j, add(mul(jo, nr), ji)}}, n->acc, row_acc, ji};
    };
    std::vector<Stmt> body{Stmt::for_loop(ji, 0, nr, ForKind::Vectorized,
                                          Stmt::store(row_acc, ji, substitute(n->init, at_row(0))))};
    for (int64_t r = 0; r < mr; ++r) {
      body.push_back(Stmt::for_loop(
          n->k, 0, n->k_extent, ForKind::Serial,
          Stmt::for_loop(ji, 0, nr, ForKind::Vectorized, Stmt::store(row_acc, ji, substitute(n->step, at_row(r))))));
      body.push_back(Stmt::for_loop(ji, 0, nr, ForKind::Vectorized, substitute(n->tail, at_row(r))));
    }
    tile_body = Stmt::allocate(row_acc, loop::Scope::Local, Stmt::seq(std::move(body)));
  }

  const Expr m_main = mul(div(m_ext, mr), mr), n_main = mul(div(n_ext, nr), nr);
  // Columns past the last full tile, for the tile's rows: the legalized per-element code.
  const Substitution row_of_tile{{{i, add(mul(io, mr), ii)}}, {}, {}, {}};
  Stmt column_tail = make_for(
      ii, 0, mr, ForKind::Serial,
      make_for(lj.node().var, n_main, sub(n_ext, n_main), ForKind::Serial, substitute(n->alloc, row_of_tile)));
  // Fault matmul-vector-tail-dropped: the columns past the last full tile of vectors are
  // never computed, as a kernel written for N a multiple of the vector width.
  if (compile.fault(kMatmulVectorTailDropped)) column_tail = nothing();

  // Parallel: the outermost batch loop that has more than one iteration, else the row tiles.
  std::vector<Stmt> batch(n->spatial.begin(), n->spatial.end() - 2);
  bool parallel_batch = false;
  for (auto& b : batch) {
    if (!b.node().extent.is_int_imm(1)) {
      b = with_kind(b, ForKind::Parallel);
      parallel_batch = true;
      break;
    }
  }
  const Stmt row_tiles =
      make_for(io, 0, div(m_ext, mr), parallel_batch ? ForKind::Serial : ForKind::Parallel,
               Stmt::seq({make_for(jo, 0, div(n_ext, nr), ForKind::Serial, tile_body), column_tail}));
  const Stmt row_tail = make_for(li.node().var, m_main, sub(m_ext, m_main), ForKind::Serial, lj);
  return rewrap(batch, Stmt::seq({row_tiles, row_tail}));
}

}  // namespace

loop::Module schedule_matmul(const loop::Module& m, const CompileContext& compile) {
  return apply_rule(m, [&](const Stmt& s) { return tile(s, *m.target, compile); });
}

}  // namespace difftest::passes
