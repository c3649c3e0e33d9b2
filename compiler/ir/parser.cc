#include "compiler/ir/parser.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <sstream>

#include "compiler/support/lexer.h"
#include "compiler/sym/sym_parse.h"
#include "compiler/ops/op.h"

namespace difftest {

namespace {

constexpr size_t kMaxLiteralElements = size_t{1} << 24;

bool is_reserved_dim_name(const std::string& name) {
  return sym::is_reserved_name(name) || parse_dtype(name).has_value() || name == "true" || name == "false" ||
         name == "inf" || name == "nan";
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& file) : lx_(text, file) {}

  Program program() {
    Token kw = lx_.expect(Tok::Ident, "'program'");
    if (kw.text != "program") lx_.fail(kw, "'program'");
    Token name = lx_.expect(Tok::GlobalName, "a program name such as @main");
    lx_.expect(Tok::LParen, "'('");
    if (!lx_.at(Tok::RParen)) {
      do {
        dim_decl();
      } while (lx_.accept(Tok::Comma));
    }
    lx_.expect(Tok::RParen, "')' or ','");
    lx_.expect(Tok::LBrace, "'{'");
    while (!(lx_.at(Tok::Ident) && lx_.peek().text == "return")) {
      if (lx_.at(Tok::End) || lx_.at(Tok::RBrace)) lx_.fail(lx_.peek(), "a binding or 'return'");
      binding();
    }
    lx_.next();
    std::vector<Value> outputs;
    do {
      outputs.push_back(value_ref());
    } while (lx_.accept(Tok::Comma));
    lx_.expect(Tok::RBrace, "'}' or ','");
    if (!lx_.at(Tok::End)) lx_.fail(lx_.peek(), "end of input after the program");
    return Program::make(name.text, std::move(dims_), std::move(bindings_), std::move(outputs), name.loc);
  }

 private:
  // ----------------------------------------------------------------------------- header

  int64_t signed_int(const char* what) {
    const bool negative = lx_.accept(Tok::Minus);
    Token t = lx_.expect(Tok::Int, what);
    if (t.int_overflow) throw UserError(ErrorKind::Literal, fmt::format("integer {} does not fit in 64 bits", t.text), t.loc);
    const auto v = static_cast<int64_t>(t.int_value);
    return negative ? -v : v;
  }

  void dim_decl() {
    Token name = lx_.expect(Tok::Ident, "a dim variable name");
    if (is_reserved_dim_name(name.text)) {
      throw UserError(ErrorKind::Syntax, fmt::format("'{}' is reserved and cannot name a dim variable", name.text),
                      name.loc);
    }
    if (dim_names_.count(name.text)) {
      throw UserError(ErrorKind::DuplicateName, fmt::format("dim variable '{}' is declared twice", name.text),
                      name.loc);
    }
    lx_.expect(Tok::Colon, "':' and a range such as 1..256");
    const SourceLoc range_loc = lx_.loc_here();
    const int64_t lo = signed_int("the lower bound of the range");
    lx_.expect(Tok::DotDot, "'..'");
    const int64_t hi = signed_int("the upper bound of the range");
    if (lo < 1 || hi < lo) {
      throw UserError(ErrorKind::NegativeDim,
                      fmt::format("dim variable '{}' has range {}..{}; dims need 1 <= lo <= hi", name.text, lo, hi),
                      range_loc);
    }
    if (hi > kMaxDimVarValue) {
      throw UserError(ErrorKind::Limit,
                      fmt::format("dim variable '{}' may reach {}, above the limit {}", name.text, hi, kMaxDimVarValue),
                      range_loc);
    }
    dim_names_.insert(name.text);
    dims_.push_back(DimVar{name.text, sym::Range{lo, hi}});
  }

  // ----------------------------------------------------------------------------- types

  sym::Expr dim_expr() {
    return sym::parse_expr(lx_, [this](const Token& t) {
      if (!dim_names_.count(t.text)) {
        throw UserError(ErrorKind::UndeclaredDim,
                        fmt::format("dim variable '{}' is not declared in the program header", t.text), t.loc);
      }
    });
  }

