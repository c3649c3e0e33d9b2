// The module skeleton (names, parameters, constants, main's dataflow block) and the driver of
// repro_tvmscript.py. Op bodies are in tvmscript_ops.cc (Relax) and tvmscript_tir.cc (TIR).
#include "exporters/tvmscript/tvmscript.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/printer.h"
#include "compiler/tensor/float_format.h"
#include "exporters/tvmscript/emit.h"

namespace difftest::exporters {

namespace tvmscript {

const char* tvm_dtype(DType t) {
  switch (t) {
    case DType::f64: return "float64";
    case DType::f32: return "float32";
    case DType::f16: return "float16";
    case DType::bf16: return "bfloat16";
    case DType::i64: return "int64";
    case DType::i32: return "int32";
    case DType::i8: return "int8";
    case DType::u8: return "uint8";
    case DType::u32: return "uint32";
    case DType::boolean: return "bool";
  }
  throw InternalError("TVMScript export: unknown dtype");
}

std::string py_float(double v) {
  if (std::isnan(v)) return "float('nan')";
  if (std::isinf(v)) return v > 0 ? "float('inf')" : "-float('inf')";
  std::string s = attr_value_str(AttrValue(v));
  // "2" would be a Python int, which some keyword arguments refuse.
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

DType compute_type(DType t) { return t == DType::f64 ? DType::f64 : DType::f32; }

DType product_type(DType scale, DType out) {
  if (out == DType::f64) return DType::f64;
  if (scale == DType::f16 || out == DType::f32) return DType::f32;
  return DType::f64;
}

std::string py_ints(const std::vector<int64_t>& xs) {
  std::string out = "[";
  for (size_t i = 0; i < xs.size(); ++i) out += (i ? ", " : "") + std::to_string(xs[i]);
  return out + "]";
}

namespace {

// Names a value may not take in main's scope: Python keywords and soft keywords, the modules
// and builtins the generated code uses, and TVMScript's own names.
bool reserved(const std::string& s) {
  static const std::set<std::string> words = {
      "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def",
      "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
      "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield", "match", "case",
      "R", "T", "I", "np", "tvm", "relax", "cls", "Module", "main", "float", "int", "print", "range", "len", "sys"};
  return words.count(s) != 0;
}

}  // namespace

Emitter::Emitter(const Program& p) : program_(p) {
  // Prim_func locals are `v_*` loop variables and `*_buf` buffers; dims keep clear of both.
  for (const DimVar& d : p.dims()) {
    std::string n = d.name;
    if (reserved(n) || n.rfind("v_", 0) == 0 || (n.size() >= 4 && n.substr(n.size() - 4) == "_buf")) n += "_dim";
    while (taken_.count(n)) n += "_";
    taken_.insert(n);
    dim_names_[d.name] = n;
  }
  for (const Binding& b : p.bindings()) {
    for (const Value& v : b.results()) {
      std::string n = v.name();
      if (n[0] >= '0' && n[0] <= '9') n = "v" + n;
      if (reserved(n)) n += "_";
      while (taken_.count(n)) n += "_";
      taken_.insert(n);
      names_[v.get()] = n;
    }
  }
}

const std::string& Emitter::name(const Value& v) const {
  const auto it = names_.find(v.get());
  DT_CHECK(it != names_.end(), "TVMScript export: value %" + v.name() + " has no Python name");
  return it->second;
}

std::string Emitter::fresh(const std::string& base) {
  std::string n = base;
  for (int i = 1; taken_.count(n) || reserved(n); ++i) n = fmt::format("{}{}", base, i);
  taken_.insert(n);
  return n;
}

const std::string& Emitter::dim_name(const std::string& var) const {
  const auto it = dim_names_.find(var);
  DT_CHECK(it != dim_names_.end(), "TVMScript export: undeclared dim " + var);
  return it->second;
}

std::string Emitter::dim(const sym::Expr& e) const {
  using sym::Op;
  auto sub = [&](const sym::Expr& x) { return is_binary(x.op()) && x.op() != Op::Min && x.op() != Op::Max ? "(" + dim(x) + ")" : dim(x); };
  switch (e.op()) {
    case Op::Const: return std::to_string(e.value());
    case Op::Var: return dim_name(e.name());
    case Op::Min: return fmt::format("T.min({}, {})", dim(e.a()), dim(e.b()));
    case Op::Max: return fmt::format("T.max({}, {})", dim(e.a()), dim(e.b()));
    default: return fmt::format("{} {} {}", sub(e.a()), sym::op_symbol(e.op()), sub(e.b()));
  }
}

std::string Emitter::shape(const std::vector<sym::Expr>& dims) const {
  std::string out = "(";
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + dim(dims[i]);
  return out + (dims.size() == 1 ? ",)" : ")");
}

std::string Emitter::sinfo(const TensorType& t) const {
  return fmt::format("R.Tensor({}, \"{}\")", shape(t.shape), tvm_dtype(t.dtype));
}

std::string Emitter::cast(const std::string& x, DType from, DType to) {
  if (from == to) return x;
  const std::string t = fresh(x + "_" + dtype_name(to));
  line(fmt::format("{} = R.astype({}, \"{}\")", t, x, tvm_dtype(to)));
  return t;
}

std::string Emitter::add_prim_func(const std::string& base, const std::string& text) {
  for (size_t i = 0; i < prim_funcs_.size(); ++i) {
    if (prim_func_texts_[i] == text) return prim_func_names_[i];  // same shapes and attributes
  }
  std::string n = base;
  for (int i = 1; func_names_.count(n); ++i) n = fmt::format("{}_{}", base, i);
  func_names_.insert(n);
  std::string out = text;
  for (size_t at = out.find("{name}"); at != std::string::npos; at = out.find("{name}", at)) out.replace(at, 6, n);
  prim_funcs_.push_back(out);
  prim_func_texts_.push_back(text);
  prim_func_names_.push_back(n);
  return n;
}

std::vector<std::string> Emitter::dims_of(const std::vector<TensorType>& types) const {
  std::set<std::string> used;
  for (const TensorType& t : types) {
    for (const sym::Expr& d : t.shape) sym::collect_vars(d, used);
  }
  std::vector<std::string> out;
  for (const DimVar& d : program_.dims()) {
    if (used.count(d.name)) out.push_back(dim_name(d.name));
  }
  return out;
}

// The literal's elements as a nested Python list, each rounded to the dtype first so numpy's
// own conversion is exact.
std::string literal_list(const ConstantInit& c, const TensorType& t, bool numpy_floats) {
  const std::vector<int64_t> shape = t.static_shape().value();
  size_t next = 0;
  std::function<std::string(size_t)> rec = [&](size_t axis) -> std::string {
    if (axis == shape.size()) {
      const size_t i = next++;
      if (is_float(t.dtype)) {
        const double v = round_to_float_dtype(c.float_values[i], t.dtype);
        if (numpy_floats && !std::isfinite(v)) return std::isnan(v) ? "np.nan" : (v > 0 ? "np.inf" : "-np.inf");
        return py_float(v);
      }
      if (is_bool(t.dtype)) return c.int_values[i] ? "True" : "False";
      return std::to_string(c.int_values[i]);
    }
    std::string out = "[";
    for (int64_t k = 0; k < shape[axis]; ++k) out += (k ? ", " : "") + rec(axis + 1);
    return out + "]";
  };
  return rec(0);
}

}  // namespace tvmscript

namespace {

using tvmscript::Emitter;
using tvmscript::literal_list;
using tvmscript::MainParam;
using tvmscript::py_float;
using tvmscript::tvm_dtype;

bool annotatable(const TensorType& t) {
  for (const sym::Expr& d : t.shape) {
    if (!d.is_const() && !d.is_var()) return false;
  }
  return true;
}

// Small finite literals are written inline; bf16 has no numpy dtype for R.const to use.
bool inline_literal(const ConstantInit& c, const TensorType& t) {
  if (c.kind != ConstantInit::Kind::Literal || t.dtype == DType::bf16) return false;
  const auto shape = t.static_shape();
  if (!shape) return false;
  int64_t n = 1;
  for (int64_t d : *shape) n *= d;
  if (n > 16) return false;
  for (double v : c.float_values) {
    if (!std::isfinite(v)) return false;
  }
  return true;
}

std::string param_annotation(const Emitter& e, const TensorType& t) {
  if (!annotatable(t)) return fmt::format("R.Tensor(dtype=\"{}\", ndim={})", tvm_dtype(t.dtype), t.rank());
  std::string out = "(";
  for (size_t i = 0; i < t.shape.size(); ++i) {
    const sym::Expr& d = t.shape[i];
    out += (i ? ", " : "") + (d.is_const() ? std::to_string(d.value()) : "\"" + e.dim(d) + "\"");
  }
  out += t.shape.size() == 1 ? ",)" : ")";
  return fmt::format("R.Tensor({}, \"{}\")", out, tvm_dtype(t.dtype));
}

}  // namespace

namespace {

// The module and what its driver needs to know about main's signature.
struct ModuleParts {
  std::string module;  // "@I.ir_module\nclass Module: ..."
  std::vector<MainParam> params, consts;
  std::vector<std::string> shape_dims;
};

ModuleParts module_parts(const Program& p, Emitter& e) {
  ModuleParts parts;
  std::vector<MainParam>& params = parts.params;
  std::vector<MainParam>& consts = parts.consts;
  std::set<const ValueNode*> outside_dataflow;  // main's parameters
  for (const Binding& b : p.bindings()) {
    if (b.kind() == BindingKind::Param) {
      params.push_back({b.result(), nullptr});
      outside_dataflow.insert(b.result().get());
    } else if (b.kind() == BindingKind::Const) {
      if (inline_literal(b.constant(), b.result().type())) {
        e.line(fmt::format("{} = R.const({}, \"{}\")", e.name(b.result()),
                           literal_list(b.constant(), b.result().type(), false), tvm_dtype(b.result().type().dtype)));
      } else {
        consts.push_back({b.result(), &b.constant()});
        outside_dataflow.insert(b.result().get());
      }
    } else {
      tvmscript::emit_call(e, b);
    }
  }
  std::vector<MainParam> all = params;
  all.insert(all.end(), consts.begin(), consts.end());

  // Dims that no annotation binds as a bare variable come in through an R.Shape parameter.
  std::set<std::string> bound;
  for (const MainParam& m : all) {
    if (!annotatable(m.value.type())) continue;
    for (const sym::Expr& d : m.value.type().shape) {
      if (d.is_var()) bound.insert(d.name());
    }
  }
  std::vector<std::string>& shape_dims = parts.shape_dims;
  for (const DimVar& d : p.dims()) {
    if (!bound.count(d.name)) shape_dims.push_back(d.name);
  }

  std::string out = "@I.ir_module\nclass Module:\n";
  for (const std::string& f : e.prim_funcs()) out += f + "\n";
  std::string sig;
  std::vector<std::string> prologue;  // match_casts of parameters with compound dims
  for (const MainParam& m : all) {
    const std::string& n = e.name(m.value);
    const bool direct = annotatable(m.value.type());
    const std::string pname = direct ? n : n + "_in";
    sig += fmt::format("{}{}: {}", sig.empty() ? "" : ", ", pname, param_annotation(e, m.value.type()));
    if (!direct) prologue.push_back(fmt::format("{} = R.match_cast({}, {})", n, pname, e.sinfo(m.value.type())));
  }
  std::string shape_param;
  if (!shape_dims.empty()) {
    std::string names;
    for (const std::string& d : shape_dims) names += (names.empty() ? "\"" : ", \"") + e.dim_name(d) + "\"";
    shape_param = e.fresh("dim_values");
    sig += fmt::format("{}{}: R.Shape([{}])", sig.empty() ? "" : ", ", shape_param, names);
  }
  out += fmt::format("    @R.function\n    def main({}):\n", sig);
  for (const DimVar& d : p.dims()) out += fmt::format("        {} = T.int64()\n", e.dim_name(d.name));
  if (!e.prim_funcs().empty()) out += "        cls = Module\n";

  // R.output lists the returned values the dataflow block defines, once each.
  std::vector<std::string> df_outputs, returned;
  for (const Value& v : p.outputs()) {
    returned.push_back(e.name(v));
    const bool defined_inside = !outside_dataflow.count(v.get()) || !annotatable(v.type());
    if (defined_inside && std::find(df_outputs.begin(), df_outputs.end(), e.name(v)) == df_outputs.end()) {
      df_outputs.push_back(e.name(v));
    }
  }
  std::vector<std::string> lines = prologue;
  lines.insert(lines.end(), e.body().begin(), e.body().end());
  if (df_outputs.empty()) {
    for (const std::string& l : lines) out += "        " + l + "\n";
  } else {
    out += "        with R.dataflow():\n";
    for (const std::string& l : lines) out += "            " + l + "\n";
    std::string outs;
    for (const std::string& o : df_outputs) outs += (outs.empty() ? "" : ", ") + o;
    out += fmt::format("            R.output({})\n", outs);
  }
  if (returned.size() == 1) {
    out += fmt::format("        return {}\n", returned[0]);
  } else {
    std::string r;
    for (const std::string& o : returned) r += (r.empty() ? "" : ", ") + o;
    out += fmt::format("        return ({})\n", r);
  }
  parts.module = std::move(out);
  return parts;
}

}  // namespace

std::string export_tvmscript(const Program& p, const TvmScriptOptions& options) {
  Emitter e(p);
  const ModuleParts parts = module_parts(p, e);
  return tvmscript::repro_header(p, options) + parts.module +
         tvmscript::repro_driver(p, options, e, parts.params, parts.consts, parts.shape_dims);
}

std::string tvm_unsupported_form(const Program& p) {
  for (const Binding& b : p.bindings()) {
    if (!b.is_call() || b.op().name != "conv_transpose1d") continue;
    const int64_t padding = b.attrs().get_int("output_padding"), stride = b.attrs().get_int("stride");
    if (padding >= stride) {
      return fmt::format("%{}: TVM's conv1d_transpose takes an output_padding below the stride ({} >= {}; Relax's "
                         "struct-info inference refuses it)",
                         b.result().name(), padding, stride);
    }
  }
  return "";
}

TvmScriptModule export_tvmscript_module(const Program& p) {
  Emitter e(p);
  ModuleParts parts = module_parts(p, e);
  TvmScriptModule out;
  out.text = "# The program @" + p.name() + " as a TVM Relax module, exported by difftest for its TVM worker.\n";
  out.text += tvmscript::module_imports() + parts.module + "\n\n";
  nlohmann::json dims = parts.shape_dims;
  out.text += "# The program's dims main takes through its R.Shape parameter, in order\nSHAPE_DIMS = " + dims.dump() + "\n";
  for (const MainParam& m : parts.params) out.inputs.push_back(m.value);
  for (const MainParam& m : parts.consts) out.inputs.push_back(m.value);
  out.shape_dims = std::move(parts.shape_dims);
  return out;
}

}  // namespace difftest::exporters
