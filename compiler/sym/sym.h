// Symbolic integer expressions over dimension variables.
//
// Semantics (the same everywhere: simplifier, prover, evaluator, shape inference, codegen):
//   - values are 64-bit signed integers; an operation whose exact result does not fit is an
//     error (UserError kind Overflow), never a silent wrap-around;
//   - `a // b` is floor division and `a % b` floor modulo (Python semantics):
//     (-7) // 2 == -4 and (-7) % 2 == 1; division by zero is an error;
//   - `min(a, b)` and `max(a, b)` are the usual ones.
// Nodes are immutable and shared. `Expr::make` builds exactly the tree it is given (the parser
// and the printer rely on that for an exact round trip); `simplify` (sym_simplify.h) produces
// the canonical form.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>

namespace difftest::sym {

enum class Op : uint8_t { Const, Var, Add, Sub, Mul, FloorDiv, FloorMod, Min, Max };

struct Node;

class Expr {
 public:
  Expr() = default;
  Expr(int64_t value);  // NOLINT(google-explicit-constructor): dims are written as 2*n + 1

  static Expr constant(int64_t value);
  static Expr var(const std::string& name);
  static Expr make(Op op, const Expr& a, const Expr& b);

  bool defined() const { return node_ != nullptr; }
  Op op() const;
  bool is_const() const { return defined() && op() == Op::Const; }
  bool is_const(int64_t v) const { return is_const() && value() == v; }
  bool is_var() const { return defined() && op() == Op::Var; }
  int64_t value() const;             // Const only
  const std::string& name() const;   // Var only
  const Expr& a() const;             // binary ops only
  const Expr& b() const;
  size_t hash() const;
  int depth() const;                 // 1 for leaves
  bool same_as(const Expr& other) const { return node_ == other.node_; }

  friend bool operator==(const Expr& x, const Expr& y);
  friend bool operator!=(const Expr& x, const Expr& y) { return !(x == y); }

 private:
  explicit Expr(std::shared_ptr<const Node> node) : node_(std::move(node)) {}
  std::shared_ptr<const Node> node_;
};

// Raw tree builders (no simplification).
Expr operator+(const Expr& a, const Expr& b);
Expr operator-(const Expr& a, const Expr& b);
Expr operator*(const Expr& a, const Expr& b);
Expr floordiv(const Expr& a, const Expr& b);
Expr floormod(const Expr& a, const Expr& b);
Expr min(const Expr& a, const Expr& b);
Expr max(const Expr& a, const Expr& b);

bool is_binary(Op op);
bool is_commutative(Op op);
const char* op_symbol(Op op);  // "+", "-", "*", "//", "%", "min", "max"

// A strict total order on expressions: constants < variables < compound; used to sort terms.
int compare(const Expr& a, const Expr& b);
struct ExprLess {
  bool operator()(const Expr& a, const Expr& b) const { return compare(a, b) < 0; }
};
struct ExprHash {
  size_t operator()(const Expr& e) const { return e.hash(); }
};

// Canonical text: `+ - // %` spaced, `*` unspaced, minimal parentheses (plus parentheses around
// a `//` or `%` operand of `*`, for the reader). parse(to_string(e)) == e for every tree.
std::string to_string(const Expr& e);
std::ostream& operator<<(std::ostream& os, const Expr& e);

// Evaluation under a binding of variables. Throws UserError: Evaluation for an unbound
// variable or a division by zero, Overflow when 64 bits do not suffice.
using Env = std::map<std::string, int64_t>;
int64_t eval(const Expr& e, const Env& env);

void collect_vars(const Expr& e, std::set<std::string>& out);
std::set<std::string> vars(const Expr& e);
bool contains_var(const Expr& e, const std::string& name);

// Replaces variables for which `f` returns a value. Rebuilds only changed subtrees.
Expr substitute(const Expr& e, const std::function<std::optional<Expr>(const std::string&)>& f);
Expr substitute(const Expr& e, const std::map<std::string, Expr>& map);

// Inclusive range of a dimension variable, as declared by `n: 1..256`.
struct Range {
  int64_t lo = 0;
  int64_t hi = 0;
  friend bool operator==(const Range&, const Range&) = default;
};
using Ranges = std::map<std::string, Range>;

}  // namespace difftest::sym
