#include "interop/onnx/export.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <onnx/checker.h>

#include <algorithm>

#include "compiler/ops/op.h"
#include "compiler/tensor/constant.h"
#include "interop/onnx/export_context.h"
#include "interop/onnx/import.h"

namespace difftest::interop {

namespace {

void set_value_info(::onnx::ValueInfoProto& info, const std::string& name, const TensorType& type) {
  info.set_name(name);
  auto* tt = info.mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx_dtype(type.dtype));
  auto* shape = tt->mutable_shape();
  for (const auto& d : type.shape) {
    auto* dim = shape->add_dim();
    if (d.is_const()) {
      dim->set_dim_value(d.value());
    } else {
      // A derived dim is named by its expression ("2*m"): a runtime takes any name, and
      // difftest's importer reads it back as the expression.
      dim->set_dim_param(sym::to_string(d));
    }
  }
}

}  // namespace

ModelWriter::ModelWriter(const Program& p, const ExportOptions& options, ::onnx::GraphProto& graph)
    : graph_(graph), choices_(options.form_seed, 0x6f6e6e78) {
  for (const auto& param : p.params()) {
    for (size_t axis = 0; axis < param.type().shape.size(); ++axis) {
      const sym::Expr& d = param.type().shape[axis];
      if (d.is_var() && !var_source_.count(d.name())) var_source_[d.name()] = {param.name(), static_cast<int>(axis)};
    }
  }
}

std::string ModelWriter::fresh(const std::string& hint) {
  const int n = used_[hint]++;
  return n == 0 ? hint : fmt::format("{}_{}", hint, n);
}

::onnx::NodeProto& ModelWriter::node(const std::string& op_type, const std::vector<std::string>& inputs,
                                     const std::vector<std::string>& outputs) {
  ::onnx::NodeProto& n = *graph_.add_node();
  n.set_op_type(op_type);
  for (const auto& i : inputs) n.add_input(i);
  for (const auto& o : outputs) n.add_output(o);
  return n;
}

std::string ModelWriter::op(const std::string& op_type, const std::vector<std::string>& inputs, const std::string& hint,
                            ::onnx::NodeProto** made) {
  const std::string out = fresh(hint);
  ::onnx::NodeProto& n = node(op_type, inputs, {out});
  if (made) *made = &n;
  return out;
}

std::string ModelWriter::initializer(const Tensor& t, const std::string& hint) {
  const std::string name = fresh(hint);
  *graph_.add_initializer() = tensor_to_proto(t, name);
  return name;
}

std::string ModelWriter::int64s(const std::vector<int64_t>& values) {
  return initializer(Tensor::from_ints(DType::i64, {static_cast<int64_t>(values.size())}, values), "ints");
}

std::string ModelWriter::scalar(DType dtype, double value) {
  return initializer(Tensor::from_doubles(dtype, {}, {value}), "scalar");
}

std::string ModelWriter::dim(const sym::Expr& e) {
  if (e.is_const()) return int64s({e.value()});
  if (e.is_var()) {
    if (const auto it = var_tensor_.find(e.name()); it != var_tensor_.end()) return it->second;
    if (!var_source_.count(e.name())) var_source_[e.name()] = {extent_input(e.name()), 0};
    const auto& [input, axis] = var_source_.at(e.name());
    if (!shape_of_.count(input)) shape_of_[input] = op("Shape", {input}, input + "_shape");
    const std::string v = op("Slice", {shape_of_[input], int64s({axis}), int64s({axis + 1})}, e.name());
    var_tensor_[e.name()] = v;
    return v;
  }
  const std::string a = dim(e.a()), b = dim(e.b());
  switch (e.op()) {
    case sym::Op::Add:
      return op("Add", {a, b}, "dim");
    case sym::Op::Sub:
      return op("Sub", {a, b}, "dim");
    case sym::Op::Mul:
      return op("Mul", {a, b}, "dim");
    // Dims and their parts are >= 0, where ONNX's truncating Div is the floor division.
    case sym::Op::FloorDiv:
      return op("Div", {a, b}, "dim");
    case sym::Op::FloorMod:
      return op("Mod", {a, b}, "dim");
    case sym::Op::Min:
      return op("Min", {a, b}, "dim");
    case sym::Op::Max:
      return op("Max", {a, b}, "dim");
    default:
      break;
  }
  throw InternalError("a dim expression of an unknown kind");
}

std::string ModelWriter::extent_input(const std::string& var) {
  const std::string name = fresh(var + "_extent");
  set_value_info(*graph_.add_input(), name, TensorType{DType::u8, {sym::Expr::var(var)}});
  extent_inputs_.push_back(name);
  return name;
}

