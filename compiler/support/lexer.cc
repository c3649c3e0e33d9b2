#include "compiler/support/lexer.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>

namespace difftest {

const char* tok_name(Tok t) {
  switch (t) {
    case Tok::End: return "end of input";
    case Tok::Ident: return "identifier";
    case Tok::Int: return "integer";
    case Tok::Float: return "number";
    case Tok::String: return "string";
    case Tok::ValueName: return "value name";
    case Tok::GlobalName: return "program name";
    case Tok::LParen: return "'('";
    case Tok::RParen: return "')'";
    case Tok::LBracket: return "'['";
    case Tok::RBracket: return "']'";
    case Tok::LBrace: return "'{'";
    case Tok::RBrace: return "'}'";
    case Tok::Comma: return "','";
    case Tok::Colon: return "':'";
    case Tok::Equals: return "'='";
    case Tok::DotDot: return "'..'";
    case Tok::Plus: return "'+'";
    case Tok::Minus: return "'-'";
    case Tok::Star: return "'*'";
    case Tok::SlashSlash: return "'//'";
    case Tok::Percent: return "'%'";
    case Tok::Less: return "'<'";
    case Tok::LessEq: return "'<='";
    case Tok::Greater: return "'>'";
    case Tok::GreaterEq: return "'>='";
    case Tok::EqEq: return "'=='";
    case Tok::NotEq: return "'!='";
    case Tok::AndAnd: return "'&&'";
  }
  return "token";
}

namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool digit(char c) { return c >= '0' && c <= '9'; }

std::string printable(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return fmt::format("'{}'", c);
  return fmt::format("byte 0x{:02x}", u);
}

}  // namespace

Lexer::Lexer(std::string_view source, std::string file_name) : src_(source), file_(std::move(file_name)) {}

void Lexer::advance(size_t n) {
  for (size_t i = 0; i < n && pos_ < src_.size(); ++i) {
    if (src_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }
}

void Lexer::skip_space_and_comments() {
  while (pos_ < src_.size()) {
    char c = cur();
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      advance();
    } else if (c == '#') {
      while (pos_ < src_.size() && cur() != '\n') advance();
    } else {
      break;
    }
  }
}

SourceLoc Lexer::loc_here() { return peek().loc; }

const Token& Lexer::peek() {
  if (buffered_ == 0) buffer_[buffered_++] = lex();
  return buffer_[0];
}

const Token& Lexer::peek2() {
  peek();
  if (buffered_ == 1) buffer_[buffered_++] = lex();
  return buffer_[1];
}

Token Lexer::next() {
  if (buffered_ == 0) return lex();
  Token t = std::move(buffer_[0]);
  if (buffered_ == 2) buffer_[0] = std::move(buffer_[1]);
  --buffered_;
  return t;
}

bool Lexer::accept(Tok kind) {
  if (peek().kind != kind) return false;
  next();
  return true;
}

Token Lexer::expect(Tok kind, const char* what) {
  if (peek().kind != kind) fail(peek(), what);
  return next();
}

void Lexer::fail(const Token& at, const std::string& expected) {
  throw UserError(ErrorKind::Syntax, fmt::format("expected {}, found {}", expected, describe(at)), at.loc);
}

std::string Lexer::describe(const Token& t) {
  switch (t.kind) {
    case Tok::End: return "end of input";
    case Tok::Ident: return fmt::format("identifier '{}'", t.text);
    case Tok::Int:
    case Tok::Float: return fmt::format("number {}", t.text);
    case Tok::String: return fmt::format("string \"{}\"", t.text);
    case Tok::ValueName: return fmt::format("value %{}", t.text);
    case Tok::GlobalName: return fmt::format("@{}", t.text);
    default: return tok_name(t.kind);
  }
}