  TensorType type() {
    Token dt = lx_.expect(Tok::Ident, "a dtype such as f32");
    auto dtype = parse_dtype(dt.text);
    if (!dtype) {
      throw UserError(ErrorKind::Syntax,
                      fmt::format("unknown dtype '{}' (f64 f32 f16 bf16 i64 i32 i8 u8 u32 bool)", dt.text), dt.loc);
    }
    TensorType t{*dtype, {}};
    lx_.expect(Tok::LBracket, "'[' after the dtype");
    if (!lx_.at(Tok::RBracket)) {
      do {
        if (t.rank() == kMaxRank) {
          throw UserError(ErrorKind::Limit, fmt::format("rank above the maximum of {}", kMaxRank), lx_.loc_here());
        }
        t.shape.push_back(dim_expr());
      } while (lx_.accept(Tok::Comma));
    }
    lx_.expect(Tok::RBracket, "']' or ','");
    return t;
  }

  // ----------------------------------------------------------------------------- bindings

  Value value_ref() {
    Token t = lx_.expect(Tok::ValueName, "a value such as %x");
    auto it = values_.find(t.text);
    if (it == values_.end()) {
      throw UserError(ErrorKind::UnknownName, fmt::format("%{} is not defined before this use", t.text), t.loc);
    }
    return it->second;
  }

  void binding() {
    struct Result {
      Token name;
      TensorType type;
    };
    std::vector<Result> results;
    const SourceLoc loc = lx_.loc_here();
    do {
      Token name = lx_.expect(Tok::ValueName, "a result such as %0");
      if (values_.count(name.text) || std::any_of(results.begin(), results.end(),
                                                  [&](const Result& r) { return r.name.text == name.text; })) {
        throw UserError(ErrorKind::DuplicateName, fmt::format("%{} is defined twice", name.text), name.loc);
      }
      lx_.expect(Tok::Colon, "':' and the result type");
      results.push_back(Result{name, type()});
    } while (lx_.accept(Tok::Comma));
    lx_.expect(Tok::Equals, "'=' or ','");

    std::vector<Value> vals;
    for (auto& r : results) vals.push_back(Value::make(r.name.text, std::move(r.type)));

    Token head = lx_.expect(Tok::Ident, "'param', 'const' or an op name");
    if (head.text == "param" || head.text == "const") {
      if (vals.size() != 1) {
        throw UserError(ErrorKind::Arity, fmt::format("{} binds exactly one value", head.text), head.loc);
      }
      if (head.text == "param") {
        bindings_.push_back(Binding::param(vals[0], loc));
      } else {
        bindings_.push_back(Binding::constant(vals[0], constant(vals[0].type()), loc));
      }
    } else {
      bindings_.push_back(call(head, vals, loc));
    }
    for (const auto& v : vals) values_[v.name()] = v;
  }

  Binding call(const Token& head, std::vector<Value> results, const SourceLoc& loc) {
    const OpDef* op = OpRegistry::get().find(head.text);
    if (!op) throw UserError(ErrorKind::UnknownOp, fmt::format("unknown op '{}'", head.text), head.loc);
    lx_.expect(Tok::LParen, "'(' after the op name");
    std::vector<Value> args;
    std::vector<std::pair<std::string, AttrValue>> attrs;
    if (!lx_.at(Tok::RParen)) {
      do {
        if (lx_.at(Tok::ValueName)) {
          if (!attrs.empty()) lx_.fail(lx_.peek(), "an attribute (operands come first)");
          args.push_back(value_ref());
        } else {
          Token name = lx_.expect(Tok::Ident, "an operand or an attribute");
          lx_.expect(Tok::Equals, "'=' after the attribute name");
          const SourceLoc value_loc = lx_.loc_here();
          AttrValue raw = attr_value();
          const AttrSpec* spec = op->find_attr(name.text);
          if (!spec) throw UserError(ErrorKind::Attribute, unknown_attr_message(*op, name.text), name.loc);
          try {
            coerce_attr(*op, *spec, raw);
          } catch (const UserError& e) {
            throw e.located(value_loc);
          }
          for (const auto& [n, v] : attrs) {
            if (n == name.text) {
              throw UserError(ErrorKind::Attribute, fmt::format("{}: attribute '{}' is given twice", op->name, n),
                              name.loc);
            }
          }
          attrs.emplace_back(name.text, std::move(raw));
        }
      } while (lx_.accept(Tok::Comma));
    }
    lx_.expect(Tok::RParen, "')' or ','");
    const int group = fusion_group();
    try {
      return Binding::call(std::move(results), op, std::move(args), make_attrs(*op, attrs), loc).with_group(group);
    } catch (const UserError& e) {
      throw UserError(e.kind(), e.message(), head.loc);  // arity and attribute errors point at the op
    }
  }

