#include "compiler/loop/ir.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "compiler/support/diagnostics.h"
#include "compiler/tensor/float_format.h"

namespace difftest::loop {

namespace {

std::shared_ptr<ExprNode> new_node(ExprKind k, DType t) {
  auto n = std::make_shared<ExprNode>();
  n->kind = k;
  n->dtype = t;
  return n;
}

void check_same(const Expr& a, const Expr& b, const char* what) {
  DT_CHECK(a.defined() && b.defined(), fmt::format("{}: undefined operand", what));
  DT_CHECK(a.dtype() == b.dtype(), fmt::format("{}: operand dtypes differ ({} vs {})", what, dtype_name(a.dtype()),
                                               dtype_name(b.dtype())));
}

// The other operand's dtype for a bare i64 immediate written next to it (`x * 2`).
std::pair<Expr, Expr> unify(const Expr& a, const Expr& b) {
  auto retype = [](const Expr& imm, DType t) {
    if (imm.kind() != ExprKind::IntImm || imm.dtype() == t) return imm;
    return is_float(t) ? Expr::float_imm(static_cast<double>(imm.node().int_value), t)
                       : Expr::int_imm(imm.node().int_value, t);
  };
  if (a.dtype() == b.dtype()) return {a, b};
  if (b.kind() == ExprKind::IntImm && b.dtype() == DType::i64) return {a, retype(b, a.dtype())};
  if (a.kind() == ExprKind::IntImm && a.dtype() == DType::i64) return {retype(a, b.dtype()), b};
  return {a, b};
}

const std::vector<std::pair<std::string, size_t>>& intrinsics() {
  static const std::vector<std::pair<std::string, size_t>> table = {
      {"exp", 1},  {"log", 1},   {"sqrt", 1},  {"tanh", 1},  {"erf", 1},   {"sin", 1},   {"cos", 1},
      {"floor", 1}, {"ceil", 1}, {"round", 1}, {"fabs", 1},  {"expm1", 1}, {"log1p", 1}, {"isnan", 1},
      {"pow", 2},   {"atan2", 2}};
  return table;
}

}  // namespace

const char* binop_symbol(BinOp op) {
  switch (op) {
    case BinOp::Add: return "+";
    case BinOp::Sub: return "-";
    case BinOp::Mul: return "*";
    case BinOp::Div: return "/";
    case BinOp::FloorDiv: return "//";
    case BinOp::FloorMod: return "%";
    case BinOp::Min: return "min";
    case BinOp::Max: return "max";
    case BinOp::And: return "&&";
    case BinOp::Or: return "||";
    case BinOp::BitAnd: return "&";
    case BinOp::BitOr: return "|";
    case BinOp::BitXor: return "^";
    case BinOp::Shl: return "<<";
    case BinOp::Shr: return ">>";
  }
  return "?";
}

const char* cmpop_symbol(CmpOp op) {
  switch (op) {
    case CmpOp::EQ: return "==";
    case CmpOp::NE: return "!=";
    case CmpOp::LT: return "<";
    case CmpOp::LE: return "<=";
    case CmpOp::GT: return ">";
    case CmpOp::GE: return ">=";
  }
  return "?";
}

const char* for_kind_name(ForKind k) {
  switch (k) {
    case ForKind::Serial: return "serial";
    case ForKind::Parallel: return "parallel";
    case ForKind::Vectorized: return "vectorized";
    case ForKind::Unrolled: return "unrolled";
  }
  return "?";
}

const char* scope_name(Scope s) { return s == Scope::Local ? "local" : "global"; }

bool is_intrinsic(const std::string& name, size_t arity) {
  return std::any_of(intrinsics().begin(), intrinsics().end(),
                     [&](const auto& e) { return e.first == name && e.second == arity; });
}

const std::vector<std::string>& intrinsic_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& e : intrinsics()) v.push_back(e.first);
    return v;
  }();
  return names;
}

// ------------------------------------------------------------------------------ Expr

