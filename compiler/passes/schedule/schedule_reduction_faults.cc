#include "compiler/passes/schedule/schedule_reduction_faults.h"

#include "compiler/loop/visitor.h"
#include "compiler/passes/schedule/common.h"

namespace difftest::passes {

namespace {

using loop::Expr;
using loop::Stmt;
using namespace schedule;

// schedule-reduction-tail: the scalar remainder loop (`kt`, split_reduction_lanes) stops
// one element short, as vector-remainder bugs that compute the tail as K - main - 1 do. When
// the lanes divide K the loop runs zero times either way (a negative extent: `kt < end` fails).
class ShortenTail : public loop::Mutator {
 public:
  explicit ShortenTail(std::string var) : var_(std::move(var)) {}
  using loop::Mutator::mutate;
  Stmt mutate(const Stmt& s) override {
    if (s.kind() != loop::StmtKind::For || s.node().var.node().name != var_) return mutate_children(s);
    const loop::StmtNode& l = s.node();
    return Stmt::for_loop(l.var, l.min, sub(l.extent, 1), l.for_kind, l.body[0]);
  }

 private:
  std::string var_;
};

// reduction-lane-partials-narrow: every value stored into the lanes' partial sums (`part`,
// split_reduction_lanes) is rounded to the operand dtype first, though the buffer is as wide as
// the declared accumulator: partial sums kept in half precision.
class NarrowPartials : public loop::Mutator {
 public:
  NarrowPartials(std::string part, DType narrow) : part_(std::move(part)), narrow_(narrow) {}
  using loop::Mutator::mutate;
  Stmt mutate(const Stmt& s) override {
    if (s.kind() != loop::StmtKind::Store || s.node().buffer.name() != part_) return mutate_children(s);
    const Expr& v = s.node().value;
    return Stmt::store(s.node().buffer, s.node().index, loop::cast(v.dtype(), loop::cast(narrow_, v)));
  }

 private:
  std::string part_;
  DType narrow_;
};

}  // namespace

Stmt with_tail_one_short(const Stmt& split, const std::string& tail_var) { return ShortenTail(tail_var).mutate(split); }

Stmt with_partials_rounded(const Stmt& split, const std::string& partials, DType narrow) {
  return NarrowPartials(partials, narrow).mutate(split);
}

}  // namespace difftest::passes