std::string ModelWriter::dims(const std::vector<sym::Expr>& dims) {
  std::vector<int64_t> values;
  for (const auto& d : dims) {
    if (!d.is_const()) break;
    values.push_back(d.value());
  }
  if (values.size() == dims.size()) return int64s(values);
  std::vector<std::string> parts;
  for (const auto& d : dims) parts.push_back(dim(d));
  ::onnx::NodeProto* concat = nullptr;
  const std::string out = op("Concat", parts, "shape", &concat);
  set_attr(*concat, "axis", int64_t{0});
  return out;
}

void set_attr(::onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(v);
}

void set_attr(::onnx::NodeProto& n, const std::string& name, float v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

void set_attr(::onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INTS);
  for (const int64_t x : v) a->add_ints(x);
}

void set_attr(::onnx::NodeProto& n, const std::string& name, const ::onnx::TensorProto& t) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::TENSOR);
  *a->mutable_t() = t;
}

// A function written as several ONNX nodes (gelu, silu, atan2, rsqrt) rounds once in our IR:
// on f16/bf16 its nodes compute in f32 between casts, as an `acc` op's do. In the narrow dtype
// every node would round, and its constants with it (pi and sqrt(2) rounded to f16 are both
// low): ONNX Runtime's f16 atan2 and gelu came out biased for the export's sake.
std::optional<DType> accumulator_of(const Binding& b) {
  for (const auto& [name, value] : b.attrs().items()) {
    if (name == "acc" && std::holds_alternative<DType>(value)) return std::get<DType>(value);
  }
  static const std::set<std::string> decomposed = {"gelu", "silu", "atan2", "rsqrt"};
  if (!decomposed.count(b.op().name)) return std::nullopt;
  const DType t = b.args()[0].type().dtype;
  if (t == DType::f16 || t == DType::bf16) return DType::f32;
  return std::nullopt;
}

// An op that accumulates wider than its operands (`acc=f32` on bf16): written as exporters write
// it, its float operands cast to the accumulator, the op, the result cast back.
void emit_in_accumulator(ModelWriter& w, const Binding& b, Emitter emit) {
  const std::optional<DType> acc = accumulator_of(b);
  if (!acc || *acc == b.result().type().dtype) {
    emit(w, b);
    return;
  }
  std::vector<std::pair<Value, std::string>> restore;
  for (const auto& arg : b.args()) {
    if (!is_float(arg.type().dtype) || arg.type().dtype == *acc) continue;
    const std::string name = w.name_of(arg);
    if (std::any_of(restore.begin(), restore.end(), [&](const auto& r) { return r.first.same_as(arg); })) continue;
    ::onnx::NodeProto* cast = nullptr;
    const std::string wide = w.op("Cast", {name}, name + "_acc", &cast);
    set_attr(*cast, "to", int64_t{onnx_dtype(*acc)});
    restore.emplace_back(arg, name);
    w.set_name(arg, wide);
  }
  const std::vector<Value>& results = b.results();
  std::vector<std::string> final_names;
  for (const auto& r : results) {
    final_names.push_back(w.name_of(r));
    w.set_name(r, w.fresh(w.name_of(r) + "_wide"));
  }
  emit(w, b);
  for (size_t i = 0; i < results.size(); ++i) {
    ::onnx::NodeProto& cast = w.node("Cast", {w.name_of(results[i])}, {final_names[i]});
    set_attr(cast, "to", int64_t{onnx_dtype(results[i].type().dtype)});
    w.set_name(results[i], final_names[i]);
  }
  for (const auto& [arg, name] : restore) w.set_name(arg, name);
}

namespace {

// The matmuls (and linears) written as MatMulNBits, each mapped to its dequantize, and those
// dequantizes mapped to null: a dequantize whose only use is such a matmul's weight operand.
std::map<const Binding*, const Binding*> matmul_nbits_pairs(const Program& p, const ExportOptions& options) {
  std::map<const Binding*, const Binding*> pairs;
  if (options.q4_form != ExportOptions::Q4Form::MatMulNBits) return pairs;
  std::map<const ValueNode*, int> uses;
  std::map<const ValueNode*, const Binding*> dequantized;
  for (const auto& b : p.bindings()) {
    if (!b.is_call()) continue;
    for (const auto& a : b.args()) ++uses[a.get()];
    if (b.op().name == "dequantize") dequantized[b.result().get()] = &b;
  }
  for (const auto& out : p.outputs()) ++uses[out.get()];
  for (const auto& b : p.bindings()) {
    if (!b.is_call() || (b.op().name != "matmul" && b.op().name != "linear")) continue;
    const auto dq = dequantized.find(b.args()[1].get());
    if (dq == dequantized.end() || uses[b.args()[1].get()] != 1 || matmul_nbits_obstacle(b, *dq->second)) continue;
    pairs[&b] = dq->second;
    pairs[dq->second] = nullptr;
  }
  return pairs;
}

}  // namespace

