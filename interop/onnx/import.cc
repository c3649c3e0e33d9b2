#include "interop/onnx/import.h"

#include <fmt/format.h>

#include <algorithm>

#include "compiler/sym/sym_parse.h"
#include "compiler/sym/sym_simplify.h"
#include "interop/onnx/import_context.h"

namespace difftest::interop {

namespace {

std::string sanitized(const std::string& name) {
  std::string out;
  for (const char c : name) out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  return out.empty() ? "v" : out;
}

ConstantInit literal_of(const Tensor& t) {
  ConstantInit init;
  init.kind = ConstantInit::Kind::Literal;
  if (is_float(t.dtype())) {
    init.float_values = t.to_doubles();
  } else {
    init.int_values = t.to_ints();
  }
  return init;
}

bool has_empty_dim(const TensorType& t) {
  for (const auto& d : t.shape) {
    if (d.is_const(0)) return true;
  }
  return false;
}

// A dim_param is a name ("batch"), or an expression of names as difftest's exporter writes a
// derived dim ("2*m"); a name that is no valid IR name is taken whole, sanitized.
sym::Expr dim_param_expr(const std::string& text) {
  try {
    return sym::parse(text);
  } catch (const UserError&) {
    return sym::Expr::var(sanitized(text));
  }
}

void collect_vars(const sym::Expr& e, std::vector<std::string>& out) {
  if (e.is_var()) {
    if (std::find(out.begin(), out.end(), e.name()) == out.end()) out.push_back(e.name());
  } else if (!e.is_const()) {
    collect_vars(e.a(), out);
    collect_vars(e.b(), out);
  }
}

std::vector<std::string> dim_param_vars(const std::string& text) {
  std::vector<std::string> vars;
  collect_vars(dim_param_expr(text), vars);
  return vars;
}

TensorType static_type(const Tensor& t) {
  TensorType type{t.dtype(), {}};
  for (const int64_t d : t.shape()) type.shape.push_back(sym::Expr::constant(d));
  return type;
}

int default_opset(const ::onnx::ModelProto& model) {
  for (const auto& o : model.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") return static_cast<int>(o.version());
  }
  return 1;
}

}  // namespace

std::string GraphImport::fresh_name(const std::string& onnx_name) {
  const std::string base = sanitized(onnx_name);
  std::string name = base;
  for (int i = 1; used_names_.count(name); ++i) name = fmt::format("{}_{}", base, i);
  used_names_.insert(name);
  return name;
}

Value GraphImport::param(const std::string& onnx_name, TensorType type) {
  const Value v = Value::make(fresh_name(onnx_name), std::move(type));
  bindings_.push_back(Binding::param(v));
  bind(onnx_name, v);
  return v;
}

Value GraphImport::constant(const std::string& onnx_name, const Tensor& value) {
  const Value v = Value::make(fresh_name(onnx_name), static_type(value));
  // The IR has no empty tensors: an empty constant can only be read as an attribute (an empty
  // axes list); as an operand, the call refuses it (NodeImport::calls).
  if (value.numel() > 0) bindings_.push_back(Binding::constant(v, literal_of(value)));
  constants_.emplace(v.get(), value);
  if (!onnx_name.empty()) bind(onnx_name, v);
  return v;
}

std::vector<Value> GraphImport::call(const std::string& op, std::vector<Value> args, const AttrList& attrs,
                                     const std::string& hint) {
  const OpDef* def = OpRegistry::get().find(op);
  if (!def) throw InternalError(fmt::format("the importer calls an unknown op {}", op));
  const Attrs a = make_attrs(*def, attrs);
  std::vector<TensorType> in;
  for (const auto& v : args) in.push_back(v.type());
  std::vector<TensorType> types = infer_types(*def, in, a, ranges_);
  std::vector<Value> results;
  for (auto& type : types) results.push_back(Value::make(fresh_name(hint), std::move(type)));
  bindings_.push_back(Binding::call(results, def, std::move(args), a));
  return results;
}

const GraphImport::ShapeValue* GraphImport::shape_value(const std::string& onnx_name) const {
  const auto it = shape_values_.find(onnx_name);
  return it == shape_values_.end() ? nullptr : &it->second;
}

std::optional<Value> GraphImport::lookup(const std::string& onnx_name) const {
  const auto it = values_.find(onnx_name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

const Tensor* GraphImport::constant_of(const Value& v) const {
  const auto it = constants_.find(v.get());
  return it == constants_.end() ? nullptr : &it->second;
}

bool NodeImport::has_input(size_t i) const { return i < num_inputs() && !node_.input(static_cast<int>(i)).empty(); }

Value NodeImport::input(size_t i) const {
  if (!has_input(i)) unsupported("missing input", fmt::format("{}: input {} is missing", where(), i));
  const std::string& name = node_.input(static_cast<int>(i));
  if (!graph_.lookup(name)) {
    if (const auto* shape = graph_.shape_value(name)) {
      // Shape arithmetic used as data: a constant when every element is one, else each
      // element an arange of length 1 from it, concatenated.
      const bool symbolic =
          std::any_of(shape->elements.begin(), shape->elements.end(), [](const sym::Expr& e) { return !e.is_const(); });
      if (!symbolic) {
        std::vector<int64_t> values;
        for (const auto& e : shape->elements) values.push_back(e.value());
        const std::vector<int64_t> dims =
            shape->scalar ? std::vector<int64_t>{} : std::vector<int64_t>{static_cast<int64_t>(values.size())};
        graph_.constant(name, Tensor::from_ints(shape->dtype, dims, values));
      } else {
        std::vector<Value> parts;
        for (const auto& e : shape->elements) {
          parts.push_back(
              call("arange", {},
                   {{"start", e}, {"end", sym::simplify(e + sym::Expr::constant(1))}, {"dtype", shape->dtype}}));
        }
        Value v = parts.size() == 1 ? parts[0] : call("concat", parts, {{"axis", int64_t{0}}});
        if (shape->scalar) v = call("squeeze", {v}, {{"axes", std::vector<int64_t>{0}}});
        graph_.bind(name, v);
      }
    }
  }
  const std::optional<Value> v = graph_.lookup(name);
  if (!v)
    throw UserError(ErrorKind::UnknownName, fmt::format("{}: input '{}' is not defined before it", where(), name));
  return *v;
}

std::optional<Tensor> NodeImport::constant_input(size_t i) const {
  if (!has_input(i)) return std::nullopt;
  const Tensor* t = graph_.constant_of(input(i));
  if (!t) {
    unsupported(fmt::format("computed input of {}", node_.op_type()),
                fmt::format("{}: input {} ('{}') must be a constant (an initializer or a Constant node)", where(), i,
                            node_.input(static_cast<int>(i))));
  }
  return *t;
}

std::vector<sym::Expr> NodeImport::dims_input(size_t i) const {
  if (has_input(i)) {
    if (const auto* shape = graph_.shape_value(node_.input(static_cast<int>(i)))) return shape->elements;
  }
  std::vector<sym::Expr> out;
  for (const int64_t v : ints_input(i)) out.push_back(sym::Expr::constant(v));
  return out;
}

std::vector<int64_t> NodeImport::ints_input(size_t i) const {
  const std::optional<Tensor> t = constant_input(i);
  if (!t) unsupported("missing input", fmt::format("{}: input {} is missing", where(), i));
  if (is_float(t->dtype())) {
    throw UserError(ErrorKind::TypeMismatch, fmt::format("{}: input {} must hold integers", where(), i));
  }
  return t->to_ints();
}

bool NodeImport::has_attr(const std::string& name) const {
  for (const auto& a : node_.attribute()) {
    if (a.name() == name) return true;
  }
  return false;
}

namespace {

const ::onnx::AttributeProto* find_attr(const ::onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

}  // namespace

int64_t NodeImport::attr_int(const std::string& name, int64_t fallback) const {
  const auto* a = find_attr(node_, name);
  if (!a) return fallback;
  if (a->type() != ::onnx::AttributeProto::INT) {
    throw UserError(ErrorKind::Attribute, fmt::format("{}: attribute {} must be an int", where(), name));
  }
  return a->i();
}

double NodeImport::attr_float(const std::string& name, double fallback) const {
  const auto* a = find_attr(node_, name);
  if (!a) return fallback;
  if (a->type() != ::onnx::AttributeProto::FLOAT) {
    throw UserError(ErrorKind::Attribute, fmt::format("{}: attribute {} must be a float", where(), name));
  }
  return a->f();
}

std::vector<int64_t> NodeImport::attr_ints(const std::string& name) const {
  const auto* a = find_attr(node_, name);
  if (!a) return {};
  if (a->type() != ::onnx::AttributeProto::INTS) {
    throw UserError(ErrorKind::Attribute, fmt::format("{}: attribute {} must be a list of ints", where(), name));
  }
  return {a->ints().begin(), a->ints().end()};
}

std::string NodeImport::attr_string(const std::string& name, const std::string& fallback) const {
  const auto* a = find_attr(node_, name);
  if (!a) return fallback;
  if (a->type() != ::onnx::AttributeProto::STRING) {
    throw UserError(ErrorKind::Attribute, fmt::format("{}: attribute {} must be a string", where(), name));
  }
  return a->s();
}

const ::onnx::TensorProto* NodeImport::attr_tensor(const std::string& name) const {
  const auto* a = find_attr(node_, name);
  if (!a) return nullptr;
  if (a->type() != ::onnx::AttributeProto::TENSOR) {
    throw UserError(ErrorKind::Attribute, fmt::format("{}: attribute {} must be a tensor", where(), name));
  }
  return &a->t();
}

void NodeImport::only_attrs(std::initializer_list<const char*> known) const {
  for (const auto& a : node_.attribute()) {
    bool ok = false;
    for (const char* k : known) ok = ok || a.name() == k;
    if (!ok) {
      unsupported(fmt::format("attribute {}.{}", node_.op_type(), a.name()),
                  fmt::format("{}: attribute {} is not supported", where(), a.name()));
    }
  }
}

Value NodeImport::call(const std::string& op, std::vector<Value> args, const AttrList& attrs) const {
  return calls(op, std::move(args), attrs).front();
}

std::vector<Value> NodeImport::calls(const std::string& op, std::vector<Value> args, const AttrList& attrs) const {
  const std::string hint = node_.output_size() > 0 && !node_.output(0).empty() ? node_.output(0) : node_.op_type();
  for (const auto& v : args) {
    if (has_empty_dim(v.type()))
      unsupported("empty tensors", fmt::format("{}: an operand has a dim of size 0", where()));
  }
  try {
    return graph_.call(op, std::move(args), attrs, hint);
  } catch (const UserError& e) {
    // A result with a dim of size 0 (a slice past the end, an empty split): the IR has none.
    if (e.kind() == ErrorKind::NegativeDim) unsupported("empty tensors", fmt::format("{}: {}", where(), e.message()));
    throw UserError(e.kind(), fmt::format("{}: as {}: {}", where(), op, e.message()));
  }
}

Value NodeImport::constant(const Tensor& value) const {
  return graph_.constant(node_.output_size() > 0 ? node_.output(0) + "_c" : "c", value);
}

Value NodeImport::scalar(DType dtype, double value) const { return constant(Tensor::from_doubles(dtype, {}, {value})); }

std::string NodeImport::where() const {
  return fmt::format("node {} '{}' ({}, opset {})", index_, node_.name(), node_.op_type(), opset_);
}

void NodeImport::unsupported(const std::string& reason, const std::string& why) const {
  throw Unsupported(reason, why);
}

std::vector<std::string> importable_op_types() {
  std::vector<std::string> out;
  for (const auto& [name, fn] : translators()) out.push_back(name);
  return out;
}

void require_tensors(const ::onnx::ModelProto& model, const std::string& where) {
  for (const auto* list : {&model.graph().input(), &model.graph().output()}) {
    for (const auto& v : *list) {
      // An output may leave its type out; what it declares must be a tensor.
      if (v.type().value_case() != ::onnx::TypeProto::VALUE_NOT_SET && !v.type().has_tensor_type()) {
        throw Unsupported("sequence, map or optional values",
                          fmt::format("{}: '{}' is not a tensor (a sequence, map or optional)", where, v.name()));
      }
      for (const auto& d : v.type().tensor_type().shape().dim()) {
        if (d.has_dim_value() && d.dim_value() == 0) {
          throw Unsupported("empty tensors", fmt::format("{}: '{}' has a dim of size 0", where, v.name()));
        }
      }
    }
  }
}

std::map<std::string, sym::Range> recorded_dim_ranges(const ::onnx::ModelProto& model, const std::string& where) {
  std::map<std::string, sym::Range> out;
  for (const auto& prop : model.metadata_props()) {
    if (prop.key() != kDimRangesKey) continue;
    // "n=1..64,m=10..100"
    size_t at = 0;
    const std::string& text = prop.value();
    while (at < text.size()) {
      const size_t comma = std::min(text.find(',', at), text.size());
      const std::string item = text.substr(at, comma - at);
      const size_t eq = item.find('='), dots = item.find("..");
      try {
        if (eq == std::string::npos || dots == std::string::npos || dots < eq) throw std::invalid_argument(item);
        out[item.substr(0, eq)] = {std::stoll(item.substr(eq + 1, dots - eq - 1)), std::stoll(item.substr(dots + 2))};
      } catch (const std::logic_error&) {
        throw UserError(ErrorKind::Syntax,
                        fmt::format("{}: metadata {} has '{}', not NAME=LO..HI", where, kDimRangesKey, item));
      }
      at = comma + 1;
    }
  }
  return out;
}

namespace {

std::set<std::string> extent_input_names(const ::onnx::ModelProto& model) {
  std::set<std::string> names;
  for (const auto& prop : model.metadata_props()) {
    if (prop.key() != kExtentInputsKey) continue;
    for (size_t at = 0; at < prop.value().size();) {
      const size_t comma = std::min(prop.value().find(',', at), prop.value().size());
      names.insert(prop.value().substr(at, comma - at));
      at = comma + 1;
    }
  }
  return names;
}

}  // namespace

std::vector<ImportedInput> imported_inputs(const ::onnx::ModelProto& model) {
  const std::set<std::string> extents = extent_input_names(model);
  std::set<std::string> initializers;
  for (const auto& t : model.graph().initializer()) initializers.insert(t.name());
  GraphImport names({});  // names handed out in import_model's order: initializers, then inputs
  std::vector<ImportedInput> out;
  for (const auto& t : model.graph().initializer()) names.fresh_name(t.name());
  for (const auto& in : model.graph().input()) {
    if (!initializers.count(in.name()) && !extents.count(in.name())) {
      out.push_back({in.name(), names.fresh_name(in.name())});
    }
  }
  return out;
}

Program import_model(const ::onnx::ModelProto& model, const ImportOptions& options, const std::string& where) {
  const ::onnx::GraphProto& g = model.graph();
  const int opset = default_opset(model);
  for (const auto& o : model.opset_import()) {
    if (!o.domain().empty() && o.domain() != "ai.onnx" && o.domain() != "ai.onnx.ml" && o.domain() != "com.microsoft") {
      throw Unsupported(fmt::format("domain {}", o.domain()),
                        fmt::format("{}: operator set domain '{}' is not supported", where, o.domain()));
    }
  }
  // Dim variables: every dim_param of a graph input, with the range the options give, else the
  // one difftest's exporter recorded.
  const std::map<std::string, sym::Range> recorded = recorded_dim_ranges(model, where);
  std::vector<DimVar> dims;
  sym::Ranges ranges;
  std::set<std::string> initializers;
  for (const auto& t : g.initializer()) initializers.insert(t.name());
  require_tensors(model, where);
  for (const auto& in : g.input()) {
    if (initializers.count(in.name()) || options.known_inputs.count(in.name())) continue;
    for (const auto& d : in.type().tensor_type().shape().dim()) {
      if (!d.has_dim_param()) continue;
      for (const std::string& var : dim_param_vars(d.dim_param())) {
        if (ranges.count(var)) continue;
        auto range = options.dims.find(var);
        if (range == options.dims.end()) range = recorded.find(var);
        if (range == recorded.end()) {
          throw UserError(ErrorKind::UndeclaredDim,
                          fmt::format("{}: input '{}' has the symbolic dim '{}': give its range with --dim {}=LO..HI",
                                      where, in.name(), var, var));
        }
        dims.push_back({var, range->second});
        ranges[var] = range->second;
      }
    }
  }
  const std::set<std::string> extent_inputs = extent_input_names(model);
  GraphImport graph(ranges);
  for (const auto& t : g.initializer()) graph.constant(t.name(), tensor_from_proto(t, where));
  for (const auto& in : g.input()) {
    if (initializers.count(in.name())) continue;
    if (const auto known = options.known_inputs.find(in.name()); known != options.known_inputs.end()) {
      graph.constant(in.name(), known->second);
      continue;
    }
    const auto& tt = in.type().tensor_type();
    const std::optional<DType> dtype = dtype_from_onnx(tt.elem_type());
    if (!dtype) {
      throw Unsupported(fmt::format("dtype {}", onnx_dtype_name(tt.elem_type())),
                        fmt::format("{}: input '{}' has dtype {}, which difftest lacks", where, in.name(),
                                    onnx_dtype_name(tt.elem_type())));
    }
    TensorType type{*dtype, {}};
    if (!tt.has_shape()) {
      throw Unsupported("input without a shape", fmt::format("{}: input '{}' has no shape", where, in.name()));
    }
    for (const auto& d : tt.shape().dim()) {
      if (d.has_dim_value()) {
        type.shape.push_back(sym::Expr::constant(d.dim_value()));
      } else if (d.has_dim_param()) {
        type.shape.push_back(dim_param_expr(d.dim_param()));
      } else {
        throw Unsupported("unknown dim", fmt::format("{}: input '{}' has a dim of unknown size", where, in.name()));
      }
    }
    if (extent_inputs.count(in.name())) {
      graph.bind_extent(in.name(), std::move(type.shape));
    } else {
      graph.param(in.name(), std::move(type));
    }
  }
  for (int i = 0; i < g.node_size(); ++i) {
    const ::onnx::NodeProto& node = g.node(i);
    const NodeImport n(graph, node, i, opset);
    const bool contrib = node.domain() == kMicrosoftDomain;
    if (!node.domain().empty() && node.domain() != "ai.onnx" && !contrib) {
      n.unsupported(fmt::format("op {}.{}", node.domain(), node.op_type()),
                    fmt::format("{}: {}: domain '{}' is not supported", where, n.where(), node.domain()));
    }
    try {
      if (fold_shape_arithmetic(graph, n)) continue;
    } catch (const Unsupported& e) {
      throw Unsupported(e.reason(), fmt::format("{}: {}", where, e.message()));
    } catch (const UserError& e) {
      throw UserError(e.kind(), fmt::format("{}: {}", where, e.message()));
    }
    const auto& table = contrib ? microsoft_translators() : translators();
    const auto it = table.find(node.op_type());
    if (it == table.end()) {
      const std::string op = contrib ? fmt::format("{}.{}", node.domain(), node.op_type()) : node.op_type();
      n.unsupported(fmt::format("op {}", op), fmt::format("{}: {}: the op {} is not supported", where, n.where(), op));
    }
    std::vector<Value> outs;
    try {
      outs = it->second(n);
    } catch (const Unsupported& e) {
      throw Unsupported(e.reason(), fmt::format("{}: {}", where, e.message()));
    } catch (const UserError& e) {
      throw UserError(e.kind(), fmt::format("{}: {}", where, e.message()));
    }
    for (int o = 0; o < node.output_size(); ++o) {
      if (node.output(o).empty()) continue;
      if (static_cast<size_t>(o) >= outs.size() || !outs[static_cast<size_t>(o)].defined()) {
        n.unsupported(fmt::format("output {} of {}", o, node.op_type()),
                      fmt::format("{}: {}: output {} is not supported", where, n.where(), o));
      }
      graph.bind(node.output(o), outs[static_cast<size_t>(o)]);
    }
  }
  std::vector<Value> outputs;
  for (const auto& out : g.output()) {
    if (!graph.lookup(out.name()) && graph.shape_value(out.name())) {
      // A shape computed for the output itself: through Identity, which makes it a value.
      ::onnx::NodeProto identity;
      identity.set_op_type("Identity");
      identity.add_input(out.name());
      NodeImport(graph, identity, g.node_size(), opset).input(0);
    }
    const std::optional<Value> v = graph.lookup(out.name());
    if (!v) {
      throw UserError(ErrorKind::UnknownName,
                      fmt::format("{}: graph output '{}' is never computed", where, out.name()));
    }
    outputs.push_back(*v);
  }
  return Program::make(sanitized(g.name().empty() ? "model" : g.name()), dims, graph.bindings(), outputs);
}

}  // namespace difftest::interop
