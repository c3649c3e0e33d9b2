// Errors. Two kinds, kept apart on purpose (STYLE.md, practice 7):
//   UserError     — the input is bad (IR text, a flag, a JSON or .npy file). Carries a kind
//                   and, where known, a file:line:col location. The CLI exits 2 on it.
//   InternalError — difftest itself is wrong. The CLI exits 3 on it.
#pragma once

#include <stdexcept>
#include <string>

namespace difftest {

struct SourceLoc {
  std::string file;  // empty for text without a file name (then "<input>" is printed)
  int line = 0;      // 1-based; 0 means "no location"
  int col = 0;       // 1-based, in bytes

  bool valid() const { return line > 0; }
  std::string str() const;  // "file:line:col"
};

enum class ErrorKind {
  Syntax,          // the text does not follow the grammar
  UnknownOp,       // an op name the registry does not know
  UnknownName,     // a %value used before (or without) its definition
  DuplicateName,   // a %value or dim variable defined twice
  Arity,           // wrong number of operands or results
  Attribute,       // missing, unknown or ill-typed attribute
  TypeMismatch,    // declared type differs from the inferred one, or operand dtypes disagree
  Shape,           // shapes cannot be reconciled (broadcast, reshape, matmul K, ...)
  UndeclaredDim,   // a dim variable not declared in the program header
  NegativeDim,     // a dim that is not provably >= 1, or a bad variable range
  Literal,         // a literal out of range for its type, or of the wrong shape
  Overflow,        // 64-bit integer arithmetic would overflow
  Limit,           // input exceeds a documented size or nesting limit
  Evaluation,      // a symbolic expression cannot be evaluated (unbound variable, division by 0)
  Usage,           // command-line usage
  Io,              // a file cannot be read or written
};

const char* error_kind_name(ErrorKind kind);

class UserError : public std::runtime_error {
 public:
  UserError(ErrorKind kind, std::string message, SourceLoc loc = {});

  ErrorKind kind() const { return kind_; }
  const SourceLoc& loc() const { return loc_; }
  const std::string& message() const { return message_; }

  // The same error, located at `loc` unless it already has a location.
  UserError located(const SourceLoc& loc) const;

 private:
  ErrorKind kind_;
  std::string message_;
  SourceLoc loc_;
};

class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& message) : std::logic_error("internal error: " + message) {}
};

[[noreturn]] void internal_error(const std::string& message, const char* file, int line);

}  // namespace difftest

// An invariant of difftest's own code. Violations are bugs in difftest, never bad input.
#define DT_CHECK(cond, msg)                                               \
  do {                                                                    \
    if (!(cond)) ::difftest::internal_error((msg), __FILE__, __LINE__);   \
  } while (0)