  // An optional trailing `@fused(N)`; -1 when absent.
  int fusion_group() {
    if (!lx_.at(Tok::GlobalName)) return -1;
    Token at = lx_.next();
    if (at.text != "fused") lx_.fail(at, "'@fused(N)' or the next binding");
    lx_.expect(Tok::LParen, "'(' after @fused");
    Token n = lx_.expect(Tok::Int, "a fusion group number");
    if (n.int_overflow || n.int_value > static_cast<uint64_t>(INT32_MAX)) {
      throw UserError(ErrorKind::Literal, fmt::format("fusion group {} is too large", n.text), n.loc);
    }
    lx_.expect(Tok::RParen, "')' after the fusion group");
    return static_cast<int>(n.int_value);
  }

  AttrValue attr_value() {
    const Token& t = lx_.peek();
    switch (t.kind) {
      case Tok::String: return lx_.next().text;
      case Tok::Float: return lx_.next().float_value;
      case Tok::Minus:
        if (lx_.peek2().kind == Tok::Float) {
          lx_.next();
          return -lx_.next().float_value;
        }
        return attr_dim();
      case Tok::LBracket: {
        lx_.next();
        std::vector<sym::Expr> items;
        if (!lx_.at(Tok::RBracket)) {
          do {
            if (items.size() == kMaxListItems) {
              throw UserError(ErrorKind::Limit, fmt::format("attribute list longer than {}", kMaxListItems),
                              lx_.loc_here());
            }
            if (lx_.at(Tok::Float) || lx_.at(Tok::String)) {
              lx_.fail(lx_.peek(), "an integer or a dim expression (lists hold no floats or strings)");
            }
            items.push_back(attr_dim());
          } while (lx_.accept(Tok::Comma));
        }
        lx_.expect(Tok::RBracket, "']' or ','");
        return items;
      }
      case Tok::Ident:
        if (t.text == "true" || t.text == "false") return lx_.next().text == "true";
        if (auto dt = parse_dtype(t.text)) {
          lx_.next();
          return *dt;
        }
        return attr_dim();
      default: return attr_dim();
    }
  }

  sym::Expr attr_dim() {
    return sym::parse_expr(lx_, [this](const Token& t) {
      if (!dim_names_.count(t.text)) {
        throw UserError(ErrorKind::UndeclaredDim,
                        fmt::format("'{}' is not a declared dim variable (strings are written in quotes)", t.text),
                        t.loc);
      }
    });
  }

  // ----------------------------------------------------------------------------- constants

  double number() {
    const bool negative = lx_.accept(Tok::Minus);
    const Token& t = lx_.peek();
    double v;
    if (t.kind == Tok::Int || t.kind == Tok::Float) {
      v = lx_.next().float_value;
    } else if (t.kind == Tok::Ident && (t.text == "inf" || t.text == "nan")) {
      v = lx_.next().text == "inf" ? INFINITY : NAN;
    } else {
      lx_.fail(t, "a number");
    }
    return negative ? -v : v;
  }

