// What the schedule rules share: the matcher for the reduction nests LegalizeOps writes
// (lowering.h `reduce_into` inside a `loop_nest`), substitution, and loop construction with
// constant folding, so that constant shapes give loops without dead tails.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/loop/ir.h"
#include "compiler/loop/visitor.h"

namespace difftest::passes::schedule {

// for s0 in [0, e0) serial { ... for sN in [0, eN) serial {
//   alloc acc: T[1] local { acc[0] = init; for k in [0, K) serial { acc[0] = step }; tail }
// } }
struct ReductionNest {
  std::vector<loop::Stmt> spatial;  // the For statements, outermost first
  loop::Stmt alloc;                 // the per-output allocation (everything inside the nest)
  loop::Buffer acc;
  loop::Expr init;
  loop::Expr k;
  loop::Expr k_extent;
  loop::Expr step;  // stored to acc[0] in the k loop
  loop::Stmt tail;  // after the k loop; reads acc[0]
};

// The nest, when `s` has exactly that form (K and every extent free of the nest's variables).
std::optional<ReductionNest> match_reduction(const loop::Stmt& s);

// step = combiner(acc[0], term) with term free of acc: the combiner and the term.
struct Fold {
  loop::BinOp op;
  loop::Expr term;
};
std::optional<Fold> match_fold(const ReductionNest& n);

using loop::loads_in;
using loop::uses_var;
bool uses_buffer(const loop::Expr& e, const loop::Buffer& b);
bool uses_buffer(const loop::Stmt& s, const loop::Buffer& b);
bool structurally_equal(const loop::Expr& a, const loop::Expr& b);

// Replaces variables by name and redirects every access of `from` to `to[to_index]`.
struct Substitution {
  std::map<std::string, loop::Expr> vars;
  loop::Buffer from, to;
  loop::Expr to_index;
};
loop::Expr substitute(const loop::Expr& e, const Substitution& sub);
loop::Stmt substitute(const loop::Stmt& s, const Substitution& sub);

// Index arithmetic that folds immediates (so constant shapes print as numbers).
loop::Expr add(const loop::Expr& a, const loop::Expr& b);
loop::Expr sub(const loop::Expr& a, const loop::Expr& b);
loop::Expr mul(const loop::Expr& a, const loop::Expr& b);
loop::Expr div(const loop::Expr& a, int64_t b);
bool is_zero(const loop::Expr& e);
bool is_const(const loop::Expr& e);

// `for v in [min, min + extent) kind { body }`, or nothing (an empty Seq) when the extent is 0.
loop::Stmt make_for(const loop::Expr& v, const loop::Expr& min, const loop::Expr& extent, loop::ForKind kind,
                    loop::Stmt body);
// The loops of `loops` (outermost first, their vars, ranges and kinds) around `body`.
loop::Stmt rewrap(const std::vector<loop::Stmt>& loops, loop::Stmt body);
// The same loop with another kind.
loop::Stmt with_kind(const loop::Stmt& f, loop::ForKind kind);

// What follows the vector loop of a split: the serial tail, or (fault split-no-guard-symbolic,
// ScheduleElementwise's) none for a symbolic extent, as a split whose divisibility check trusts
// a hint.
enum class Tail { Kept, DroppedWhenSymbolic };
// [0, extent) as `for o in [0, extent // lanes) outer_kind { for l in [0, lanes) vectorized {
// body(o * lanes + l) } }` then a serial tail over the rest.
loop::Stmt split_vectorized(const std::string& name, const loop::Expr& extent, int64_t lanes, loop::ForKind outer_kind,
                            const std::function<loop::Stmt(const loop::Expr&)>& body, Tail tail = Tail::Kept);

// The body of the function or, for a sequence at the top, of each of its items: rewritten by
// `rule` (nullopt: left as is). The module comes back identical when nothing matched.
loop::Module apply_rule(const loop::Module& m, const std::function<std::optional<loop::Stmt>(const loop::Stmt&)>& rule);

// The empty statement, for the parts of a schedule a constant shape makes vanish.
loop::Stmt nothing();


// The nest's per-output allocation with the reduction split over lanes * chains partial
// accumulators (k = ko * lanes * chains + w * lanes + l; l vectorized, w unrolled, so `chains`
// vectors accumulate independently), a serial tail for the remainder of K, and a final combine
// of the partials with the fold's operator. Needs init to be the operator's identity for Add
// (max and min are idempotent, so any init works); nullopt otherwise.
std::optional<loop::Stmt> split_reduction_lanes(const ReductionNest& n, const Fold& f, int64_t lanes,
                                                int64_t chains = 1);

// c when a term of `index` (a sum) is k // c: c consecutive k share one element (packed
// sub-byte weights); 1 otherwise.
int64_t packing_factor(const loop::Expr& index, const std::string& k);

// Whether every term of `index` (a sum) that uses k is k itself or k // c: consecutive k read
// (nearly) consecutive elements.
bool unit_stride(const loop::Expr& index, const std::string& k);

// Vector lanes of the target's widest register for an accumulator dtype.
int64_t vector_lanes(const target::Target& target, DType acc);

}  // namespace difftest::passes::schedule
