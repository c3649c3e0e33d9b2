#include "compiler/passes/fuse_loops_faults.h"

#include "compiler/loop/visitor.h"

namespace difftest::passes {

namespace {

using loop::Buffer;
using loop::Expr;
using loop::ExprKind;
using loop::Stmt;

// fused-dequantize-matmul-wrong-scale: in the float loads of a producer (the scales of a
// dequantize; its packed codes are integers) a group index v // c of a producer variable
// becomes max(v // c - 1, 0), so every group after the first takes its predecessor's scale.
class StaleScale : public loop::Mutator {
 public:
  explicit StaleScale(const std::set<std::string>& vars) : vars_(vars) {}
  Expr mutate(const Expr& e) override {
    if (e.kind() == ExprKind::Load && is_float(e.dtype())) {
      in_float_load_ = true;
      Expr out = mutate_children(e);
      in_float_load_ = false;
      return out;
    }
    if (in_float_load_ && is_group_index(e)) return loop::max(e - 1, Expr(0));
    return mutate_children(e);
  }
  using loop::Mutator::mutate;

 private:
  bool is_group_index(const Expr& e) const {
    if (e.kind() != ExprKind::Binary || e.node().bin != loop::BinOp::FloorDiv) return false;
    const Expr& v = e.node().operands[0];
    const Expr& c = e.node().operands[1];
    return v.kind() == ExprKind::Var && vars_.count(v.node().name) && c.kind() == ExprKind::IntImm &&
           c.node().int_value > 1;
  }

  const std::set<std::string>& vars_;
  bool in_float_load_ = false;
};

// fused-epilogue-twice: loads of `from` read `to` instead, so a copy of an epilogue
// applies it again to what it already wrote.
class RedirectLoads : public loop::Mutator {
 public:
  RedirectLoads(std::string from, Buffer to) : from_(std::move(from)), to_(std::move(to)) {}
  Expr mutate(const Expr& e) override {
    const Expr x = mutate_children(e);
    if (x.kind() == ExprKind::Load && x.node().buffer.name() == from_) return to_[x.node().operands[0]];
    return x;
  }
  using loop::Mutator::mutate;

 private:
  std::string from_;
  Buffer to_;
};

}  // namespace

Expr with_stale_group_index(const Expr& value, const std::set<std::string>& vars) { return StaleScale(vars).mutate(value); }

Stmt with_loads_redirected(const Stmt& body, const std::string& from, const Buffer& to) {
  return RedirectLoads(from, to).mutate(body);
}

}  // namespace difftest::passes
