#include "compiler/sym/sym_simplify.h"

#include <fmt/format.h>

#include <cctype>
#include <string>
#include <unordered_map>

#include "compiler/support/checked.h"
#include "compiler/support/diagnostics.h"
#include "compiler/support/hash.h"
#include "compiler/support/lexer.h"
#include "compiler/sym/sym_parse.h"
#include "compiler/sym/sym_poly.h"

namespace difftest::sym {

namespace {

// ----------------------------------------------------------------------------- rule table

struct RuleText {
  const char* lhs;
  const char* rhs;
  const char* condition;
  const char* why;
};

constexpr RuleText kRuleTexts[] = {
#define RULE(lhs, rhs, condition, why) {lhs, rhs, condition, why},
#include "compiler/sym/sym_rules.def"
#undef RULE
};

bool is_const_wildcard(const std::string& name) {
  return name.size() >= 2 && name[0] == 'c' && std::isdigit(static_cast<unsigned char>(name[1]));
}

bool is_rest_candidate(const Expr& p) { return p.is_var() && !is_const_wildcard(p.name()); }

void check_pattern(const Expr& e, const std::string& rule) {
  DT_CHECK(e.op() != Op::Sub, fmt::format("rule '{}': patterns use + and *, not -", rule));
  if (is_binary(e.op())) {
    check_pattern(e.a(), rule);
    check_pattern(e.b(), rule);
  }
}

std::vector<RuleCondition> parse_conditions(const std::string& text, const std::string& rule) {
  std::vector<RuleCondition> out;
  if (text.empty()) return out;
  Lexer lx(text, "sym_rules.def");
  while (true) {
    RuleCondition c;
    c.lhs = parse_expr(lx);
    Token t = lx.next();
    switch (t.kind) {
      case Tok::EqEq: c.cmp = Cmp::EQ; break;
      case Tok::NotEq: c.cmp = Cmp::NE; break;
      case Tok::Less: c.cmp = Cmp::LT; break;
      case Tok::LessEq: c.cmp = Cmp::LE; break;
      case Tok::Greater: c.cmp = Cmp::GT; break;
      case Tok::GreaterEq: c.cmp = Cmp::GE; break;
      default: DT_CHECK(false, fmt::format("rule '{}': condition needs a comparison", rule));
    }
    c.rhs = parse_expr(lx);
    out.push_back(c);
    if (lx.accept(Tok::End)) break;
    DT_CHECK(lx.accept(Tok::AndAnd), fmt::format("rule '{}': conditions are joined with &&", rule));
  }
  return out;
}

std::vector<RewriteRule> load_rules() {
  std::vector<RewriteRule> rules;
  for (const auto& t : kRuleTexts) {
    RewriteRule r;
    r.lhs_text = t.lhs;
    r.rhs_text = t.rhs;
    r.condition_text = t.condition;
    r.why = t.why;
    try {
      r.lhs = parse(r.lhs_text);
      r.rhs = parse(r.rhs_text);
      r.conditions = parse_conditions(r.condition_text, r.lhs_text);
    } catch (const UserError& e) {
      DT_CHECK(false, fmt::format("rule '{} -> {}' does not parse: {}", t.lhs, t.rhs, e.what()));
    }
    check_pattern(r.lhs, r.lhs_text);
    DT_CHECK(is_binary(r.lhs.op()), fmt::format("rule '{}': the pattern root must be an operation", r.lhs_text));
    rules.push_back(std::move(r));
  }
  return rules;
}

// ----------------------------------------------------------------------------- matching

using Bindings = std::vector<std::pair<std::string, Expr>>;

bool bind_wildcard(Bindings& b, const std::string& name, const Expr& e) {
  for (const auto& [n, v] : b) {
    if (n == name) return v == e;
  }
  b.emplace_back(name, e);
  return true;
}

void flatten(const Expr& p, Op op, std::vector<Expr>& out) {
  if (p.op() == op) {
    flatten(p.a(), op, out);
    flatten(p.b(), op, out);
  } else {
    out.push_back(p);
  }
}

Expr rebuild(const std::vector<Expr>& parts, Op op) {
  if (parts.empty()) return Expr::constant(op == Op::Add ? 0 : 1);
  Expr acc = parts.front();
  for (size_t i = 1; i < parts.size(); ++i) acc = Expr::make(op, acc, parts[i]);
  return ring_normalize(acc);
}

// The matcher enumerates every way a pattern matches (commutative operands, the assignment of
// summands and factors to terms) and calls `k` on each binding until `k` accepts one. Rule
// conditions run inside `k`, so a match that fails its condition is backtracked over.
using Continuation = std::function<bool(const Bindings&)>;

bool match(const Expr& p, const Expr& t, const Bindings& b, const Continuation& k);

// Matches the pattern parts (summands or factors) against the target parts modulo order.
bool match_parts(const Expr& pattern, Op op, const std::vector<Expr>& targets, bool rest_may_be_empty,
                 const Bindings& b, const Continuation& k) {
  std::vector<Expr> singles;
  flatten(pattern, op, singles);
  std::optional<std::string> rest;
  for (size_t i = singles.size(); i-- > 0;) {
    if (is_rest_candidate(singles[i])) {
      rest = singles[i].name();
      singles.erase(singles.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
  }
  const size_t min_rest = rest ? (rest_may_be_empty ? 0 : 1) : 0;
  if (targets.size() < singles.size() + min_rest) return false;
  if (!rest && targets.size() != singles.size()) return false;
  if (targets.size() > 64) return false;

  std::vector<bool> used(targets.size(), false);
  std::function<bool(size_t, const Bindings&)> assign = [&](size_t j, const Bindings& cur) -> bool {
    if (j == singles.size()) {
      if (!rest) return k(cur);
      std::vector<Expr> remaining;
      for (size_t i = 0; i < targets.size(); ++i) {
        if (!used[i]) remaining.push_back(targets[i]);
      }
      Bindings with_rest = cur;
      return bind_wildcard(with_rest, *rest, rebuild(remaining, op)) && k(with_rest);
    }
    for (size_t i = 0; i < targets.size(); ++i) {
      if (used[i]) continue;
      used[i] = true;
      const bool done = match(singles[j], targets[i], cur, [&](const Bindings& next) { return assign(j + 1, next); });
      used[i] = false;
      if (done) return true;
    }
    return false;
  };
  return assign(0, b);
}

bool match(const Expr& p, const Expr& t, const Bindings& b, const Continuation& k) {
  switch (p.op()) {
    case Op::Const: return t.is_const() && t.value() == p.value() && k(b);
    case Op::Var: {
      if (is_const_wildcard(p.name()) && !t.is_const()) return false;
      Bindings next = b;
      return bind_wildcard(next, p.name(), t) && k(next);
    }
    case Op::Add: return match_parts(p, Op::Add, sum_terms(t), true, b, k);
    case Op::Mul: return match_parts(p, Op::Mul, product_factors(t), false, b, k);
    case Op::Min:
    case Op::Max:
      if (t.op() != p.op()) return false;
      return match(p.a(), t.a(), b, [&](const Bindings& b1) { return match(p.b(), t.b(), b1, k); }) ||
             match(p.a(), t.b(), b, [&](const Bindings& b1) { return match(p.b(), t.a(), b1, k); });
    case Op::FloorDiv:
    case Op::FloorMod:
      if (t.op() != p.op()) return false;
      return match(p.a(), t.a(), b, [&](const Bindings& b1) { return match(p.b(), t.b(), b1, k); });
    case Op::Sub: return false;
  }
  return false;
}

Expr instantiate(const Expr& e, const Bindings& b) {
  return substitute(e, [&](const std::string& name) -> std::optional<Expr> {
    for (const auto& [n, v] : b) {
      if (n == name) return v;
    }
    return std::nullopt;
  });
}

// Folds constant-only subtrees; nullopt when one overflows or divides by zero (then a rule
// would turn a valid expression into one that fails to evaluate, so it must not fire).
std::optional<Expr> fold_constants(const Expr& e) {
  if (!is_binary(e.op())) return e;
  auto a = fold_constants(e.a());
  auto b = fold_constants(e.b());
  if (!a || !b) return std::nullopt;
  if (a->is_const() && b->is_const()) {
    const int64_t x = a->value(), y = b->value();
    std::optional<int64_t> r;
    switch (e.op()) {
      case Op::Add: r = checked::try_add(x, y); break;
      case Op::Sub: r = checked::try_sub(x, y); break;
      case Op::Mul: r = checked::try_mul(x, y); break;
      case Op::FloorDiv: r = checked::try_floordiv(x, y); break;
      case Op::FloorMod: r = checked::try_floormod(x, y); break;
      case Op::Min: r = std::min(x, y); break;
      case Op::Max: r = std::max(x, y); break;
      default: break;
    }
    if (!r) return std::nullopt;
    return Expr::constant(*r);
  }
  if (a->same_as(e.a()) && b->same_as(e.b())) return e;
  return Expr::make(e.op(), *a, *b);
}

std::optional<Expr> try_rule(const RewriteRule& rule, const Expr& e, const Ranges& ranges) {
  std::optional<Expr> result;
  match(rule.lhs, e, {}, [&](const Bindings& b) {
    for (const auto& c : rule.conditions) {
      auto lhs = fold_constants(instantiate(c.lhs, b));
      auto rhs = fold_constants(instantiate(c.rhs, b));
      if (!lhs || !rhs) return false;
      if (prove_basic(c.cmp, *lhs, *rhs, ranges) != Truth::True) return false;
    }
    result = fold_constants(instantiate(rule.rhs, b));
    return result.has_value();
  });
  return result;
}

// ----------------------------------------------------------------------------- simplifier

class Simplifier {
 public:
  explicit Simplifier(const Ranges& ranges) : ranges_(ranges) {}

  Expr run(const Expr& e) {
    if (!is_binary(e.op())) return e;
    Expr a = run(e.a());
    Expr b = run(e.b());
    Expr x = (a.same_as(e.a()) && b.same_as(e.b())) ? e : Expr::make(e.op(), a, b);
    return step(x);
  }

 private:
  static constexpr int kFuel = 512;

  Expr step(Expr x) {
    if (auto folded = fold_constants(x); folded && folded->is_const()) return *folded;
    if (x.op() == Op::Add || x.op() == Op::Sub || x.op() == Op::Mul) x = ring_normalize(x);
    // min and max are commutative: their canonical form has the smaller operand first.
    if ((x.op() == Op::Min || x.op() == Op::Max) && compare(x.b(), x.a()) < 0) x = Expr::make(x.op(), x.b(), x.a());
    if (!is_binary(x.op())) return x;
    if (fuel_ > 0) {
      const Op root = x.op() == Op::Sub ? Op::Add : x.op();
      for (const auto& rule : rewrite_rules()) {
        if (rule.lhs.op() != root) continue;
        if (auto r = try_rule(rule, x, ranges_)) {
          if (*r == x) continue;
          --fuel_;
          return run(*r);
        }
      }
    }
    const Interval i = bounds(x, ranges_);
    if (i.is_point()) return Expr::constant(i.lo);
    return x;
  }

  const Ranges& ranges_;
  int fuel_ = kFuel;
};

}  // namespace

const std::vector<RewriteRule>& rewrite_rules() {
  static const std::vector<RewriteRule> rules = load_rules();
  return rules;
}

std::optional<Expr> apply_rule(const RewriteRule& rule, const Expr& e, const Ranges& ranges) {
  return try_rule(rule, e, ranges);
}

namespace {

// Every variant of a program simplifies the same index expressions again (LoopSimplify runs in
// every pipeline, twice at O3; Unroll re-simplifies each copy's indices), so a process keeps
// the results: simplify is a function of (e, ranges) alone, and a kept result is the one it
// would recompute.
struct KeptSimplification {
  Expr e;
  Ranges ranges;
  Expr simplified;
};

size_t key_hash(const Expr& e, const Ranges& ranges) {
  size_t h = e.hash();
  for (const auto& [name, range] : ranges) {
    h = hash_mix(h, std::hash<std::string>{}(name));
    h = hash_mix(h, static_cast<size_t>(range.lo));
    h = hash_mix(h, static_cast<size_t>(range.hi));
  }
  return h;
}

// Bounded by its count of entries: past it, the memo starts over.
constexpr size_t kMaxKeptSimplifications = size_t{1} << 16;

}  // namespace

Expr simplify(const Expr& e, const Ranges& ranges) {
  if (!e.defined()) return e;
  thread_local std::unordered_multimap<size_t, KeptSimplification> kept;
  const size_t hash = key_hash(e, ranges);
  for (auto [it, end] = kept.equal_range(hash); it != end; ++it) {
    if (it->second.e == e && it->second.ranges == ranges) {
      // An expression simplify leaves alone comes back as the caller's own node, as it would
      // without the memo (passes tell an unchanged IR by identity).
      return it->second.simplified.same_as(it->second.e) ? e : it->second.simplified;
    }
  }
  Simplifier s(ranges);
  Expr out = s.run(e);
  if (kept.size() >= kMaxKeptSimplifications) kept.clear();
  kept.emplace(hash, KeptSimplification{e, ranges, out});
  return out;
}

}  // namespace difftest::sym
