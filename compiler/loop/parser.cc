// Recursive-descent parser of the loop IR text form (printer.h); tokens come from lexer.h.
//
// Every error is a UserError with file:line:col; the node factories' preconditions are
// checked first so that no text reaches an InternalError. Nesting is bounded (kMaxDepth) so
// that neither this parser nor a later recursive pass can exhaust the stack.
#include "compiler/loop/parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <map>
#include <optional>
#include <set>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/parser.h"
#include "compiler/loop/lexer.h"
#include "compiler/loop/verifier.h"
#include "compiler/tensor/float_format.h"

namespace difftest::loop {

namespace {

constexpr int kMaxDepth = 256;  // nested expressions and statements together
using lexing::Lexer;
using lexing::Tok;
using lexing::Token;

// ------------------------------------------------------------------------------ operators

std::optional<BinOp> binop_of(const std::string& s) {
  static const std::map<std::string, BinOp> ops = {
      {"+", BinOp::Add},      {"-", BinOp::Sub},      {"*", BinOp::Mul},     {"/", BinOp::Div},
      {"//", BinOp::FloorDiv}, {"%", BinOp::FloorMod}, {"&&", BinOp::And},    {"||", BinOp::Or},
      {"&", BinOp::BitAnd},   {"|", BinOp::BitOr},    {"^", BinOp::BitXor},  {"<<", BinOp::Shl},
      {">>", BinOp::Shr}};
  const auto it = ops.find(s);
  return it == ops.end() ? std::nullopt : std::optional<BinOp>(it->second);
}

std::optional<CmpOp> cmpop_of(const std::string& s) {
  static const std::map<std::string, CmpOp> ops = {{"==", CmpOp::EQ}, {"!=", CmpOp::NE}, {"<", CmpOp::LT},
                                                   {"<=", CmpOp::LE}, {">", CmpOp::GT},  {">=", CmpOp::GE}};
  const auto it = ops.find(s);
  return it == ops.end() ? std::nullopt : std::optional<CmpOp>(it->second);
}

// Why `op` cannot take operands of dtype t, or "" when it can (the factory's preconditions).
std::string binop_dtype_problem(BinOp op, DType t) {
  switch (op) {
    case BinOp::Div: return is_float(t) ? "" : "'/' is for floats; use // for integers";
    case BinOp::And: case BinOp::Or: return is_bool(t) ? "" : "&& and || need bool operands";
    case BinOp::BitAnd: case BinOp::BitOr: case BinOp::BitXor: case BinOp::Shl: case BinOp::Shr: return is_int(t) ? "" : "bit operations need integer operands";
    default: return is_bool(t) ? fmt::format("'{}' does not take bool operands", binop_symbol(op)) : "";
  }
}

bool is_reserved_name(const std::string& s) { return s == "true" || s == "false" || s == "nan" || s == "inf"; }

// ------------------------------------------------------------------------------ parser

class Parser {
 public:
  Parser(std::string_view text, const std::string& file) : lx_(text, file) {
    if (text.size() > kMaxInputBytes) {
      throw UserError(ErrorKind::Limit, fmt::format("input larger than {} bytes", kMaxInputBytes), SourceLoc{file, 1, 1});
    }
  }

  PrimFunc single_func() {
    PrimFunc f = func();
    expect_end();
    return f;
  }

  Module module() {
    Module m;
    std::set<std::string> names;
    while (at_ident("func")) {
      const SourceLoc at = lx_.peek(1).loc;
      m.funcs.push_back(func());
      if (!names.insert(m.funcs.back().name).second) {
        error(ErrorKind::DuplicateName, fmt::format("function @{} defined twice", m.funcs.back().name), at);
      }
    }
    while (at_ident("call")) m.calls.push_back(call(m));
    if (at_ident("outputs") && lx_.next().kind == Tok::Ident) m.outputs = name_list("a value name");
    while (at_ident("storage") && lx_.next().kind == Tok::Ident) m.storage.push_back(name_list("a value name"));
    if (at_ident("target")) m.target = &target_name();
    expect_end();
    verify(m);  // functions and calls are checked above with locations; this is the backstop
    return m;
  }

