#include "compiler/loop/printer.h"

#include <fmt/format.h>

#include <cmath>
#include <sstream>

namespace difftest::loop {

namespace {

std::string float_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  for (int digits = 1; digits <= 17; ++digits) {
    std::string s = fmt::format("{:.{}g}", v, digits);
    if (std::stod(s) == v) {
      if (s.find_first_of(".en") == std::string::npos) s += ".0";
      return s;
    }
  }
  return fmt::format("{:.17g}", v);
}

std::string join(const std::vector<Expr>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + print(v[i]);
  return s;
}

std::string buffer_decl(const Buffer& b) { return fmt::format("{}: {}[{}]", b.name(), dtype_name(b.dtype()), join(b.shape())); }

void print_block(std::ostringstream& os, const Stmt& s, int indent) {
  os << " {\n" << print(s, indent + 1) << std::string(static_cast<size_t>(indent) * 2, ' ') << "}";
}

}  // namespace

std::string print(const Expr& e) {
  if (!e.defined()) return "<undefined>";
  const ExprNode& n = e.node();
  switch (n.kind) {
    case ExprKind::IntImm:
      if (n.dtype == DType::i64) return std::to_string(n.int_value);
      if (n.dtype == DType::boolean) return n.int_value ? "true" : "false";
      return fmt::format("{}:{}", n.int_value, dtype_name(n.dtype));
    case ExprKind::FloatImm: return fmt::format("{}:{}", float_text(n.float_value), dtype_name(n.dtype));
    case ExprKind::Var: return n.name;
    case ExprKind::Load: return fmt::format("{}[{}]", n.buffer.name(), print(n.operands[0]));
    case ExprKind::Binary:
      if (n.bin == BinOp::Min || n.bin == BinOp::Max) {
        return fmt::format("{}({}, {})", binop_symbol(n.bin), print(n.operands[0]), print(n.operands[1]));
      }
      return fmt::format("({} {} {})", print(n.operands[0]), binop_symbol(n.bin), print(n.operands[1]));
    case ExprKind::Compare:
      return fmt::format("({} {} {})", print(n.operands[0]), cmpop_symbol(n.cmp), print(n.operands[1]));
    case ExprKind::Not: return "!" + print(n.operands[0]);
    case ExprKind::Cast: return fmt::format("cast<{}>({})", dtype_name(n.dtype), print(n.operands[0]));
    case ExprKind::Select: return fmt::format("select({})", join(n.operands));
    case ExprKind::Call: return fmt::format("{}({})", n.name, join(n.operands));
  }
  return "?";
}

std::string print(const Stmt& s, int indent) {
  std::ostringstream os;
  const std::string pad(static_cast<size_t>(indent) * 2, ' ');
  if (!s.defined()) return pad + "<undefined>\n";
  const StmtNode& n = s.node();
  switch (n.kind) {
    case StmtKind::For:
      os << pad << fmt::format("for ({}, {}, {}) {}", n.var.node().name, print(n.min), print(n.extent),
                               for_kind_name(n.for_kind));
      print_block(os, n.body[0], indent);
      os << "\n";
      break;
    case StmtKind::Store:
      os << pad << fmt::format("{}[{}] = {}\n", n.buffer.name(), print(n.index), print(n.value));
      break;
    case StmtKind::Allocate:
      os << pad << fmt::format("alloc {} {}", buffer_decl(n.buffer), scope_name(n.scope));
      print_block(os, n.body[0], indent);
      os << "\n";
      break;
    case StmtKind::IfThenElse:
      os << pad << fmt::format("if {}", print(n.value));
      print_block(os, n.body[0], indent);
      if (n.body.size() > 1) {
        os << " else";
        print_block(os, n.body[1], indent);
      }
      os << "\n";
      break;
    case StmtKind::Seq:
      for (const auto& b : n.body) os << print(b, indent);
      break;
    case StmtKind::Evaluate: os << pad << "eval " << print(n.value) << "\n"; break;
  }
  return os.str();
}

std::string print(const PrimFunc& f) {
  std::string params;
  for (size_t i = 0; i < f.params.size(); ++i) params += (i ? ", " : "") + buffer_decl(f.params[i]);
  std::ostringstream os;
  os << fmt::format("func @{}({}) dims({})", f.name, params, join(f.dims));
  print_block(os, f.body, 0);
  os << "\n";
  return os.str();
}

std::string print(const Module& m) {
  std::string s;
  for (const auto& f : m.funcs) s += print(f) + "\n";
  for (const auto& c : m.calls) {
    s += fmt::format("call @{}({}) dims({})", c.func, fmt::join(c.buffers, ", "), fmt::join(c.dims, ", "));
    s += c.group >= 0 ? fmt::format(" @fused({})\n", c.group) : "\n";
  }
  if (!m.outputs.empty()) s += fmt::format("outputs({})\n", fmt::join(m.outputs, ", "));
  for (const auto& slot : m.storage) s += fmt::format("storage({})\n", fmt::join(slot, ", "));
  if (m.target != &target::text_default_target()) s += fmt::format("target({})\n", m.target->name);
  return s;
}

}  // namespace difftest::loop
