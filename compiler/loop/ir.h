// The loop IR (TIR-like): what LegalizeOps produces, schedule passes rewrite and codegen
// compiles.
//
// A PrimFunc takes buffers (flat memory of a dtype, with a symbolic shape over the function's
// dim parameters) and 64-bit dim parameters, and runs one statement. Buffers are accessed with
// a flat element index (buffers are already flattened, as after TVM's FlattenBuffer); the
// shape is kept for the verifier, the printer and bounds reasoning.
//
// Expressions carry explicit dtypes and never promote: both operands of an arithmetic node have
// the node's dtype. Float arithmetic on f16/bf16 is rounded to the dtype after every operation
// (round to nearest even). Integer arithmetic wraps; `//` and `%` are floor division and floor
// modulo (the symbolic arithmetic's semantics), and integer division by zero yields 0 (the
// graph IR's definition). Indices and loop variables are i64.
//
// Nodes are immutable and shared; the factories check dtypes and throw InternalError on misuse
// (the verifier reports the same problems for parsed text with locations).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compiler/types/dtype.h"
#include "compiler/target/target.h"

namespace difftest::loop {

// ----------------------------------------------------------------------------------- exprs

enum class ExprKind : uint8_t { IntImm, FloatImm, Var, Load, Binary, Compare, Not, Cast, Select, Call };

enum class BinOp : uint8_t {
  Add, Sub, Mul, Div,          // Div: floats only
  FloorDiv, FloorMod,          // ints (floor semantics, /0 -> 0) and floats (floor(a / b), a - floor(a / b) * b)
  Min, Max,
  And, Or,                     // bool
  BitAnd, BitOr, BitXor, Shl, Shr  // ints; Shr is arithmetic for signed, logical for unsigned
};
enum class CmpOp : uint8_t { EQ, NE, LT, LE, GT, GE };

const char* binop_symbol(BinOp op);  // "+", "-", "*", "/", "//", "%", "min", "max", "&&", "||", "&", "|", "^", "<<", ">>"
const char* cmpop_symbol(CmpOp op);  // "==", "!=", "<", "<=", ">", ">="

struct ExprNode;
struct BufferNode;

class Buffer;

class Expr {
 public:
  Expr() = default;
  Expr(int64_t v);  // NOLINT(google-explicit-constructor): an i64 immediate, for index arithmetic

  static Expr int_imm(int64_t v, DType t = DType::i64);
  static Expr float_imm(double v, DType t);  // v must be representable in t
  static Expr var(const std::string& name, DType t = DType::i64);
  static Expr load(const Buffer& b, const Expr& index);
  static Expr binary(BinOp op, const Expr& a, const Expr& b);
  static Expr compare(CmpOp op, const Expr& a, const Expr& b);
  static Expr logical_not(const Expr& a);
  static Expr cast(DType t, const Expr& a);
  static Expr select(const Expr& cond, const Expr& t, const Expr& f);
  static Expr call(const std::string& intrinsic, std::vector<Expr> args);

  bool defined() const { return node_ != nullptr; }
  const ExprNode& node() const { return *node_; }
  const ExprNode* get() const { return node_.get(); }
  ExprKind kind() const;
  DType dtype() const;
  bool same_as(const Expr& o) const { return node_ == o.node_; }
  bool is_int_imm(int64_t v) const;

 private:
  explicit Expr(std::shared_ptr<const ExprNode> n) : node_(std::move(n)) {}
  std::shared_ptr<const ExprNode> node_;
};

class Buffer {
 public:
  Buffer() = default;
  static Buffer make(std::string name, DType dtype, std::vector<Expr> shape);

  bool defined() const { return node_ != nullptr; }
  const std::string& name() const;
  DType dtype() const;
  const std::vector<Expr>& shape() const;
  Expr numel() const;  // product of the shape (1 for a scalar buffer)
  const BufferNode* get() const { return node_.get(); }
  bool same_as(const Buffer& o) const { return node_ == o.node_; }

  Expr operator[](const Expr& index) const { return Expr::load(*this, index); }