 private:
  // ---------------------------------------------------------------------------- tokens
  bool at_punct(const char* p, size_t k = 0) { return lx_.peek(k).kind == Tok::Punct && lx_.peek(k).text == p; }
  bool at_ident(const char* w, size_t k = 0) { return lx_.peek(k).kind == Tok::Ident && lx_.peek(k).text == w; }
  bool accept_punct(const char* p) {
    if (!at_punct(p)) return false;
    lx_.next();
    return true;
  }
  Token expect_punct(const char* p) {
    if (!at_punct(p)) fail(lx_.peek(), fmt::format("'{}'", p));
    return lx_.next();
  }
  Token expect_ident(const std::string& what) {
    if (lx_.peek().kind != Tok::Ident) fail(lx_.peek(), what);
    return lx_.next();
  }
  void expect_keyword(const char* w) {
    if (!at_ident(w)) fail(lx_.peek(), fmt::format("'{}'", w));
    lx_.next();
  }
  void expect_end() {
    if (lx_.peek().kind != Tok::End) fail(lx_.peek(), "end of input");
  }
  [[noreturn]] static void fail(const Token& at, const std::string& expected) {
    throw UserError(ErrorKind::Syntax, fmt::format("expected {}, found {}", expected, describe(at)), at.loc);
  }
  [[noreturn]] static void error(ErrorKind k, const std::string& message, const SourceLoc& at) {
    throw UserError(k, message, at);
  }

  struct DepthGuard {
    DepthGuard(Parser& p, const SourceLoc& at) : p_(p) {
      if (++p_.depth_ > kMaxDepth) error(ErrorKind::Limit, fmt::format("nesting deeper than {}", kMaxDepth), at);
    }
    ~DepthGuard() { --p_.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
    Parser& p_;
  };

  DType dtype() {
    const Token t = expect_ident("a dtype such as f32");
    const auto d = parse_dtype(t.text);
    if (!d) error(ErrorKind::Syntax, fmt::format("unknown dtype '{}' (f64 f32 f16 bf16 i64 i32 i8 u8 u32 bool)", t.text), t.loc);
    return *d;
  }

  // A name a variable may take (not a literal spelled as an identifier).
  Token binder_name(const char* what) {
    const Token t = expect_ident(what);
    if (is_reserved_name(t.text)) error(ErrorKind::Syntax, fmt::format("'{}' is reserved and cannot name a variable", t.text), t.loc);
    return t;
  }

  // ---------------------------------------------------------------------------- expressions
  Expr expr() {
    const Token& t = lx_.peek();
    DepthGuard guard(*this, t.loc);
    if (at_punct("(")) return parenthesized();
    if (at_punct("!")) return logical_not();
    if (at_punct("-") || t.kind == Tok::Number) return literal();
    if (t.kind != Tok::Ident) fail(t, "an expression");
    if (t.text == "true" || t.text == "false") return Expr::int_imm(lx_.next().text == "true", DType::boolean);
    if (t.text == "nan" || t.text == "inf") return literal();
    if (at_punct("[", 1)) return load();
    if (t.text == "cast" && at_punct("<", 1) && parse_dtype(lx_.peek(2).text) && at_punct(">", 3)) return cast();
    if (at_punct("(", 1)) return call_expr();
    return var_use();
  }

  Expr typed(const Token& at, const Expr& e, DType want, const char* what) {
    if (e.dtype() != want) {
      error(ErrorKind::TypeMismatch, fmt::format("{} must be {}, not {}", what, dtype_name(want), dtype_name(e.dtype())), at.loc);
    }
    return e;
  }
  Expr i64_expr(const char* what) {
    const Token at = lx_.peek();
    return typed(at, expr(), DType::i64, what);
  }
  Expr bool_expr(const char* what) {
    const Token at = lx_.peek();
    return typed(at, expr(), DType::boolean, what);
  }

