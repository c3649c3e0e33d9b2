// Parser for symbolic expressions, e.g. `(n + 2*p - d*(k - 1) - 1) // s + 1`.
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '//' | '%') unary)*
//   unary   := '-' unary | primary          (-5 is the constant -5; -x is -1*x)
//   primary := INT | IDENT | ('min' | 'max') '(' expr ',' expr ')' | '(' expr ')'
// Operators associate to the left; parentheses build no node, so print(parse(s)) == s for
// canonical text. Trees deeper than kMaxDepth are refused (Limit), so no input can exhaust
// the stack of a later recursive pass.
#pragma once

#include <functional>
#include <string_view>

#include "compiler/support/lexer.h"
#include "compiler/sym/sym.h"

namespace difftest::sym {

constexpr int kMaxDepth = 64;

// `on_var` is called for every variable token (the IR parser uses it to reject undeclared dims).
Expr parse_expr(Lexer& lx, const std::function<void(const Token&)>& on_var = {});

// Parses a whole string; trailing tokens are an error.
Expr parse(std::string_view text, const std::string& file_name = "");

bool is_reserved_name(std::string_view name);  // min, max

}  // namespace difftest::sym