::onnx::ModelProto export_program(const Program& p, const ExportOptions& options) {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("difftest");
  auto* opset = m.add_opset_import();
  opset->set_domain("");
  opset->set_version(kExportOpset);
  ::onnx::GraphProto& g = *m.mutable_graph();
  g.set_name(p.name());
  if (!p.dims().empty()) {
    std::string ranges;
    for (const auto& d : p.dims()) {
      ranges += fmt::format("{}{}={}..{}", ranges.empty() ? "" : ",", d.name, d.range.lo, d.range.hi);
    }
    auto* prop = m.add_metadata_props();
    prop->set_key(kDimRangesKey);
    prop->set_value(ranges);
  }
  ModelWriter w(p, options, g);
  const std::map<const Binding*, const Binding*> fused = matmul_nbits_pairs(p, options);
  bool uses_microsoft_domain = false;
  // Every value is named before any node is written, so the helper tensors' names (suffixed
  // when taken) never take a param's, which must match the program's inputs.
  for (const auto& b : p.bindings()) {
    for (const auto& r : b.results()) w.set_name(r, w.fresh(r.name()));
  }
  // Params first: a dim an earlier node computes may be read off a later param's shape, and a
  // bf16 param is a Cast node (of its f32 input) that must come before it.
  std::vector<size_t> order;
  for (int params = 1; params >= 0; --params) {
    for (size_t i = 0; i < p.bindings().size(); ++i) {
      if ((p.bindings()[i].kind() == BindingKind::Param) == (params == 1)) order.push_back(i);
    }
  }
  for (const size_t i : order) {
    const Binding& b = p.bindings()[i];
    w.where = fmt::format("binding {} (%{} = {})", i, b.results().front().name(),
                          b.is_call()                      ? b.op().name
                          : b.kind() == BindingKind::Param ? "param"
                                                           : "const");
    if (b.kind() == BindingKind::Param) {
      const TensorType& type = b.result().type();
      if (options.bf16_edges_as_f32 && type.dtype == DType::bf16) {
        // Fed as f32 (bf16 values are exact in it), cast to bf16 where the program starts.
        const std::string fed = w.fresh(w.name_of(b.result()) + "_f32");
        set_value_info(*g.add_input(), fed, TensorType{DType::f32, type.shape});
        set_attr(w.node("Cast", {fed}, {w.name_of(b.result())}), "to", int64_t{onnx_dtype(DType::bf16)});
      } else {
        set_value_info(*g.add_input(), w.name_of(b.result()), type);
      }
    } else if (b.kind() == BindingKind::Const) {
      const auto shape = b.result().type().static_shape();
      *g.add_initializer() =
          tensor_to_proto(materialize_constant(b.constant(), b.result().type().dtype, *shape), w.name_of(b.result()));
    } else if (const auto pair = fused.find(&b); pair != fused.end()) {
      if (pair->second) {
        emit_matmul_nbits(w, b, *pair->second);
        uses_microsoft_domain = true;
      }  // else a dequantize its matmul writes
    } else {
      const Emitter* emit = emitters().find(b.op().name);
      if (!emit) {
        throw Unsupported(fmt::format("export of {}", b.op().name),
                          fmt::format("{}: {} has no ONNX form yet", w.where, b.op().name));
      }
      emit_in_accumulator(w, b, *emit);
    }
  }
  if (!w.extent_inputs().empty()) {
    auto* prop = m.add_metadata_props();
    prop->set_key(kExtentInputsKey);
    prop->set_value(fmt::format("{}", fmt::join(w.extent_inputs(), ",")));
  }
  if (uses_microsoft_domain) {
    auto* contrib = m.add_opset_import();
    contrib->set_domain(kMicrosoftDomain);
    contrib->set_version(1);
  }
  for (const auto& out : p.outputs()) {
    std::string name = w.name_of(out);
    // An output that is an input or an initializer is passed through a node: ONNX graph
    // outputs must be produced by the graph.
    bool produced = false;
    for (const auto& n : g.node()) {
      for (const auto& o : n.output()) produced = produced || o == name;
    }
    TensorType type = out.type();
    if (options.bf16_edges_as_f32 && type.dtype == DType::bf16) {
      ::onnx::NodeProto* cast = nullptr;
      name = w.op("Cast", {name}, name + "_f32", &cast);
      set_attr(*cast, "to", int64_t{onnx_dtype(DType::f32)});
      type.dtype = DType::f32;
    } else if (!produced) {
      name = w.op("Identity", {name}, name + "_out");
    }
    set_value_info(*g.add_output(), name, type);
  }
  try {
    ::onnx::checker::check_model(m);
  } catch (const std::exception& e) {
    throw InternalError(fmt::format("the exported model of @{} fails onnx::checker: {}", p.name(), e.what()));
  }
  return m;
}

}  // namespace difftest::interop