  Expr parenthesized() {
    expect_punct("(");
    const Expr a = expr();
    if (accept_punct(")")) return a;  // plain grouping; the printer never writes it
    const Token op = lx_.next();
    const auto bin = op.kind == Tok::Punct ? binop_of(op.text) : std::nullopt;
    const auto cmp = op.kind == Tok::Punct ? cmpop_of(op.text) : std::nullopt;
    if (!bin && !cmp) fail(op, "a binary operator or ')'");
    const Expr b = expr();
    expect_punct(")");
    if (a.dtype() != b.dtype()) {
      error(ErrorKind::TypeMismatch,
            fmt::format("operands of '{}' have different dtypes ({} and {})", op.text, dtype_name(a.dtype()), dtype_name(b.dtype())),
            op.loc);
    }
    if (cmp) return Expr::compare(*cmp, a, b);
    if (const std::string problem = binop_dtype_problem(*bin, a.dtype()); !problem.empty()) {
      error(ErrorKind::TypeMismatch, problem, op.loc);
    }
    return Expr::binary(*bin, a, b);
  }

  Expr logical_not() {
    const Token bang = expect_punct("!");
    return Expr::logical_not(typed(bang, expr(), DType::boolean, "the operand of '!'"));
  }

  // [-] (INT | FLOAT | inf | nan) [':' dtype]. Without a dtype only integers (i64) are allowed.
  // Float literals are rounded to their dtype, so hand-written `0.1:f16` is accepted; the
  // printer writes exact values, which round trip unchanged.
  Expr literal() {
    const Token first = lx_.peek();
    const bool negative = accept_punct("-");
    const Token num = lx_.next();
    const bool special = num.kind == Tok::Ident && (num.text == "inf" || num.text == "nan");
    if (num.kind != Tok::Number && !special) fail(num, "a number");
    const std::string text = (negative ? "-" : "") + num.text;
    std::optional<DType> t;
    if (accept_punct(":")) t = dtype();
    if (!t && (num.is_float || special)) {
      error(ErrorKind::Literal, fmt::format("the float literal {} needs a dtype, as in {}:f32", text, text), first.loc);
    }
    const DType dt = t.value_or(DType::i64);
    if (is_float(dt)) return float_literal(first, text, negative, num, dt);
    if (num.is_float || special) {
      error(ErrorKind::Literal, fmt::format("{} is not an integer, as a {} literal must be", text, dtype_name(dt)), first.loc);
    }
    return Expr::int_imm(int_literal(first, text, negative, num.text, dt), dt);
  }

  static int64_t int_literal(const Token& at, const std::string& text, bool negative, const std::string& digits, DType t) {
    uint64_t magnitude = 0;
    const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
    const uint64_t limit = negative ? uint64_t{1} << 63 : uint64_t{INT64_MAX};
    if (r.ec != std::errc() || magnitude > limit) {
      error(ErrorKind::Literal, fmt::format("integer {} does not fit in 64 bits", text), at.loc);
    }
    const int64_t v = !negative ? static_cast<int64_t>(magnitude)
                      : magnitude == (uint64_t{1} << 63) ? INT64_MIN
                                                          : -static_cast<int64_t>(magnitude);
    if (v < int_min(t) || v > int_max(t)) {
      error(ErrorKind::Literal, fmt::format("{} is out of range for {} ({}..{})", text, dtype_name(t), int_min(t), int_max(t)),
            at.loc);
    }
    return v;
  }

  static Expr float_literal(const Token& at, const std::string& text, bool negative, const Token& num, DType t) {
    double v = 0;
    if (num.text == "nan") {
      v = std::nan("");
    } else if (num.text == "inf") {
      v = HUGE_VAL;
    } else {
      v = std::strtod(num.text.c_str(), nullptr);  // the lexer admits only digits, '.', 'e' and a sign
    }
    if (negative) v = -v;
    const double rounded = round_to_float_dtype(v, t);
    if (std::isinf(rounded) && num.text != "inf") {
      error(ErrorKind::Literal, fmt::format("{} is out of range for {}", text, dtype_name(t)), at.loc);
    }
    return Expr::float_imm(rounded, t);
  }

  Expr var_use() {
    const Token t = lx_.next();
    const auto it = vars_.find(t.text);
    if (it == vars_.end()) error(ErrorKind::UnknownName, fmt::format("undefined variable '{}'", t.text), t.loc);
    return it->second;
  }

