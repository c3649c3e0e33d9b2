#include "compiler/sym/sym.h"

#include <fmt/format.h>

#include "compiler/support/checked.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/hash.h"

namespace difftest::sym {

struct Node {
  Op op;
  int64_t value = 0;
  std::string name;
  Expr a, b;
  size_t hash = 0;
  int depth = 1;
};

Expr::Expr(int64_t value) : Expr(constant(value)) {}

Expr Expr::constant(int64_t value) {
  auto n = std::make_shared<Node>();
  n->op = Op::Const;
  n->value = value;
  n->hash = hash_mix(static_cast<size_t>(Op::Const), std::hash<int64_t>()(value));
  return Expr(std::move(n));
}

Expr Expr::var(const std::string& name) {
  DT_CHECK(!name.empty(), "sym::Expr::var with an empty name");
  auto n = std::make_shared<Node>();
  n->op = Op::Var;
  n->name = name;
  n->hash = hash_mix(static_cast<size_t>(Op::Var), std::hash<std::string>()(name));
  return Expr(std::move(n));
}

Expr Expr::make(Op op, const Expr& a, const Expr& b) {
  DT_CHECK(is_binary(op), "sym::Expr::make needs a binary op");
  DT_CHECK(a.defined() && b.defined(), "sym::Expr::make with an undefined operand");
  auto n = std::make_shared<Node>();
  n->op = op;
  n->a = a;
  n->b = b;
  n->hash = hash_mix(hash_mix(static_cast<size_t>(op), a.hash()), b.hash());
  n->depth = 1 + std::max(a.depth(), b.depth());
  return Expr(std::move(n));
}

Op Expr::op() const {
  DT_CHECK(defined(), "op() of an undefined sym::Expr");
  return node_->op;
}
int64_t Expr::value() const {
  DT_CHECK(is_const(), "value() of a non-constant sym::Expr");
  return node_->value;
}
const std::string& Expr::name() const {
  DT_CHECK(is_var(), "name() of a non-variable sym::Expr");
  return node_->name;
}
const Expr& Expr::a() const {
  DT_CHECK(defined() && is_binary(node_->op), "a() of a leaf sym::Expr");
  return node_->a;
}
const Expr& Expr::b() const {
  DT_CHECK(defined() && is_binary(node_->op), "b() of a leaf sym::Expr");
  return node_->b;
}
size_t Expr::hash() const { return defined() ? node_->hash : 0; }
int Expr::depth() const { return defined() ? node_->depth : 0; }

bool operator==(const Expr& x, const Expr& y) {
  if (x.node_ == y.node_) return true;
  if (!x.defined() || !y.defined()) return false;
  if (x.hash() != y.hash() || x.op() != y.op()) return false;
  switch (x.op()) {
    case Op::Const: return x.value() == y.value();
    case Op::Var: return x.name() == y.name();
    default: return x.a() == y.a() && x.b() == y.b();
  }
}

Expr operator+(const Expr& a, const Expr& b) { return Expr::make(Op::Add, a, b); }
Expr operator-(const Expr& a, const Expr& b) { return Expr::make(Op::Sub, a, b); }
Expr operator*(const Expr& a, const Expr& b) { return Expr::make(Op::Mul, a, b); }
Expr floordiv(const Expr& a, const Expr& b) { return Expr::make(Op::FloorDiv, a, b); }
Expr floormod(const Expr& a, const Expr& b) { return Expr::make(Op::FloorMod, a, b); }
Expr min(const Expr& a, const Expr& b) { return Expr::make(Op::Min, a, b); }
Expr max(const Expr& a, const Expr& b) { return Expr::make(Op::Max, a, b); }

bool is_binary(Op op) { return op != Op::Const && op != Op::Var; }
bool is_commutative(Op op) { return op == Op::Add || op == Op::Mul || op == Op::Min || op == Op::Max; }

const char* op_symbol(Op op) {
  switch (op) {
    case Op::Add: return "+";
    case Op::Sub: return "-";
    case Op::Mul: return "*";
    case Op::FloorDiv: return "//";
    case Op::FloorMod: return "%";
    case Op::Min: return "min";
    case Op::Max: return "max";
    case Op::Const: return "const";
    case Op::Var: return "var";
  }
  return "?";
}

int compare(const Expr& a, const Expr& b) {
  if (a.same_as(b)) return 0;
  if (a.op() != b.op()) return a.op() < b.op() ? -1 : 1;
  switch (a.op()) {
    case Op::Const: return a.value() < b.value() ? -1 : (a.value() > b.value() ? 1 : 0);
    case Op::Var: return a.name().compare(b.name()) < 0 ? -1 : (a.name() == b.name() ? 0 : 1);
    default: {
      int c = compare(a.a(), b.a());
      return c != 0 ? c : compare(a.b(), b.b());
    }
  }
}

namespace {

int precedence(const Expr& e) {
  switch (e.op()) {
    case Op::Add:
    case Op::Sub: return 1;
    case Op::Mul:
    case Op::FloorDiv:
    case Op::FloorMod: return 2;
    default: return 3;
  }
}

void print(std::string& out, const Expr& e);

void print_operand(std::string& out, const Expr& child, bool parens) {
  if (parens) out += '(';
  print(out, child);
  if (parens) out += ')';
}

void print(std::string& out, const Expr& e) {
  switch (e.op()) {
    case Op::Const: out += std::to_string(e.value()); return;
    case Op::Var: out += e.name(); return;
    case Op::Min:
    case Op::Max:
      out += op_symbol(e.op());
      out += '(';
      print(out, e.a());
      out += ", ";
      print(out, e.b());
      out += ')';
      return;
    default: break;
  }
  const int p = precedence(e);
  const bool is_mul = e.op() == Op::Mul;
  auto divmod = [](const Expr& c) { return c.op() == Op::FloorDiv || c.op() == Op::FloorMod; };
  print_operand(out, e.a(), precedence(e.a()) < p || (is_mul && divmod(e.a())));
  if (is_mul) {
    out += '*';
  } else {
    out += ' ';
    out += op_symbol(e.op());
    out += ' ';
  }
  print_operand(out, e.b(), precedence(e.b()) <= p || (is_mul && divmod(e.b())));
}

}  // namespace

std::string to_string(const Expr& e) {
  if (!e.defined()) return "<undefined>";
  std::string out;
  print(out, e);
  return out;
}

std::ostream& operator<<(std::ostream& os, const Expr& e) { return os << to_string(e); }

int64_t eval(const Expr& e, const Env& env) {
  switch (e.op()) {
    case Op::Const: return e.value();
    case Op::Var: {
      auto it = env.find(e.name());
      if (it == env.end()) {
        throw UserError(ErrorKind::Evaluation, fmt::format("dim variable '{}' has no value", e.name()));
      }
      return it->second;
    }
    default: break;
  }
  const int64_t a = eval(e.a(), env);
  const int64_t b = eval(e.b(), env);
  switch (e.op()) {
    case Op::Add: return checked::add(a, b);
    case Op::Sub: return checked::sub(a, b);
    case Op::Mul: return checked::mul(a, b);
    case Op::FloorDiv: return checked::floordiv(a, b);
    case Op::FloorMod: return checked::floormod(a, b);
    case Op::Min: return std::min(a, b);
    case Op::Max: return std::max(a, b);
    default: break;
  }
  DT_CHECK(false, "unreachable sym op in eval");
  return 0;
}

void collect_vars(const Expr& e, std::set<std::string>& out) {
  if (e.is_var()) {
    out.insert(e.name());
  } else if (is_binary(e.op())) {
    collect_vars(e.a(), out);
    collect_vars(e.b(), out);
  }
}

std::set<std::string> vars(const Expr& e) {
  std::set<std::string> out;
  collect_vars(e, out);
  return out;
}

bool contains_var(const Expr& e, const std::string& name) {
  if (e.is_var()) return e.name() == name;
  if (e.is_const()) return false;
  return contains_var(e.a(), name) || contains_var(e.b(), name);
}

Expr substitute(const Expr& e, const std::function<std::optional<Expr>(const std::string&)>& f) {
  if (e.is_var()) {
    auto r = f(e.name());
    return r ? *r : e;
  }
  if (e.is_const()) return e;
  Expr a = substitute(e.a(), f);
  Expr b = substitute(e.b(), f);
  if (a.same_as(e.a()) && b.same_as(e.b())) return e;
  return Expr::make(e.op(), a, b);
}

Expr substitute(const Expr& e, const std::map<std::string, Expr>& map) {
  return substitute(e, [&](const std::string& name) -> std::optional<Expr> {
    auto it = map.find(name);
    if (it == map.end()) return std::nullopt;
    return it->second;
  });
}

}  // namespace difftest::sym
