#include "compiler/support/diagnostics.h"

#include <fmt/format.h>

namespace difftest {

std::string SourceLoc::str() const {
  return fmt::format("{}:{}:{}", file.empty() ? "<input>" : file, line, col);
}

const char* error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Syntax: return "syntax";
    case ErrorKind::UnknownOp: return "unknown-op";
    case ErrorKind::UnknownName: return "unknown-name";
    case ErrorKind::DuplicateName: return "duplicate-name";
    case ErrorKind::Arity: return "arity";
    case ErrorKind::Attribute: return "attribute";
    case ErrorKind::TypeMismatch: return "type-mismatch";
    case ErrorKind::Shape: return "shape";
    case ErrorKind::UndeclaredDim: return "undeclared-dim";
    case ErrorKind::NegativeDim: return "negative-dim";
    case ErrorKind::Literal: return "literal";
    case ErrorKind::Overflow: return "overflow";
    case ErrorKind::Limit: return "limit";
    case ErrorKind::Evaluation: return "evaluation";
    case ErrorKind::Usage: return "usage";
    case ErrorKind::Io: return "io";
  }
  return "unknown";
}

static std::string render(ErrorKind kind, const std::string& message, const SourceLoc& loc) {
  if (loc.valid()) return fmt::format("{}: error[{}]: {}", loc.str(), error_kind_name(kind), message);
  return fmt::format("error[{}]: {}", error_kind_name(kind), message);
}

UserError::UserError(ErrorKind kind, std::string message, SourceLoc loc)
    : std::runtime_error(render(kind, message, loc)),
      kind_(kind),
      message_(std::move(message)),
      loc_(std::move(loc)) {}

UserError UserError::located(const SourceLoc& loc) const {
  if (loc_.valid()) return *this;
  return UserError(kind_, message_, loc);
}

void internal_error(const std::string& message, const char* file, int line) {
  throw InternalError(fmt::format("{} ({}:{})", message, file, line));
}

}  // namespace difftest