  const Buffer& buffer_use(const Token& t) {
    const auto it = buffers_.find(t.text);
    if (it == buffers_.end()) {
      error(ErrorKind::UnknownName, fmt::format("buffer '{}' is not a parameter or an enclosing allocation", t.text), t.loc);
    }
    return it->second;
  }

  Expr load() {
    const Token name = lx_.next();
    const Buffer& b = buffer_use(name);
    expect_punct("[");
    const Expr index = i64_expr("a buffer index");
    expect_punct("]");
    return Expr::load(b, index);
  }

  Expr cast() {
    lx_.next();
    expect_punct("<");
    const DType t = dtype();
    expect_punct(">");
    expect_punct("(");
    const Expr a = expr();
    expect_punct(")");
    return Expr::cast(t, a);
  }

  std::vector<std::pair<Token, Expr>> call_args() {
    std::vector<std::pair<Token, Expr>> args;
    expect_punct("(");
    if (!at_punct(")")) {
      do {
        const Token at = lx_.peek();
        args.emplace_back(at, expr());
      } while (accept_punct(","));
    }
    expect_punct(")");
    return args;
  }

  void check_arity(const Token& name, const std::vector<std::pair<Token, Expr>>& args, size_t want) {
    if (args.size() != want) {
      error(ErrorKind::Arity, fmt::format("{} takes {} operands, not {}", name.text, want, args.size()), name.loc);
    }
  }

  // Operands after the first must have the first one's dtype.
  static void check_same_dtypes(const Token& name, const std::vector<std::pair<Token, Expr>>& args, size_t from) {
    for (size_t i = from + 1; i < args.size(); ++i) {
      if (args[i].second.dtype() != args[from].second.dtype()) {
        error(ErrorKind::TypeMismatch,
              fmt::format("operands of {} have different dtypes ({} and {})", name.text,
                          dtype_name(args[from].second.dtype()), dtype_name(args[i].second.dtype())),
              args[i].first.loc);
      }
    }
  }

  // min, max, select and the intrinsics.
  Expr call_expr() {
    const Token name = lx_.next();
    const auto args = call_args();
    if (name.text == "min" || name.text == "max") {
      check_arity(name, args, 2);
      check_same_dtypes(name, args, 0);
      if (is_bool(args[0].second.dtype())) error(ErrorKind::TypeMismatch, fmt::format("{} does not take bool operands", name.text), name.loc);
      return Expr::binary(name.text == "min" ? BinOp::Min : BinOp::Max, args[0].second, args[1].second);
    }
    if (name.text == "select") {
      check_arity(name, args, 3);
      typed(args[0].first, args[0].second, DType::boolean, "the condition of select");
      check_same_dtypes(name, args, 1);
      return Expr::select(args[0].second, args[1].second, args[2].second);
    }
    const auto& known = intrinsic_names();
    if (std::find(known.begin(), known.end(), name.text) == known.end()) {
      error(ErrorKind::UnknownName, fmt::format("unknown intrinsic '{}'", name.text), name.loc);
    }
    if (!is_intrinsic(name.text, args.size())) {
      error(ErrorKind::Arity, fmt::format("{} does not take {} operands", name.text, args.size()), name.loc);
    }
    check_same_dtypes(name, args, 0);
    if (!is_float(args[0].second.dtype())) {
      error(ErrorKind::TypeMismatch, fmt::format("{} needs float operands, not {}", name.text, dtype_name(args[0].second.dtype())),
            args[0].first.loc);
    }
    std::vector<Expr> operands;
    for (const auto& a : args) operands.push_back(a.second);
    return Expr::call(name.text, std::move(operands));
  }

  // ---------------------------------------------------------------------------- statements
  Stmt block() {
    expect_punct("{");
    std::vector<Stmt> items;
    while (!at_punct("}")) {
      if (lx_.peek().kind == Tok::End) fail(lx_.peek(), "a statement or '}'");
      items.push_back(stmt());
    }
    lx_.next();
    return Stmt::seq(std::move(items));
  }

