// The loop IR's lexer (used by parser.cc). The graph IR lexer does not fit: the loop IR
// needs `/`, `!`, `||`, `&`, `|`, `^`, `<<` and `>>`. It lexes on demand with a few tokens of
// lookahead and can rewind to a saved token (function headers declare the dims after the
// params whose shapes use them), so memory stays proportional to the nesting, not the input.
#pragma once

#include <fmt/format.h>

#include <cctype>
#include <deque>
#include <string>
#include <string_view>

#include "compiler/support/diagnostics.h"

namespace difftest::loop::lexing {

constexpr size_t kMaxTokenBytes = 4096;

enum class Tok { End, Ident, Number, Global, Punct };

struct Token {
  Tok kind = Tok::End;
  std::string text;  // Global: without '@'
  SourceLoc loc;
  size_t offset = 0;  // where the token starts, for rewinding
  bool is_float = false;  // Number with a fraction or an exponent
};

inline std::string describe(const Token& t) {
  switch (t.kind) {
    case Tok::End: return "end of input";
    case Tok::Ident: return fmt::format("identifier '{}'", t.text);
    case Tok::Number: return fmt::format("number {}", t.text);
    case Tok::Global: return fmt::format("@{}", t.text);
    case Tok::Punct: return fmt::format("'{}'", t.text);
  }
  return "token";
}

inline bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
inline bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
inline bool digit(char c) { return c >= '0' && c <= '9'; }

inline std::string printable(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return fmt::format("'{}'", c);
  return fmt::format("byte 0x{:02x}", u);
}

class Lexer {
 public:
  Lexer(std::string_view src, std::string file) : src_(src), file_(std::move(file)) {}

  const Token& peek(size_t k = 0) {
    while (ahead_.size() <= k) ahead_.push_back(lex());
    return ahead_[k];
  }
  Token next() {
    peek();
    Token t = std::move(ahead_.front());
    ahead_.pop_front();
    return t;
  }
  // The next token, to come back to with rewind().
  Token mark() { return peek(); }
  void rewind(const Token& t) {
    ahead_.clear();
    pos_ = t.offset;
    line_ = t.loc.line;
    col_ = t.loc.col;
  }

 private:
  char cur() const { return pos_ < src_.size() ? src_[pos_] : '\0'; }
  char at_offset(size_t k) const { return pos_ + k < src_.size() ? src_[pos_ + k] : '\0'; }
  SourceLoc loc() const { return SourceLoc{file_, line_, col_}; }

  void advance(size_t n = 1) {
    for (size_t i = 0; i < n && pos_ < src_.size(); ++i, ++pos_) {
      if (src_[pos_] == '\n') {
        ++line_;
        col_ = 1;
      } else {
        ++col_;
      }
    }
  }

  void skip_space_and_comments() {
    while (pos_ < src_.size()) {
      const char c = cur();
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        advance();
      } else if (c == '#') {
        while (pos_ < src_.size() && cur() != '\n') advance();
      } else {
        break;
      }
    }
  }

  template <typename Pred>
  void take_while(size_t start, const SourceLoc& at, Pred pred) {
    while (pos_ < src_.size() && pred(cur())) {
      advance();
      if (pos_ - start > kMaxTokenBytes) {
        throw UserError(ErrorKind::Limit, fmt::format("token longer than {} bytes", kMaxTokenBytes), at);
      }
    }
  }

  Token lex() {
    skip_space_and_comments();
    Token t;
    t.loc = loc();
    t.offset = pos_;
    if (pos_ >= src_.size()) return t;
    const size_t start = pos_;
    const char c = cur();
    if (ident_start(c)) {
      take_while(start, t.loc, ident_char);
      t.kind = Tok::Ident;
      t.text = std::string(src_.substr(start, pos_ - start));
      return t;
    }
    if (digit(c)) return number(std::move(t));
    if (c == '@') {
      advance();
      if (!ident_start(cur())) throw UserError(ErrorKind::Syntax, "expected a name after '@'", loc());
      take_while(start, t.loc, ident_char);
      t.kind = Tok::Global;
      t.text = std::string(src_.substr(start + 1, pos_ - start - 1));
      return t;
    }
    static const char* const kPuncts[] = {"==", "!=", "<=", ">=", "<<", ">>", "//", "&&", "||", "(", ")", "[", "]",
                                          "{",  "}",  ",",  ":",  "=",  "<",  ">",  "+",  "-",  "*", "/", "%", "&",
                                          "|",  "^",  "!"};
    for (const char* p : kPuncts) {
      const std::string_view sv(p);
      if (src_.substr(pos_, sv.size()) == sv) {
        advance(sv.size());
        t.kind = Tok::Punct;
        t.text = std::string(sv);
        return t;
      }
    }
    throw UserError(ErrorKind::Syntax, fmt::format("unexpected {}", printable(c)), t.loc);
  }

  Token number(Token t) {
    const size_t start = pos_;
    take_while(start, t.loc, digit);
    if (cur() == '.' && digit(at_offset(1))) {
      t.is_float = true;
      advance();
      take_while(start, t.loc, digit);
    }
    if ((cur() == 'e' || cur() == 'E') &&
        (digit(at_offset(1)) || ((at_offset(1) == '-' || at_offset(1) == '+') && digit(at_offset(2))))) {
      t.is_float = true;
      advance(2);
      take_while(start, t.loc, digit);
    }
    if (ident_char(cur()) || cur() == '.') {
      throw UserError(ErrorKind::Syntax, fmt::format("unexpected {} after a number", printable(cur())), loc());
    }
    t.kind = Tok::Number;
    t.text = std::string(src_.substr(start, pos_ - start));
    return t;
  }

  std::string_view src_;
  std::string file_;
  size_t pos_ = 0;
  int line_ = 1;
  int col_ = 1;
  std::deque<Token> ahead_;
};

}  // namespace difftest::loop::lexing