  ConstantInit constant(const TensorType& type) {
    ConstantInit c;
    const Token& t = lx_.peek();
    if (t.kind == Tok::Ident && (t.text == "uniform" || t.text == "normal")) {
      Token kind = lx_.next();
      c.kind = kind.text == "uniform" ? ConstantInit::Kind::Uniform : ConstantInit::Kind::Normal;
      lx_.expect(Tok::LParen, "'('");
      c.p0 = number();
      lx_.expect(Tok::Comma, "','");
      c.p1 = number();
      lx_.expect(Tok::Comma, "','");
      Token seed = lx_.expect(Tok::Ident, "seed=");
      if (seed.text != "seed") lx_.fail(seed, "seed=");
      lx_.expect(Tok::Equals, "'='");
      Token s = lx_.expect(Tok::Int, "an integer seed");
      if (s.int_overflow) throw UserError(ErrorKind::Literal, "seed does not fit in 63 bits", s.loc);
      c.seed = s.int_value;
      lx_.expect(Tok::RParen, "')'");
      return c;
    }
    auto shape = type.static_shape();
    if (!shape) {
      throw UserError(ErrorKind::Literal,
                      fmt::format("a literal constant needs a static shape, got {}", type.str()), t.loc);
    }
    size_t count = 1;
    for (int64_t d : *shape) {
      if (d < 1 || count > kMaxLiteralElements / static_cast<size_t>(d)) {
        throw UserError(ErrorKind::Limit, fmt::format("literal of type {} is empty or too large", type.str()), t.loc);
      }
      count *= static_cast<size_t>(d);
    }
    literal(c, type.dtype, *shape, 0);
    return c;
  }

  void literal(ConstantInit& c, DType t, const std::vector<int64_t>& shape, size_t dim) {
    if (dim == shape.size()) {
      scalar(c, t);
      return;
    }
    Token open = lx_.expect(Tok::LBracket, fmt::format("'[' (the type has rank {})", shape.size()).c_str());
    int64_t n = 0;
    do {
      if (n == shape[dim]) {
        throw UserError(ErrorKind::Literal,
                        fmt::format("more than {} elements along dim {} of the literal", shape[dim], dim),
                        lx_.loc_here());
      }
      literal(c, t, shape, dim + 1);
      ++n;
    } while (lx_.accept(Tok::Comma));
    if (n != shape[dim]) {
      throw UserError(ErrorKind::Literal,
                      fmt::format("{} elements along dim {} of the literal, the type says {}", n, dim, shape[dim]),
                      open.loc);
    }
    lx_.expect(Tok::RBracket, "']' or ','");
  }

  void scalar(ConstantInit& c, DType t) {
    const Token& tok = lx_.peek();
    const SourceLoc loc = tok.loc;
    if (is_bool(t)) {
      if (tok.kind != Tok::Ident || (tok.text != "true" && tok.text != "false")) lx_.fail(tok, "true or false");
      c.int_values.push_back(lx_.next().text == "true" ? 1 : 0);
      return;
    }
    if (is_float(t)) {
      c.float_values.push_back(number());
      return;
    }
    const bool negative = lx_.accept(Tok::Minus);
    Token v = lx_.expect(Tok::Int, fmt::format("an integer ({} literal)", dtype_name(t)).c_str());
    const bool too_big = v.int_overflow;
    const int64_t x = too_big ? 0 : (negative ? -static_cast<int64_t>(v.int_value) : static_cast<int64_t>(v.int_value));
    if (too_big || x < int_min(t) || x > int_max(t)) {
      throw UserError(ErrorKind::Literal,
                      fmt::format("{}{} is out of range for {} [{}, {}]", negative ? "-" : "", v.text, dtype_name(t),
                                  int_min(t), int_max(t)),
                      loc);
    }
    c.int_values.push_back(x);
  }

  static constexpr size_t kMaxListItems = 64;

  Lexer lx_;
  std::vector<DimVar> dims_;
  std::set<std::string> dim_names_;
  std::vector<Binding> bindings_;
  std::map<std::string, Value> values_;
};

}  // namespace

Program parse_program(std::string_view text, const std::string& file_name) {
  if (text.size() > kMaxInputBytes) {
    throw UserError(ErrorKind::Limit, fmt::format("input of {} bytes exceeds the limit of {}", text.size(),
                                                  kMaxInputBytes),
                    SourceLoc{file_name, 1, 1});
  }
  Parser p(text, file_name);
  return p.program();
}

Program parse_program_file(const std::string& path) { return parse_program(read_text_file(path), path); }

}  // namespace difftest