  Stmt stmt() {
    const Token& t = lx_.peek();
    DepthGuard guard(*this, t.loc);
    if (t.kind != Tok::Ident) fail(t, "a statement");
    if (at_punct("[", 1)) return store();
    if (t.text == "for") return for_loop();
    if (t.text == "alloc") return allocate();
    if (t.text == "if") return if_then_else();
    if (t.text == "eval") {
      lx_.next();
      return Stmt::evaluate(expr());
    }
    fail(t, "a statement (for, alloc, if, eval or a store)");
  }

  Stmt store() {
    const Token name = lx_.next();
    const Buffer b = buffer_use(name);
    expect_punct("[");
    const Expr index = i64_expr("a buffer index");
    expect_punct("]");
    const Token eq = expect_punct("=");
    const Token at = lx_.peek();
    const Expr value = expr();
    if (value.dtype() != b.dtype()) {
      error(ErrorKind::TypeMismatch,
            fmt::format("store of a {} value to {} ({})", dtype_name(value.dtype()), b.name(), dtype_name(b.dtype())), at.loc);
    }
    return Stmt::store(b, index, value);
  }

  Stmt for_loop() {
    lx_.next();
    expect_punct("(");
    const Token name = binder_name("a loop variable");
    expect_punct(",");
    const Expr lo = i64_expr("a loop bound");
    expect_punct(",");
    const Expr extent = i64_expr("a loop extent");
    expect_punct(")");
    const ForKind kind = for_kind();
    if (vars_.count(name.text)) {
      error(ErrorKind::DuplicateName, fmt::format("loop variable '{}' shadows another variable", name.text), name.loc);
    }
    const Expr var = Expr::var(name.text);
    vars_.emplace(name.text, var);
    Stmt body = block();
    vars_.erase(name.text);
    return Stmt::for_loop(var, lo, extent, kind, std::move(body));
  }

  ForKind for_kind() {
    const Token t = expect_ident("a loop kind (serial, parallel, vectorized, unrolled)");
    for (ForKind k : {ForKind::Serial, ForKind::Parallel, ForKind::Vectorized, ForKind::Unrolled}) {
      if (t.text == for_kind_name(k)) return k;
    }
    fail(t, "a loop kind (serial, parallel, vectorized, unrolled)");
  }

  // name ':' dtype '[' shape ']', declared in the current scope.
  Buffer buffer_decl() {
    const Token name = expect_ident("a buffer name");
    expect_punct(":");
    const DType t = dtype();
    expect_punct("[");
    std::vector<Expr> shape;
    if (!at_punct("]")) {
      do {
        shape.push_back(i64_expr("a buffer extent"));
      } while (accept_punct(","));
    }
    expect_punct("]");
    if (buffers_.count(name.text)) error(ErrorKind::DuplicateName, fmt::format("buffer '{}' defined twice", name.text), name.loc);
    Buffer b = Buffer::make(name.text, t, std::move(shape));
    buffers_.emplace(name.text, b);
    return b;
  }

  Stmt allocate() {
    lx_.next();
    const Buffer b = buffer_decl();
    const Token scope = expect_ident("a scope (local or global)");
    if (scope.text != "local" && scope.text != "global") fail(scope, "a scope (local or global)");
    Stmt body = block();
    buffers_.erase(b.name());
    return Stmt::allocate(b, scope.text == "local" ? Scope::Local : Scope::Global, std::move(body));
  }

  Stmt if_then_else() {
    lx_.next();
    const Expr cond = bool_expr("an if condition");
    Stmt then_case = block();
    Stmt else_case;
    if (at_ident("else")) {
      lx_.next();
      else_case = block();
    }
    return Stmt::if_then_else(cond, std::move(then_case), std::move(else_case));
  }

  // ---------------------------------------------------------------------------- functions
  // func @name(params) dims(names) { body }. The params' shapes use the dims declared after
  // them, so the params are read twice: once to skip them, once with the dims in scope.
  PrimFunc func() {
    expect_keyword("func");
    const Token name = lx_.next();
    if (name.kind != Tok::Global) fail(name, "a function name such as @f");
    expect_punct("(");
    const Token params_start = lx_.mark();
    skip_to_closing_paren();
    PrimFunc f;
    f.name = name.text;
    f.dims = dim_decls();
    const Token body_start = lx_.mark();
    vars_.clear();
    buffers_.clear();
    for (const auto& d : f.dims) vars_.emplace(d.node().name, d);
    lx_.rewind(params_start);
    if (!at_punct(")")) {
      do {
        f.params.push_back(buffer_decl());
      } while (accept_punct(","));
    }
    expect_punct(")");
    lx_.rewind(body_start);
    f.body = block();
    try {
      verify(f);
    } catch (const UserError& e) {
      throw e.located(name.loc);
    }
    return f;
  }