Expr::Expr(int64_t v) : Expr(int_imm(v)) {}

ExprKind Expr::kind() const { return node_->kind; }
DType Expr::dtype() const { return node_->dtype; }
bool Expr::is_int_imm(int64_t v) const { return defined() && kind() == ExprKind::IntImm && node_->int_value == v; }

Expr Expr::int_imm(int64_t v, DType t) {
  DT_CHECK(is_int(t) || is_bool(t), "int_imm needs an integer or bool dtype");
  DT_CHECK(v >= int_min(t) && v <= int_max(t), fmt::format("immediate {} out of range for {}", v, dtype_name(t)));
  auto n = new_node(ExprKind::IntImm, t);
  n->int_value = v;
  return Expr(std::move(n));
}

Expr Expr::float_imm(double v, DType t) {
  DT_CHECK(is_float(t), "float_imm needs a float dtype");
  DT_CHECK(std::isnan(v) || round_to_float_dtype(v, t) == v,
           fmt::format("immediate {} is not representable in {}", v, dtype_name(t)));
  auto n = new_node(ExprKind::FloatImm, t);
  n->float_value = v;
  return Expr(std::move(n));
}

Expr Expr::var(const std::string& name, DType t) {
  DT_CHECK(!name.empty(), "a variable needs a name");
  auto n = new_node(ExprKind::Var, t);
  n->name = name;
  return Expr(std::move(n));
}

Expr Expr::load(const Buffer& b, const Expr& index) {
  DT_CHECK(b.defined() && index.defined() && index.dtype() == DType::i64, "load needs a buffer and an i64 index");
  auto n = new_node(ExprKind::Load, b.dtype());
  n->buffer = b;
  n->operands = {index};
  return Expr(std::move(n));
}

Expr Expr::binary(BinOp op, const Expr& a, const Expr& b) {
  check_same(a, b, binop_symbol(op));
  const DType t = a.dtype();
  switch (op) {
    case BinOp::Div: DT_CHECK(is_float(t), "'/' is for floats; use // for integers"); break;
    case BinOp::And:
    case BinOp::Or: DT_CHECK(is_bool(t), "&& and || need bool operands"); break;
    case BinOp::BitAnd:
    case BinOp::BitOr:
    case BinOp::BitXor:
    case BinOp::Shl:
    case BinOp::Shr: DT_CHECK(is_int(t), "bit operations need integer operands"); break;
    default: DT_CHECK(!is_bool(t), fmt::format("'{}' does not take bool operands", binop_symbol(op)));
  }
  auto n = new_node(ExprKind::Binary, t);
  n->bin = op;
  n->operands = {a, b};
  return Expr(std::move(n));
}

Expr Expr::compare(CmpOp op, const Expr& a, const Expr& b) {
  check_same(a, b, cmpop_symbol(op));
  auto n = new_node(ExprKind::Compare, DType::boolean);
  n->cmp = op;
  n->operands = {a, b};
  return Expr(std::move(n));
}

Expr Expr::logical_not(const Expr& a) {
  DT_CHECK(a.defined() && is_bool(a.dtype()), "! needs a bool operand");
  auto n = new_node(ExprKind::Not, DType::boolean);
  n->operands = {a};
  return Expr(std::move(n));
}

Expr Expr::cast(DType t, const Expr& a) {
  DT_CHECK(a.defined(), "cast of an undefined expression");
  if (a.dtype() == t) return a;
  auto n = new_node(ExprKind::Cast, t);
  n->operands = {a};
  return Expr(std::move(n));
}

Expr Expr::select(const Expr& cond, const Expr& t, const Expr& f) {
  DT_CHECK(cond.defined() && is_bool(cond.dtype()), "select needs a bool condition");
  check_same(t, f, "select");
  auto n = new_node(ExprKind::Select, t.dtype());
  n->operands = {cond, t, f};
  return Expr(std::move(n));
}