 private:
  explicit Buffer(std::shared_ptr<const BufferNode> n) : node_(std::move(n)) {}
  std::shared_ptr<const BufferNode> node_;
};

struct BufferNode {
  std::string name;
  DType dtype;
  std::vector<Expr> shape;
};

struct ExprNode {
  ExprKind kind;
  DType dtype;
  int64_t int_value = 0;       // IntImm
  double float_value = 0;      // FloatImm
  std::string name;            // Var; Call: the intrinsic
  Buffer buffer;               // Load
  BinOp bin = BinOp::Add;      // Binary
  CmpOp cmp = CmpOp::EQ;       // Compare
  std::vector<Expr> operands;  // Load: index; Binary/Compare: a, b; Not/Cast: a; Select: c, t, f; Call: args
};

// Arithmetic with an implicit immediate of the other operand's dtype: `i * n + 1`, `x * 0.5`.
Expr operator+(const Expr& a, const Expr& b);
Expr operator-(const Expr& a, const Expr& b);
Expr operator*(const Expr& a, const Expr& b);
Expr operator/(const Expr& a, const Expr& b);
Expr operator-(const Expr& a);
Expr operator<(const Expr& a, const Expr& b);
Expr operator<=(const Expr& a, const Expr& b);
Expr operator>(const Expr& a, const Expr& b);
Expr operator>=(const Expr& a, const Expr& b);
Expr operator==(const Expr& a, const Expr& b);
Expr operator!=(const Expr& a, const Expr& b);
Expr operator&&(const Expr& a, const Expr& b);
Expr operator||(const Expr& a, const Expr& b);
Expr operator!(const Expr& a);
Expr floordiv(const Expr& a, const Expr& b);
Expr floormod(const Expr& a, const Expr& b);
Expr min(const Expr& a, const Expr& b);
Expr max(const Expr& a, const Expr& b);
Expr select(const Expr& c, const Expr& t, const Expr& f);
Expr cast(DType t, const Expr& a);
Expr imm(double v, DType t);  // an immediate of any dtype (ints: v must be integral)

// Intrinsics and their arity; all take and return one float dtype (computed in f32 for
// f16/bf16, then rounded) except isnan, which returns bool.
//   exp log sqrt tanh erf sin cos floor ceil round(half to even) fabs expm1 log1p isnan : 1
//   pow atan2 : 2
bool is_intrinsic(const std::string& name, size_t arity);
const std::vector<std::string>& intrinsic_names();

// ------------------------------------------------------------------------------ statements

enum class StmtKind : uint8_t { For, Store, Allocate, IfThenElse, Seq, Evaluate };
enum class ForKind : uint8_t { Serial, Parallel, Vectorized, Unrolled };
enum class Scope : uint8_t { Local, Global };  // Local: small, on the stack; Global: heap

const char* for_kind_name(ForKind k);  // serial parallel vectorized unrolled
const char* scope_name(Scope s);       // local global

struct StmtNode;

class Stmt {
 public:
  Stmt() = default;
  // for var in [min, min + extent) kind { body }
  static Stmt for_loop(const Expr& var, const Expr& min, const Expr& extent, ForKind kind, Stmt body);
  static Stmt store(const Buffer& b, const Expr& index, const Expr& value);
  static Stmt allocate(const Buffer& b, Scope scope, Stmt body);
  static Stmt if_then_else(const Expr& cond, Stmt then_case, Stmt else_case = Stmt());
  static Stmt seq(std::vector<Stmt> stmts);  // flattens nested sequences
  static Stmt evaluate(const Expr& e);

  bool defined() const { return node_ != nullptr; }
  const StmtNode& node() const { return *node_; }
  const StmtNode* get() const { return node_.get(); }
  StmtKind kind() const;
  bool same_as(const Stmt& o) const { return node_ == o.node_; }

 private:
  explicit Stmt(std::shared_ptr<const StmtNode> n) : node_(std::move(n)) {}
  std::shared_ptr<const StmtNode> node_;
};

struct StmtNode {
  StmtKind kind;
  Expr var, min, extent;     // For
  ForKind for_kind = ForKind::Serial;
  Buffer buffer;             // Store, Allocate
  Expr index, value;         // Store; value also: IfThenElse condition, Evaluate
  Scope scope = Scope::Local;
  std::vector<Stmt> body;    // For/Allocate: [body]; IfThenElse: [then, else?]; Seq: items
};

// ----------------------------------------------------------------------- functions, modules

struct PrimFunc {
  std::string name;
  std::vector<Buffer> params;  // inputs then outputs, by convention
  std::vector<Expr> dims;      // i64 vars the shapes and the body may use
  Stmt body;
};

// One kernel launch of a module: buffer arguments name program values (or scratch buffers),
// dim arguments are the program's dim variables.
struct Call {
  std::string func;
  std::vector<std::string> buffers;
  std::vector<std::string> dims;
  int group = -1;  // the graph binding's fusion group (-1: none); text form `@fused(N)`
};

struct Module {
  std::vector<PrimFunc> funcs;
  std::vector<Call> calls;
  // The program's results, in order (text form `outputs(a, b)`). Empty means unknown (a module
  // written by hand): passes that must tell intermediates from results then refuse.
  std::vector<std::string> outputs;
  // PlanMemory's plan: each slot lists the intermediate values that share one allocation
  // (text form: one `storage(a, b)` line per slot). Values in no slot get their own buffer.
  std::vector<std::vector<std::string>> storage;
  // The machine the schedules size their vectors for and the JIT compiles for (text form
  // `target(avx2)`, written when it is not the text default). Lowering sets it from the
  // pipeline's RunOptions; every pass keeps it.
  const target::Target* target = &target::text_default_target();
  const PrimFunc* find(const std::string& name) const;
};

}  // namespace difftest::loop
