// Helpers shared by the op families' shape and dtype inference. Every check proves facts
// about symbolic dims under the program's variable ranges; "cannot prove" is an error, so an
// accepted program is well-typed for every binding in range.
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include "compiler/ops/op.h"

namespace difftest::ops {

template <typename... Args>
[[noreturn]] void fail(const InferContext& ctx, ErrorKind kind, fmt::format_string<Args...> f, Args&&... args) {
  throw UserError(kind, ctx.op.name + ": " + fmt::format(f, std::forward<Args>(args)...));
}

sym::Expr simp(const InferContext& ctx, const sym::Expr& e);
bool provably_equal(const InferContext& ctx, const sym::Expr& a, const sym::Expr& b);
bool provably_ge(const InferContext& ctx, const sym::Expr& a, const sym::Expr& b);
std::string shape_str(const std::vector<sym::Expr>& shape);

// Requires dims a and b to be provably equal (error names what they are).
void require_equal_dims(const InferContext& ctx, const sym::Expr& a, const sym::Expr& b, const std::string& what);

const TensorType& input(const InferContext& ctx, size_t i);
bool has_input(const InferContext& ctx, size_t i);
void require_float(const InferContext& ctx, size_t i);
void require_dtype(const InferContext& ctx, size_t i, DType t);
void require_rank(const InferContext& ctx, size_t i, int rank);
void require_min_rank(const InferContext& ctx, size_t i, int rank);
void require_same_dtype(const InferContext& ctx, size_t i, size_t j);

// Normalizes an axis in [-rank, rank) to [0, rank).
int normalize_axis(const InferContext& ctx, int64_t axis, int rank, const char* attr);

// NumPy broadcasting: dims align from the right; a dim broadcasts when it is the constant 1,
// otherwise the two dims must be provably equal.
std::vector<sym::Expr> broadcast_shapes(const InferContext& ctx, const std::vector<sym::Expr>& a,
                                        const std::vector<sym::Expr>& b);

// Product of dims, simplified.
sym::Expr num_elements(const InferContext& ctx, const std::vector<sym::Expr>& shape);

// The accumulator dtype of an op with an optional `acc` attribute (absent: the input dtype).
// A declared accumulator narrower than the input is refused.
DType accumulator(const InferContext& ctx, DType input);

// Attribute schema shorthands.
AttrSpec attr_int(std::string name, int64_t def, std::string doc);
AttrSpec attr_int_required(std::string name, std::string doc);
AttrSpec attr_float(std::string name, double def, std::string doc);
AttrSpec attr_float_required(std::string name, std::string doc);
AttrSpec attr_bool(std::string name, bool def, std::string doc);
AttrSpec attr_string(std::string name, std::string def, std::vector<std::string> choices, std::string doc);
AttrSpec attr_string_required(std::string name, std::vector<std::string> choices, std::string doc);
AttrSpec attr_dtype(std::string name, DType def, std::string doc);
AttrSpec attr_opt_dtype(std::string name, std::string doc);
AttrSpec attr_ints(std::string name, std::vector<int64_t> def, std::string doc);
AttrSpec attr_sym(std::string name, sym::Expr def, std::string doc);
AttrSpec attr_sym_required(std::string name, std::string doc);
AttrSpec attr_syms_required(std::string name, std::string doc);
AttrSpec attr_acc();

// Families register themselves from op_registry.cc.
void register_elementwise_ops(OpRegistry& r);
void register_reduction_ops(OpRegistry& r);
void register_linalg_ops(OpRegistry& r);
void register_normalization_ops(OpRegistry& r);
void register_shape_ops(OpRegistry& r);
void register_creation_ops(OpRegistry& r);
void register_attention_ops(OpRegistry& r);
void register_quantization_ops(OpRegistry& r);
void register_conv_ops(OpRegistry& r);

}  // namespace difftest::ops