Expr Expr::call(const std::string& intrinsic, std::vector<Expr> args) {
  DT_CHECK(is_intrinsic(intrinsic, args.size()), fmt::format("unknown intrinsic {}/{}", intrinsic, args.size()));
  for (const auto& a : args) check_same(args[0], a, intrinsic.c_str());
  DT_CHECK(is_float(args[0].dtype()), fmt::format("intrinsic {} needs float operands", intrinsic));
  auto n = new_node(ExprKind::Call, intrinsic == "isnan" ? DType::boolean : args[0].dtype());
  n->name = intrinsic;
  n->operands = std::move(args);
  return Expr(std::move(n));
}

Expr operator+(const Expr& a, const Expr& b) { auto [x, y] = unify(a, b); return Expr::binary(BinOp::Add, x, y); }
Expr operator-(const Expr& a, const Expr& b) { auto [x, y] = unify(a, b); return Expr::binary(BinOp::Sub, x, y); }
Expr operator*(const Expr& a, const Expr& b) { auto [x, y] = unify(a, b); return Expr::binary(BinOp::Mul, x, y); }
Expr operator/(const Expr& a, const Expr& b) { auto [x, y] = unify(a, b); return Expr::binary(BinOp::Div, x, y); }
Expr operator-(const Expr& a) {
  // Floats: a product by -1 flips the sign of zero too, as IEEE negation does.
  return is_float(a.dtype()) ? a * imm(-1, a.dtype()) : imm(0, a.dtype()) - a;
}
Expr operator<(const Expr& a, const Expr& b) { auto [x, y] = unify(a, b); return Expr::compare(CmpOp::LT, x, y); }
Expr operator<=(const Expr& a, const Expr& b) { auto [x, y] = unify(a, b); return Expr::compare(CmpOp::LE, x, y); }
Expr operator>(const Expr& a, const Expr& b) { auto [x, y] = unify(a, b); return Expr::compare(CmpOp::GT, x, y); }
Expr operator>=(const Expr& a, const Expr& b) { auto [x, y] = unify(a, b); return Expr::compare(CmpOp::GE, x, y); }
Expr operator==(const Expr& a, const Expr& b) { auto [x, y] = unify(a, b); return Expr::compare(CmpOp::EQ, x, y); }
Expr operator!=(const Expr& a, const Expr& b) { auto [x, y] = unify(a, b); return Expr::compare(CmpOp::NE, x, y); }
Expr operator&&(const Expr& a, const Expr& b) { return Expr::binary(BinOp::And, a, b); }
Expr operator||(const Expr& a, const Expr& b) { return Expr::binary(BinOp::Or, a, b); }
Expr operator!(const Expr& a) { return Expr::logical_not(a); }
Expr floordiv(const Expr& a, const Expr& b) { auto [x, y] = unify(a, b); return Expr::binary(BinOp::FloorDiv, x, y); }
Expr floormod(const Expr& a, const Expr& b) { auto [x, y] = unify(a, b); return Expr::binary(BinOp::FloorMod, x, y); }
Expr min(const Expr& a, const Expr& b) { auto [x, y] = unify(a, b); return Expr::binary(BinOp::Min, x, y); }
Expr max(const Expr& a, const Expr& b) { auto [x, y] = unify(a, b); return Expr::binary(BinOp::Max, x, y); }
Expr select(const Expr& c, const Expr& t, const Expr& f) { auto [x, y] = unify(t, f); return Expr::select(c, x, y); }
Expr cast(DType t, const Expr& a) { return Expr::cast(t, a); }

Expr imm(double v, DType t) {
  if (is_float(t)) return Expr::float_imm(round_to_float_dtype(v, t), t);
  DT_CHECK(std::nearbyint(v) == v, fmt::format("integer immediate {} is not integral", v));
  return Expr::int_imm(static_cast<int64_t>(v), t);
}

// ------------------------------------------------------------------------------ Buffer

