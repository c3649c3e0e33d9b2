#include "compiler/ops/infer_util.h"

#include "compiler/sym/sym_simplify.h"

namespace difftest::ops {

sym::Expr simp(const InferContext& ctx, const sym::Expr& e) { return sym::simplify(e, ctx.ranges); }

bool provably_equal(const InferContext& ctx, const sym::Expr& a, const sym::Expr& b) {
  return sym::prove_eq(a, b, ctx.ranges) == sym::Truth::True;
}

bool provably_ge(const InferContext& ctx, const sym::Expr& a, const sym::Expr& b) {
  return sym::prove_ge(a, b, ctx.ranges) == sym::Truth::True;
}

std::string shape_str(const std::vector<sym::Expr>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + sym::to_string(shape[i]);
  return out + "]";
}

void require_equal_dims(const InferContext& ctx, const sym::Expr& a, const sym::Expr& b, const std::string& what) {
  if (!provably_equal(ctx, a, b)) {
    fail(ctx, ErrorKind::Shape, "{}: {} and {} are not provably equal", what, sym::to_string(a), sym::to_string(b));
  }
}

const TensorType& input(const InferContext& ctx, size_t i) {
  DT_CHECK(i < ctx.inputs.size(), fmt::format("{}: operand {} missing after the arity check", ctx.op.name, i));
  return ctx.inputs[i];
}

bool has_input(const InferContext& ctx, size_t i) { return i < ctx.inputs.size(); }

static std::string operand_name(const InferContext& ctx, size_t i) {
  if (i < ctx.op.inputs.size() && ctx.op.inputs[i] != "...") return ctx.op.inputs[i];
  return fmt::format("operand {}", i);
}

void require_float(const InferContext& ctx, size_t i) {
  if (!is_float(input(ctx, i).dtype)) {
    fail(ctx, ErrorKind::TypeMismatch, "{} must have a float dtype, got {}", operand_name(ctx, i),
         dtype_name(input(ctx, i).dtype));
  }
}

void require_dtype(const InferContext& ctx, size_t i, DType t) {
  if (input(ctx, i).dtype != t) {
    fail(ctx, ErrorKind::TypeMismatch, "{} must be {}, got {}", operand_name(ctx, i), dtype_name(t),
         dtype_name(input(ctx, i).dtype));
  }
}

void require_rank(const InferContext& ctx, size_t i, int rank) {
  if (input(ctx, i).rank() != rank) {
    fail(ctx, ErrorKind::Shape, "{} must have rank {}, got {}", operand_name(ctx, i), rank,
         input(ctx, i).str());
  }
}

void require_min_rank(const InferContext& ctx, size_t i, int rank) {
  if (input(ctx, i).rank() < rank) {
    fail(ctx, ErrorKind::Shape, "{} must have rank >= {}, got {}", operand_name(ctx, i), rank,
         input(ctx, i).str());
  }
}

void require_same_dtype(const InferContext& ctx, size_t i, size_t j) {
  if (input(ctx, i).dtype != input(ctx, j).dtype) {
    fail(ctx, ErrorKind::TypeMismatch, "{} and {} must have the same dtype, got {} and {}", operand_name(ctx, i),
         operand_name(ctx, j), dtype_name(input(ctx, i).dtype), dtype_name(input(ctx, j).dtype));
  }
}

int normalize_axis(const InferContext& ctx, int64_t axis, int rank, const char* attr) {
  if (axis < -rank || axis >= rank) {
    fail(ctx, ErrorKind::Attribute, "{}={} is out of range for rank {}", attr, axis, rank);
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

std::vector<sym::Expr> broadcast_shapes(const InferContext& ctx, const std::vector<sym::Expr>& a,
                                        const std::vector<sym::Expr>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<sym::Expr> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const bool has_a = i < a.size(), has_b = i < b.size();
    const sym::Expr da = has_a ? a[a.size() - 1 - i] : sym::Expr(1);
    const sym::Expr db = has_b ? b[b.size() - 1 - i] : sym::Expr(1);
    sym::Expr d;
    if (!has_b || db.is_const(1)) {
      d = da;
    } else if (!has_a || da.is_const(1)) {
      d = db;
    } else if (provably_equal(ctx, da, db)) {
      d = da;
    } else {
      fail(ctx, ErrorKind::Shape, "cannot broadcast {} with {}: dims {} and {} differ and neither is 1",
           shape_str(a), shape_str(b), sym::to_string(da), sym::to_string(db));
    }
    out[rank - 1 - i] = d;
  }
  return out;
}

sym::Expr num_elements(const InferContext& ctx, const std::vector<sym::Expr>& shape) {
  sym::Expr n = 1;
  for (const auto& d : shape) n = n * d;
  return simp(ctx, n);
}

static int float_rank(DType t) {
  switch (t) {
    case DType::bf16: return 0;
    case DType::f16: return 1;
    case DType::f32: return 2;
    case DType::f64: return 3;
    default: return -1;
  }
}

DType accumulator(const InferContext& ctx, DType in) {
  auto acc = ctx.attrs.get_opt_dtype("acc");
  if (!acc) return in;
  if (!is_float(*acc) || !is_float(in)) {
    fail(ctx, ErrorKind::Attribute, "acc={} needs float operands and a float accumulator", dtype_name(*acc));
  }
  if (float_rank(*acc) < float_rank(in)) {
    fail(ctx, ErrorKind::Attribute, "acc={} is narrower than the {} operands", dtype_name(*acc), dtype_name(in));
  }
  return *acc;
}

AttrSpec attr_int(std::string name, int64_t def, std::string doc) {
  return AttrSpec{std::move(name), AttrKind::Int, false, def, {}, std::move(doc)};
}
AttrSpec attr_int_required(std::string name, std::string doc) {
  return AttrSpec{std::move(name), AttrKind::Int, true, {}, {}, std::move(doc)};
}
AttrSpec attr_float(std::string name, double def, std::string doc) {
  return AttrSpec{std::move(name), AttrKind::Float, false, def, {}, std::move(doc)};
}
AttrSpec attr_float_required(std::string name, std::string doc) {
  return AttrSpec{std::move(name), AttrKind::Float, true, {}, {}, std::move(doc)};
}
AttrSpec attr_bool(std::string name, bool def, std::string doc) {
  return AttrSpec{std::move(name), AttrKind::Bool, false, def, {}, std::move(doc)};
}
AttrSpec attr_string(std::string name, std::string def, std::vector<std::string> choices, std::string doc) {
  return AttrSpec{std::move(name), AttrKind::String, false, std::move(def), std::move(choices), std::move(doc)};
}
AttrSpec attr_string_required(std::string name, std::vector<std::string> choices, std::string doc) {
  return AttrSpec{std::move(name), AttrKind::String, true, {}, std::move(choices), std::move(doc)};
}
AttrSpec attr_dtype(std::string name, DType def, std::string doc) {
  return AttrSpec{std::move(name), AttrKind::DType, false, def, {}, std::move(doc)};
}
AttrSpec attr_opt_dtype(std::string name, std::string doc) {
  return AttrSpec{std::move(name), AttrKind::OptDType, false, std::monostate{}, {}, std::move(doc)};
}
AttrSpec attr_ints(std::string name, std::vector<int64_t> def, std::string doc) {
  return AttrSpec{std::move(name), AttrKind::IntList, false, std::move(def), {}, std::move(doc)};
}
AttrSpec attr_sym(std::string name, sym::Expr def, std::string doc) {
  return AttrSpec{std::move(name), AttrKind::Sym, false, std::move(def), {}, std::move(doc)};
}
AttrSpec attr_sym_required(std::string name, std::string doc) {
  return AttrSpec{std::move(name), AttrKind::Sym, true, {}, {}, std::move(doc)};
}
AttrSpec attr_syms_required(std::string name, std::string doc) {
  return AttrSpec{std::move(name), AttrKind::SymList, true, {}, {}, std::move(doc)};
}
AttrSpec attr_acc() {
  return attr_opt_dtype("acc",
                        "accumulator dtype of the op's sums; absent means the operand dtype. A correct "
                        "implementation never accumulates in a narrower type.");
}

}  // namespace difftest::ops
