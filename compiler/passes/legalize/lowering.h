// What an op's lowering sees, and the helpers lowerings share.
//
// A lowering writes the op's semantics (docs/ops.md) as straightforward loop nests over the
// symbolic shapes: no specialization, no scheduling. One file per op family, mirroring
// compiler/ops/.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "compiler/context/compile_context.h"
#include "compiler/ir/ir.h"
#include "compiler/loop/ir.h"
#include "compiler/ops/op_table.h"

namespace difftest::passes {

// A symbolic dim as a loop IR i64 expression.
loop::Expr to_loop(const sym::Expr& e);
std::vector<loop::Expr> to_loop(const std::vector<sym::Expr>& dims);

struct LowerContext {
  const Binding& binding;
  const CompileContext& compile;  // the target, the test faults: `compile.fault(kName)`
  std::vector<loop::Buffer> in;   // one per operand, in order
  std::vector<loop::Buffer> out;  // one per result
  int next_var = 0;

  const Attrs& attrs() const { return binding.attrs(); }
  DType in_dtype(size_t i) const { return in.at(i).dtype(); }
  DType out_dtype(size_t i = 0) const { return out.at(i).dtype(); }
  const std::vector<loop::Expr>& in_shape(size_t i) const { return in.at(i).shape(); }
  const std::vector<loop::Expr>& out_shape(size_t i = 0) const { return out.at(i).shape(); }
  // The declared accumulator dtype (`acc`), or `otherwise` when absent.
  DType acc(DType otherwise) const;
  loop::Expr fresh_var(const std::string& hint);        // a new i64 loop variable
  loop::Buffer scratch(const std::string& hint, DType t, std::vector<loop::Expr> shape = {1});
};

using Lowering = std::function<loop::Stmt(LowerContext&)>;
// Every op's lowering, registered per family (compiler/ops/op_table.h).
using LoweringTable = OpTable<Lowering>;
const LoweringTable& lowerings();
const Lowering* find_lowering(const std::string& op);

// Registration, one function per family file.
void register_elementwise_lowerings(LoweringTable& t);
void register_reduction_lowerings(LoweringTable& t);
void register_linalg_lowerings(LoweringTable& t);
void register_normalization_lowerings(LoweringTable& t);
void register_shape_lowerings(LoweringTable& t);
void register_creation_lowerings(LoweringTable& t);
void register_attention_lowerings(LoweringTable& t);
void register_quantization_lowerings(LoweringTable& t);
void register_conv_lowerings(LoweringTable& t);

// ------------------------------------------------------------------------------- helpers

// Row-major flat index of `idx` in a buffer of `shape`.
loop::Expr flat_index(const std::vector<loop::Expr>& idx, const std::vector<loop::Expr>& shape);

// Serial loops over `extents` (outermost first) around body(indices).
loop::Stmt loop_nest(LowerContext& c, const std::vector<loop::Expr>& extents,
                     const std::function<loop::Stmt(const std::vector<loop::Expr>&)>& body);

// The index into an operand of `in_shape` that NumPy broadcasting maps output index `out_idx`
// (of a shape with at least as many dims) to: trailing dims aligned, size-1 dims pinned to 0.
std::vector<loop::Expr> broadcast_index(const std::vector<loop::Expr>& out_idx, const std::vector<loop::Expr>& in_shape);

// `acc[0] = init; for k in [0, extent): acc[0] = step(acc[0], k); then(acc[0])` with a local
// scalar accumulator of dtype `t`.
loop::Stmt reduce_into(LowerContext& c, DType t, const loop::Expr& init, const loop::Expr& extent,
                       const std::function<loop::Expr(const loop::Expr& acc, const loop::Expr& k)>& step,
                       const std::function<loop::Stmt(const loop::Expr& acc)>& then);

// Axis attribute normalized against a rank (negative counts from the end).
int normalized_axis(int64_t axis, size_t rank);

}  // namespace difftest::passes