Buffer Buffer::make(std::string name, DType dtype, std::vector<Expr> shape) {
  DT_CHECK(!name.empty(), "a buffer needs a name");
  for (const auto& d : shape) DT_CHECK(d.defined() && d.dtype() == DType::i64, "buffer extents are i64");
  return Buffer(std::make_shared<const BufferNode>(BufferNode{std::move(name), dtype, std::move(shape)}));
}

const std::string& Buffer::name() const { return node_->name; }
DType Buffer::dtype() const { return node_->dtype; }
const std::vector<Expr>& Buffer::shape() const { return node_->shape; }

Expr Buffer::numel() const {
  Expr n = 1;
  for (const auto& d : shape()) n = n.is_int_imm(1) ? d : (d.is_int_imm(1) ? n : n * d);
  return n;
}

// ------------------------------------------------------------------------------ Stmt

namespace {

std::shared_ptr<StmtNode> stmt_node(StmtKind k) {
  auto n = std::make_shared<StmtNode>();
  n->kind = k;
  return n;
}

}  // namespace

StmtKind Stmt::kind() const { return node_->kind; }

Stmt Stmt::for_loop(const Expr& var, const Expr& min, const Expr& extent, ForKind kind, Stmt body) {
  DT_CHECK(var.defined() && var.kind() == ExprKind::Var && var.dtype() == DType::i64, "a loop variable is an i64 var");
  DT_CHECK(min.dtype() == DType::i64 && extent.dtype() == DType::i64, "loop bounds are i64");
  DT_CHECK(body.defined(), "a loop needs a body");
  auto n = stmt_node(StmtKind::For);
  n->var = var;
  n->min = min;
  n->extent = extent;
  n->for_kind = kind;
  n->body = {std::move(body)};
  return Stmt(std::move(n));
}

Stmt Stmt::store(const Buffer& b, const Expr& index, const Expr& value) {
  DT_CHECK(b.defined() && index.defined() && index.dtype() == DType::i64, "store needs a buffer and an i64 index");
  DT_CHECK(value.defined() && value.dtype() == b.dtype(),
           fmt::format("store to {} ({}) of a {} value", b.name(), dtype_name(b.dtype()),
                       value.defined() ? dtype_name(value.dtype()) : "undefined"));
  auto n = stmt_node(StmtKind::Store);
  n->buffer = b;
  n->index = index;
  n->value = value;
  return Stmt(std::move(n));
}

Stmt Stmt::allocate(const Buffer& b, Scope scope, Stmt body) {
  DT_CHECK(b.defined() && body.defined(), "allocate needs a buffer and a body");
  auto n = stmt_node(StmtKind::Allocate);
  n->buffer = b;
  n->scope = scope;
  n->body = {std::move(body)};
  return Stmt(std::move(n));
}

Stmt Stmt::if_then_else(const Expr& cond, Stmt then_case, Stmt else_case) {
  DT_CHECK(cond.defined() && is_bool(cond.dtype()) && then_case.defined(), "if needs a bool condition and a body");
  auto n = stmt_node(StmtKind::IfThenElse);
  n->value = cond;
  n->body = {std::move(then_case)};
  if (else_case.defined()) n->body.push_back(std::move(else_case));
  return Stmt(std::move(n));
}

Stmt Stmt::seq(std::vector<Stmt> stmts) {
  std::vector<Stmt> flat;
  for (auto& s : stmts) {
    if (!s.defined()) continue;
    if (s.kind() == StmtKind::Seq) {
      flat.insert(flat.end(), s.node().body.begin(), s.node().body.end());
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.size() == 1) return flat[0];
  auto n = stmt_node(StmtKind::Seq);
  n->body = std::move(flat);
  return Stmt(std::move(n));
}

Stmt Stmt::evaluate(const Expr& e) {
  DT_CHECK(e.defined(), "evaluate of an undefined expression");
  auto n = stmt_node(StmtKind::Evaluate);
  n->value = e;
  return Stmt(std::move(n));
}

const PrimFunc* Module::find(const std::string& name) const {
  for (const auto& f : funcs) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

}  // namespace difftest::loop