  void skip_to_closing_paren() {
    int open = 1;
    while (open > 0) {
      const Token t = lx_.next();
      if (t.kind == Tok::End) fail(t, "')' closing the parameter list");
      if (t.kind == Tok::Punct && t.text == "(") ++open;
      if (t.kind == Tok::Punct && t.text == ")") --open;
    }
  }

  std::vector<Expr> dim_decls() {
    expect_keyword("dims");
    expect_punct("(");
    std::vector<Expr> dims;
    std::set<std::string> seen;
    if (!at_punct(")")) {
      do {
        const Token d = binder_name("a dim name");
        if (!seen.insert(d.text).second) error(ErrorKind::DuplicateName, fmt::format("dim '{}' declared twice", d.text), d.loc);
        dims.push_back(Expr::var(d.text));
      } while (accept_punct(","));
    }
    expect_punct(")");
    return dims;
  }

  // Calls, outputs and storage name graph values, which may be all digits (%0).
  std::vector<std::string> name_list(const char* what) {
    std::vector<std::string> names;
    expect_punct("(");
    if (!at_punct(")")) {
      do {
        const Token& t = lx_.peek();
        const bool digits = t.kind == Tok::Number && t.text.find_first_not_of("0123456789") == std::string::npos;
        names.push_back(digits ? lx_.next().text : expect_ident(what).text);
      } while (accept_punct(","));
    }
    expect_punct(")");
    return names;
  }

  // target(name): one of target::all_targets(), the message naming the known ones.
  const target::Target& target_name() {
    expect_keyword("target");
    expect_punct("(");
    const Token name = expect_ident("a target name");
    expect_punct(")");
    try {
      return target::find_target(name.text);
    } catch (const UserError& e) {
      error(ErrorKind::UnknownName, e.message(), name.loc);
    }
  }

  // call @f(buffers) dims(dims), naming a function defined above with matching arity.
  Call call(const Module& m) {
    expect_keyword("call");
    const Token name = lx_.next();
    if (name.kind != Tok::Global) fail(name, "a function name such as @f");
    Call c;
    c.func = name.text;
    c.buffers = name_list("a buffer name");
    expect_keyword("dims");
    c.dims = name_list("a dim name");
    if (lx_.peek().kind == Tok::Global) {
      const Token g = lx_.next();
      if (g.text != "fused") fail(g, "'@fused(N)', 'call', 'outputs' or 'storage'");
      expect_punct("(");
      const Token n = lx_.next();
      if (n.kind != Tok::Number || n.is_float) fail(n, "a fusion group number");
      c.group = static_cast<int>(int_literal(n, n.text, false, n.text, DType::i32));
      expect_punct(")");
    }
    const PrimFunc* f = m.find(c.func);
    if (!f) error(ErrorKind::UnknownName, fmt::format("call of undefined function @{}", c.func), name.loc);
    if (f->params.size() != c.buffers.size() || f->dims.size() != c.dims.size()) {
      error(ErrorKind::Arity,
            fmt::format("call of @{} with {} buffers and {} dims; it takes {} and {}", c.func, c.buffers.size(),
                        c.dims.size(), f->params.size(), f->dims.size()),
            name.loc);
    }
    return c;
  }

  Lexer lx_;
  int depth_ = 0;
  std::map<std::string, Expr> vars_;       // dims and enclosing loop variables
  std::map<std::string, Buffer> buffers_;  // params and enclosing allocations
};

}  // namespace

PrimFunc parse_func(std::string_view text, const std::string& file_name) { return Parser(text, file_name).single_func(); }

Module parse_module(std::string_view text, const std::string& file_name) { return Parser(text, file_name).module(); }

}  // namespace difftest::loop