Token Lexer::lex() {
  skip_space_and_comments();
  Token t;
  t.loc = loc();
  if (pos_ >= src_.size()) {
    t.kind = Tok::End;
    return t;
  }
  const size_t start = pos_;
  auto take_while = [&](auto pred) {
    while (pos_ < src_.size() && pred(cur())) {
      advance();
      if (pos_ - start > kMaxTokenBytes) {
        throw UserError(ErrorKind::Limit, fmt::format("token longer than {} bytes", kMaxTokenBytes), t.loc);
      }
    }
  };
  const char c = cur();

  if (ident_start(c)) {
    take_while(ident_char);
    t.kind = Tok::Ident;
    t.text = std::string(src_.substr(start, pos_ - start));
    return t;
  }
  if (digit(c)) {
    take_while(digit);
    bool is_float = false;
    if (cur() == '.' && digit(at_offset(1))) {
      is_float = true;
      advance();
      take_while(digit);
    }
    if ((cur() == 'e' || cur() == 'E') &&
        (digit(at_offset(1)) || ((at_offset(1) == '-' || at_offset(1) == '+') && digit(at_offset(2))))) {
      is_float = true;
      advance(2);
      take_while(digit);
    }
    if (ident_char(cur())) {
      throw UserError(ErrorKind::Syntax, fmt::format("unexpected {} after a number", printable(cur())), loc());
    }
    t.text = std::string(src_.substr(start, pos_ - start));
    const char* first = t.text.data();
    const char* last = first + t.text.size();
    if (is_float) {
      t.kind = Tok::Float;
      auto r = std::from_chars(first, last, t.float_value);
      if (r.ec == std::errc::result_out_of_range) {
        throw UserError(ErrorKind::Literal, fmt::format("number {} is out of range for f64", t.text), t.loc);
      }
    } else {
      t.kind = Tok::Int;
      auto r = std::from_chars(first, last, t.int_value);
      t.int_overflow = r.ec == std::errc::result_out_of_range || t.int_value > uint64_t{INT64_MAX};
      std::from_chars(first, last, t.float_value);
    }
    return t;
  }
  if (c == '"') {
    advance();
    std::string out;
    while (true) {
      if (pos_ >= src_.size() || cur() == '\n') {
        throw UserError(ErrorKind::Syntax, "unterminated string", t.loc);
      }
      char d = cur();
      if (d == '"') {
        advance();
        break;
      }
      if (d == '\\') {
        char e = at_offset(1);
        if (e != '"' && e != '\\') {
          throw UserError(ErrorKind::Syntax, "only \\\" and \\\\ escapes are allowed in strings", loc());
        }
        out += e;
        advance(2);
      } else if (static_cast<unsigned char>(d) < 0x20 || static_cast<unsigned char>(d) >= 0x7f) {
        throw UserError(ErrorKind::Syntax, fmt::format("unexpected {} in a string", printable(d)), loc());
      } else {
        out += d;
        advance();
      }
      if (out.size() > kMaxTokenBytes) {
        throw UserError(ErrorKind::Limit, fmt::format("string longer than {} bytes", kMaxTokenBytes), t.loc);
      }
    }
    t.kind = Tok::String;
    t.text = std::move(out);
    return t;
  }
  if ((c == '%' || c == '@') && ident_char(at_offset(1))) {
    advance();
    const size_t name_start = pos_;
    take_while(ident_char);
    t.kind = c == '%' ? Tok::ValueName : Tok::GlobalName;
    t.text = std::string(src_.substr(name_start, pos_ - name_start));
    return t;
  }

  auto two = [&](char second) { return at_offset(1) == second; };
  auto punct = [&](Tok kind, size_t len) {
    advance(len);
    t.kind = kind;
    t.text = std::string(src_.substr(start, len));
    return t;
  };
  switch (c) {
    case '(': return punct(Tok::LParen, 1);
    case ')': return punct(Tok::RParen, 1);
    case '[': return punct(Tok::LBracket, 1);
    case ']': return punct(Tok::RBracket, 1);
    case '{': return punct(Tok::LBrace, 1);
    case '}': return punct(Tok::RBrace, 1);
    case ',': return punct(Tok::Comma, 1);
    case ':': return punct(Tok::Colon, 1);
    case '+': return punct(Tok::Plus, 1);
    case '-': return punct(Tok::Minus, 1);
    case '*': return punct(Tok::Star, 1);
    case '%': return punct(Tok::Percent, 1);
    case '.':
      if (two('.')) return punct(Tok::DotDot, 2);
      break;
    case '/':
      if (two('/')) return punct(Tok::SlashSlash, 2);
      break;
    case '=': return two('=') ? punct(Tok::EqEq, 2) : punct(Tok::Equals, 1);
    case '<': return two('=') ? punct(Tok::LessEq, 2) : punct(Tok::Less, 1);
    case '>': return two('=') ? punct(Tok::GreaterEq, 2) : punct(Tok::Greater, 1);
    case '!':
      if (two('=')) return punct(Tok::NotEq, 2);
      break;
    case '&':
      if (two('&')) return punct(Tok::AndAnd, 2);
      break;
    default: break;
  }
  throw UserError(ErrorKind::Syntax, fmt::format("unexpected {}", printable(c)), t.loc);
}

}  // namespace difftest
