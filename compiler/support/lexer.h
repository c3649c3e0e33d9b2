// Tokens of the IR text form (graph IR and symbolic expressions share one lexer).
// The lexer never reads past the end of its input, reports the first bad character with its
// file:line:col, and bounds the size of every token (see kMaxTokenBytes).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "compiler/support/diagnostics.h"

namespace difftest {

enum class Tok {
  End,
  Ident,      // n, f32, matmul, true
  Int,        // 42 (non-negative; a leading '-' is a separate token)
  Float,      // 1.5, 1e-6, 2.0e+3
  String,     // "q4f16_1" (text holds the unescaped contents)
  ValueName,  // %x, %0 (text holds the name without '%')
  GlobalName, // @main (text holds the name without '@')
  LParen, RParen, LBracket, RBracket, LBrace, RBrace,
  Comma, Colon, Equals, DotDot,
  Plus, Minus, Star, SlashSlash, Percent,
  Less, LessEq, Greater, GreaterEq, EqEq, NotEq, AndAnd,
};

const char* tok_name(Tok t);

struct Token {
  Tok kind = Tok::End;
  std::string text;
  SourceLoc loc;
  uint64_t int_value = 0;   // Tok::Int; int_overflow set when the literal exceeds 2^63 - 1
  bool int_overflow = false;
  double float_value = 0;   // Tok::Float (and Tok::Int, converted)
};

class Lexer {
 public:
  static constexpr size_t kMaxTokenBytes = 4096;

  Lexer(std::string_view source, std::string file_name);

  const Token& peek();
  const Token& peek2();  // the token after peek()
  Token next();
  bool at(Tok kind) { return peek().kind == kind; }
  bool accept(Tok kind);                       // consumes the token if it has this kind
  Token expect(Tok kind, const char* what);    // throws Syntax "expected <what>, found <tok>"
  [[noreturn]] void fail(const Token& at, const std::string& expected);

  const std::string& file_name() const { return file_; }
  SourceLoc loc_here();  // location of the next token

  static std::string describe(const Token& t);  // "identifier 'foo'", "end of input", ...

 private:
  Token lex();
  void skip_space_and_comments();
  SourceLoc loc() const { return SourceLoc{file_, line_, col_}; }
  char cur() const { return pos_ < src_.size() ? src_[pos_] : '\0'; }
  char at_offset(size_t k) const { return pos_ + k < src_.size() ? src_[pos_ + k] : '\0'; }
  void advance(size_t n = 1);

  std::string_view src_;
  std::string file_;
  size_t pos_ = 0;
  int line_ = 1;
  int col_ = 1;
  Token buffer_[2];
  int buffered_ = 0;
};

}  // namespace difftest
