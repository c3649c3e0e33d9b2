#include "compiler/sym/sym_parse.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>

#include "compiler/support/checked.h"

namespace difftest::sym {

bool is_reserved_name(std::string_view name) { return name == "min" || name == "max"; }

namespace {

class SymParser {
 public:
  SymParser(Lexer& lx, const std::function<void(const Token&)>& on_var) : lx_(lx), on_var_(on_var) {}

  Expr expr(int nesting) {
    Expr lhs = term(nesting);
    while (lx_.at(Tok::Plus) || lx_.at(Tok::Minus)) {
      Token op = lx_.next();
      lhs = build(op.kind == Tok::Plus ? Op::Add : Op::Sub, lhs, term(nesting), op);
    }
    return lhs;
  }

 private:
  Expr term(int nesting) {
    Expr lhs = unary(nesting);
    while (true) {
      const Token& t = lx_.peek();
      if (t.kind == Tok::Star || t.kind == Tok::SlashSlash || t.kind == Tok::Percent) {
        Token op = lx_.next();
        Op o = op.kind == Tok::Star ? Op::Mul : (op.kind == Tok::SlashSlash ? Op::FloorDiv : Op::FloorMod);
        lhs = build(o, lhs, unary(nesting), op);
      } else if (t.kind == Tok::ValueName) {
        // `m%5` lexes as the value name %5; in an expression it can only mean `m % 5`.
        Token op = lx_.next();
        lhs = build(Op::FloorMod, lhs, operand_from_text(op), op);
      } else {
        return lhs;
      }
    }
  }

  Expr unary(int nesting) {
    if (lx_.at(Tok::Minus)) {
      Token minus = lx_.next();
      check_nesting(nesting + 1, minus);
      Expr operand = unary(nesting + 1);
      if (operand.is_const()) {
        auto negated = checked::try_sub(0, operand.value());
        if (!negated) throw UserError(ErrorKind::Overflow, "negated constant overflows 64 bits", minus.loc);
        return Expr::constant(*negated);
      }
      return build(Op::Mul, Expr::constant(-1), operand, minus);
    }
    return primary(nesting);
  }

  Expr primary(int nesting) {
    const Token& t = lx_.peek();
    if (t.kind == Tok::Int) {
      Token tok = lx_.next();
      return int_constant(tok);
    }
    if (t.kind == Tok::Ident) {
      Token tok = lx_.next();
      if (is_reserved_name(tok.text)) {
        check_nesting(nesting + 1, tok);
        lx_.expect(Tok::LParen, fmt::format("'(' after {}", tok.text).c_str());
        Expr a = expr(nesting + 1);
        lx_.expect(Tok::Comma, "','");
        Expr b = expr(nesting + 1);
        lx_.expect(Tok::RParen, "')'");
        return build(tok.text == "min" ? Op::Min : Op::Max, a, b, tok);
      }
      if (on_var_) on_var_(tok);
      return Expr::var(tok.text);
    }
    if (t.kind == Tok::LParen) {
      Token open = lx_.next();
      check_nesting(nesting + 1, open);
      Expr inner = expr(nesting + 1);
      lx_.expect(Tok::RParen, "')'");
      return inner;
    }
    lx_.fail(t, "an integer, a dim variable, min(...), max(...) or '('");
  }

  Expr operand_from_text(const Token& tok) {
    Token synthetic = tok;
    if (!tok.text.empty() && std::isdigit(static_cast<unsigned char>(tok.text[0]))) {
      synthetic.kind = Tok::Int;
      for (char c : tok.text) {
        if (!std::isdigit(static_cast<unsigned char>(c))) {
          throw UserError(ErrorKind::Syntax, fmt::format("expected an operand after '%', found '{}'", tok.text),
                          tok.loc);
        }
      }
      auto r = std::from_chars(tok.text.data(), tok.text.data() + tok.text.size(), synthetic.int_value);
      synthetic.int_overflow = r.ec != std::errc() || synthetic.int_value > uint64_t{INT64_MAX};
      return int_constant(synthetic);
    }
    synthetic.kind = Tok::Ident;
    if (is_reserved_name(tok.text)) {
      throw UserError(ErrorKind::Syntax, "write `a % min(...)` with spaces", tok.loc);
    }
    if (on_var_) on_var_(synthetic);
    return Expr::var(tok.text);
  }

  static Expr int_constant(const Token& tok) {
    if (tok.int_overflow) {
      throw UserError(ErrorKind::Literal, fmt::format("integer {} does not fit in 64 bits", tok.text), tok.loc);
    }
    return Expr::constant(static_cast<int64_t>(tok.int_value));
  }

  Expr build(Op op, const Expr& a, const Expr& b, const Token& at) {
    Expr e = Expr::make(op, a, b);
    if (e.depth() > kMaxDepth) {
      throw UserError(ErrorKind::Limit, fmt::format("expression nested deeper than {} levels", kMaxDepth), at.loc);
    }
    return e;
  }

  static void check_nesting(int nesting, const Token& at) {
    if (nesting > kMaxDepth) {
      throw UserError(ErrorKind::Limit, fmt::format("expression nested deeper than {} levels", kMaxDepth), at.loc);
    }
  }

  Lexer& lx_;
  const std::function<void(const Token&)>& on_var_;
};

}  // namespace

Expr parse_expr(Lexer& lx, const std::function<void(const Token&)>& on_var) {
  SymParser p(lx, on_var);
  return p.expr(0);
}

Expr parse(std::string_view text, const std::string& file_name) {
  Lexer lx(text, file_name);
  Expr e = parse_expr(lx);
  if (!lx.at(Tok::End)) lx.fail(lx.peek(), "end of expression");
  return e;
}

}  // namespace difftest::sym
