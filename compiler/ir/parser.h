// Parser of the graph IR text form.
//
//   program   := 'program' GLOBAL '(' [dimdecl (',' dimdecl)*] ')' '{' binding* return '}'
//   dimdecl   := IDENT ':' int '..' int
//   binding   := result (',' result)* '=' rhs
//   result    := VALUE ':' type                     type := DTYPE '[' [dim (',' dim)*] ']'
//   rhs       := 'param' | 'const' constant | OPNAME '(' [VALUE,* attr,*] ')'
//   constant  := literal | ('uniform' | 'normal') '(' number ',' number ',' 'seed' '=' INT ')'
//   literal   := scalar | '[' literal (',' literal)* ']'
//   attr      := IDENT '=' (STRING | 'true' | 'false' | DTYPE | number | dim | '[' [dim,*] ']')
//   return    := 'return' VALUE (',' VALUE)*
// `#` starts a comment to the end of the line.
//
// The parser checks syntax and names (undefined values, undeclared dims, unknown ops,
// attribute schemas, arity); types and shapes are the verifier's job. Every error is a
// UserError with file:line:col. It never crashes on any input: sizes and nesting are bounded
// (kMaxInputBytes, sym::kMaxDepth, kMaxRank) and memory stays proportional to the input.
#pragma once

#include <string>
#include <string_view>

#include "compiler/ir/ir.h"
#include "compiler/support/file_io.h"  // kMaxInputBytes, and read_text_file for parse_program_file

namespace difftest {

Program parse_program(std::string_view text, const std::string& file_name = "");
Program parse_program_file(const std::string& path);  // Io error when unreadable

}  // namespace difftest
