// T.prim_func exporters for the ops Relax cannot express: the MLC and GGML 4-bit formats,
// the causal and sliding-window masks, RoPE, our attention (GQA, sinks, softcap, bool mask) and
// atan2. Each is a plain loop nest written from the semantics in compiler/ops/ (the same
// arithmetic as compiler/passes/legalize/ and reference/), called through R.call_tir.
#include <fmt/format.h>

#include <cmath>

#include "compiler/support/diagnostics.h"
#include "compiler/ops/op.h"
#include "exporters/tvmscript/emit.h"

namespace difftest::exporters::tvmscript {

namespace {

std::string join(const std::vector<std::string>& xs, const std::string& sep = ", ") {
  std::string out;
  for (size_t i = 0; i < xs.size(); ++i) out += (i ? sep : "") + xs[i];
  return out;
}

std::string at(const std::vector<std::string>& idx) { return idx.empty() ? "[()]" : "[" + join(idx) + "]"; }
std::string cast(DType t, const std::string& x) { return fmt::format("T.Cast(\"{}\", {})", tvm_dtype(t), x); }
std::string fconst(DType t, double v) { return cast(t, fmt::format("T.float64({})", py_float(v))); }

// Float arithmetic of the narrow formats is carried in f32, as our lowering does.

// One prim_func: buffer parameters for the operands, the dim variables they and the attributes
// use as T.int64 parameters (passed as R.prim_value arguments), buffers for the results,
// scratch buffers and the loop nest.
class PrimFunc {
 public:
  PrimFunc(Emitter& e, const Binding& b) : e_(e), b_(b) {
    std::vector<TensorType> types;
    for (size_t i = 0; i < b.args().size(); ++i) {
      bufs_.push_back({b.op().inputs[i] + "_buf", b.args()[i].type()});
      types.push_back(b.args()[i].type());
    }
    for (size_t i = 0; i < b.results().size(); ++i) {
      bufs_.push_back({b.results().size() == 1 ? "out_buf" : fmt::format("out{}_buf", i), b.results()[i].type()});
      types.push_back(b.results()[i].type());
    }
    // Attributes may name dims no buffer has (a mask's offset): a rank-1 type carries them.
    for (const auto& [name, value] : b.attrs().items()) {
      if (const auto* d = std::get_if<sym::Expr>(&value)) types.push_back(TensorType{DType::i64, {*d}});
      if (const auto* ds = std::get_if<std::vector<sym::Expr>>(&value)) types.push_back(TensorType{DType::i64, *ds});
    }
    dims_ = e.dims_of(types);
  }

  std::string in(size_t i) const { return bufs_[i].first; }
  std::string out(size_t i = 0) const { return bufs_[b_.args().size() + i].first; }
  const TensorType& in_type(size_t i) const { return b_.args()[i].type(); }
  const TensorType& out_type(size_t i = 0) const { return b_.results()[i].type(); }

  // A dim inside the prim_func: int64 throughout, like the buffer shapes.
  std::string dim(const sym::Expr& d) const {
    if (d.is_const()) return fmt::format("T.int64({})", d.value());
    if (d.is_var()) return e_.dim(d);
    return "(" + e_.dim(d) + ")";
  }

  void alloc(const std::string& name, DType t, const std::string& extent = "1") {
    allocs_.push_back(fmt::format("{} = T.alloc_buffer(({},), \"{}\")", name, extent, tvm_dtype(t)));
  }
  void line(int depth, const std::string& text) { body_.push_back(std::string(4 * static_cast<size_t>(depth), ' ') + text); }

  // Loops over `extents` as v_<name>; returns the depth inside them.
  int grid(int depth, const std::vector<std::string>& vars, const std::vector<std::string>& extents) {
    if (vars.empty()) return depth;
    line(depth, fmt::format("for {} in T.grid({}):", join(vars), join(extents)));
    return depth + 1;
  }

  // Loop variables and extents over every dim but the last of `t`.
  void leading(const TensorType& t, std::vector<std::string>& vars, std::vector<std::string>& extents) const {
    for (int i = 0; i + 1 < t.rank(); ++i) {
      vars.push_back(fmt::format("v_{}", i));
      extents.push_back(dim(t.shape[static_cast<size_t>(i)]));
    }
  }

  // Adds the function to the module and binds the results in main through R.call_tir.
  void finish(const std::string& base) {
    std::vector<std::string> params, prologue;
    const size_t inputs = b_.args().size();
    for (size_t k = 0; k < bufs_.size(); ++k) {
      // TVM 0.27's call_tir passes its arguments to the leading parameters and the results to
      // the rest: the dims, passed as R.prim_value arguments, come between.
      if (k == inputs) {
        for (const std::string& d : dims_) params.push_back(d + ": T.int64");
      }
      const auto& [name, type] = bufs_[k];
      std::vector<std::string> dims;
      for (const sym::Expr& d : type.shape) dims.push_back(dim(d));
      const std::string shape = "(" + join(dims) + (dims.size() == 1 ? ",)" : ")");
      if (type.is_static()) {
        params.push_back(fmt::format("{}: T.Buffer({}, \"{}\")", name, shape, tvm_dtype(type.dtype)));
      } else {
        params.push_back(fmt::format("var_{}: T.handle", name));
        prologue.push_back(fmt::format("{} = T.match_buffer(var_{}, {}, \"{}\")", name, name, shape, tvm_dtype(type.dtype)));
      }
    }
    // TVM 0.27's form of a scheduled-TIR function: its body one root block (relax's analyses,
    // such as RewriteDataflowReshape's, stop with an internal error on a body without it).
    std::string text = fmt::format("    @T.prim_func(private=True, s_tir=True)\n    def {{name}}({}):\n", join(params));
    text += "        T.func_attr({\"tirx.noalias\": True})\n";
    for (const std::string& l : prologue) text += "        " + l + "\n";
    text += "        with T.sblock(\"root\"):\n";
    for (const auto* part : {&allocs_, &body_}) {
      for (const std::string& l : *part) text += "            " + l + "\n";
    }
    const std::string fn = e_.add_prim_func(base, text);

    std::vector<std::string> args, types;
    for (const Value& v : b_.args()) args.push_back(e_.name(v));
    for (const std::string& d : dims_) args.push_back("R.prim_value(" + d + ")");
    for (const Value& v : b_.results()) types.push_back(e_.sinfo(v.type()));
    const std::string tuple = "(" + join(args) + (args.size() == 1 ? ",)" : ")");
    const std::string out_ty = types.size() == 1 ? types[0] : "[" + join(types) + "]";
    const std::string call = fmt::format("R.call_tir(cls.{}, {}, out_ty={})", fn, tuple, out_ty);
    if (b_.results().size() == 1) {
      e_.line(fmt::format("{} = {}", e_.name(b_.result()), call));
      return;
    }
    const std::string t = e_.fresh(e_.name(b_.results()[0]) + "_parts");
    e_.line(fmt::format("{} = {}", t, call));
    for (size_t i = 0; i < b_.results().size(); ++i) e_.line(fmt::format("{} = {}[{}]", e_.name(b_.results()[i]), t, i));
  }

 private:
  Emitter& e_;
  const Binding& b_;
  std::vector<std::pair<std::string, TensorType>> bufs_;
  std::vector<std::string> dims_, allocs_, body_;
};

// ------------------------------------------------------------------------------ masks

void mask(Emitter& e, const Binding& b) {
  PrimFunc f(e, b);
  const Attrs& a = b.attrs();
  const std::string p = "v_i + " + f.dim(a.get_sym("offset"));  // the query row's position
  std::string cond = fmt::format("v_j <= {}", p);
  if (b.op().name == "sliding_window_mask") {
    cond += fmt::format(" and (v_j > {} - {} or v_j < {})", p, a.get_int("window"), a.get_int("sink"));
  }
  const int d = f.grid(0, {"v_i", "v_j"}, {f.dim(a.get_sym("q_len")), f.dim(a.get_sym("kv_len"))});
  f.line(d, fmt::format("{}[v_i, v_j] = {}", f.out(), cond));
  f.finish(b.op().name);
}

// ------------------------------------------------------------------------------- rope

void rope(Emitter& e, const Binding& b) {
  PrimFunc f(e, b);
  const Attrs& a = b.attrs();
  const TensorType& x = f.in_type(0);
  const DType dt = x.dtype, ct = compute_type(dt);
  const std::string D = f.dim(x.shape[3]);
  const bool neox = a.get_string("style") == "neox";
  const std::string i1 = neox ? "v_i" : "v_i * 2", i2 = neox ? fmt::format("v_i + {} // 2", D) : "v_i * 2 + 1";
  const std::string angle =
      fmt::format("{} * T.pow({}, {} * {} / {})", cast(ct, "v_s + " + f.dim(a.get_sym("offset"))),
                  fconst(ct, a.get_float("theta")), fconst(ct, -2.0), cast(ct, "v_i"), cast(ct, D));
  const int d = f.grid(0, {"v_b", "v_s", "v_h", "v_i"}, {f.dim(x.shape[0]), f.dim(x.shape[1]), f.dim(x.shape[2]), D + " // 2"});
  f.alloc("angle_buf", ct);
  f.line(d, "angle_buf[0] = " + angle);
  auto elem = [&](const std::string& i) { return cast(ct, fmt::format("{}[v_b, v_s, v_h, {}]", f.in(0), i)); };
  f.line(d, fmt::format("{}[v_b, v_s, v_h, {}] = {}", f.out(), i1,
                        cast(dt, fmt::format("{} * T.cos(angle_buf[0]) - {} * T.sin(angle_buf[0])", elem(i1), elem(i2)))));
  f.line(d, fmt::format("{}[v_b, v_s, v_h, {}] = {}", f.out(), i2,
                        cast(dt, fmt::format("{} * T.sin(angle_buf[0]) + {} * T.cos(angle_buf[0])", elem(i1), elem(i2)))));
  f.finish("rope_" + a.get_string("style"));
}

// --------------------------------------------------------------------------- attention

void attention(Emitter& e, const Binding& b) {
  PrimFunc f(e, b);
  const Attrs& a = b.attrs();
  const TensorType &q = f.in_type(0), &k = f.in_type(1), &v = f.in_type(2);
  const DType dt = q.dtype, acc = a.get_opt_dtype("acc").value_or(dt);
  const std::string kv_head = fmt::format("v_h // ({} // {})", f.dim(q.shape[2]), f.dim(k.shape[2]));
  std::string scale;
  if (a.get_float("scale") != 0) {
    scale = fconst(acc, a.get_float("scale"));
  } else if (q.shape[3].is_const()) {
    scale = fconst(acc, 1 / std::sqrt(static_cast<double>(q.shape[3].value())));
  } else {
    scale = cast(acc, fmt::format("T.float64(1) / T.sqrt({})", cast(DType::f64, f.dim(q.shape[3]))));
  }
  // Which keys row v_i admits: the mask, causality, the window and its sinks.
  std::vector<std::string> admit;
  if (b.args().size() > 3) admit.push_back(f.in(3) + "[v_i, v_j]");
  const std::string p = "v_i + " + f.dim(a.get_sym("offset"));
  const int64_t window = a.get_int("window");
  if (a.get_bool("causal") || window > 0) admit.push_back(fmt::format("v_j <= {}", p));
  if (window > 0) admit.push_back(fmt::format("(v_j > {} - {} or v_j < {})", p, window, a.get_int("sink")));
  // Emits `text` at `depth`, guarded by the admission test when there is one.
  auto admitted = [&](int depth, const std::vector<std::string>& lines) {
    if (!admit.empty()) f.line(depth++, "if " + join(admit, " and ") + ":");
    for (const std::string& l : lines) f.line(depth, l);
  };
  f.alloc("s_buf", acc, f.dim(k.shape[1]));
  for (const char* s : {"dot_buf", "mx_buf", "den_buf", "num_buf"}) f.alloc(s, acc);
  f.alloc("count_buf", DType::i32);
  const std::string zero = cast(acc, "0");
  int d = f.grid(0, {"v_b", "v_i", "v_h"}, {f.dim(q.shape[0]), f.dim(q.shape[1]), f.dim(q.shape[2])});
  f.line(d, "count_buf[0] = 0");
  f.line(d, fmt::format("mx_buf[0] = T.min_value(\"{}\")", tvm_dtype(acc)));
  f.line(d, fmt::format("for v_j in T.serial({}):", f.dim(k.shape[1])));
  f.line(d + 1, "dot_buf[0] = " + zero);
  f.line(d + 1, fmt::format("for v_d in T.serial({}):", f.dim(q.shape[3])));
  f.line(d + 2, fmt::format("dot_buf[0] = dot_buf[0] + {} * {}", cast(acc, f.in(0) + "[v_b, v_i, v_h, v_d]"),
                            cast(acc, fmt::format("{}[v_b, v_j, {}, v_d]", f.in(1), kv_head))));
  f.line(d + 1, fmt::format("s_buf[v_j] = {} * dot_buf[0]", scale));
  if (const double cap = a.get_float("softcap"); cap > 0) {
    f.line(d + 1, fmt::format("s_buf[v_j] = {0} * T.tanh(s_buf[v_j] / {0})", fconst(acc, cap)));
  }
  admitted(d + 1, {"count_buf[0] = count_buf[0] + 1", "mx_buf[0] = T.max(mx_buf[0], s_buf[v_j])"});
  f.line(d, "den_buf[0] = " + zero);
  f.line(d, fmt::format("for v_j in T.serial({}):", f.dim(k.shape[1])));
  admitted(d + 1, {"den_buf[0] = den_buf[0] + T.exp(s_buf[v_j] - mx_buf[0])"});
  f.line(d, fmt::format("for v_e in T.serial({}):", f.dim(v.shape[3])));
  f.line(d + 1, "num_buf[0] = " + zero);
  f.line(d + 1, fmt::format("for v_j in T.serial({}):", f.dim(k.shape[1])));
  admitted(d + 2, {fmt::format("num_buf[0] = num_buf[0] + T.exp(s_buf[v_j] - mx_buf[0]) * {}",
                               cast(acc, fmt::format("{}[v_b, v_j, {}, v_e]", f.in(2), kv_head)))});
  // A row that admits no key is 0 by definition.
  f.line(d + 1, fmt::format("{}[v_b, v_i, v_h, v_e] = {}", f.out(),
                            cast(dt, fmt::format("T.if_then_else(count_buf[0] > 0, num_buf[0] / den_buf[0], {})", zero))));
  f.finish("attention");
}

// ------------------------------------------------------------------------- quantization

std::string lead_index(const std::vector<std::string>& lead, const std::string& last) {
  std::vector<std::string> idx = lead;
  idx.push_back(last);
  return at(idx);
}

void dequantize(Emitter& e, const Binding& b) {
  PrimFunc f(e, b);
  const Attrs& a = b.attrs();
  const bool ggml = a.get_string("format") == "q4_0";
  const int64_t group = ggml ? 32 : a.get_int("group");
  const TensorType& out = f.out_type();
  const DType pt = product_type(f.in_type(1).dtype, out.dtype);
  std::vector<std::string> lead, extents;
  f.leading(out, lead, extents);
  std::string code;
  if (ggml) {  // byte j of a block: element j in the low nibble, j + 16 in the high one
    const std::string byte = f.in(0) + lead_index(lead, "v_k // 32 * 16 + v_k % 16");
    code = fmt::format("T.if_then_else(v_k % 32 < 16, {0} & T.uint8(15), {0} >> T.uint8(4))", byte);
  } else {  // element r of a u32 word in bits [4r, 4r + 4)
    code = fmt::format("({} >> {}) & T.uint32(15)", f.in(0) + lead_index(lead, "v_k // 8"), cast(DType::u32, "v_k % 8 * 4"));
  }
  const std::string level = cast(pt, fmt::format("{} - {}", cast(DType::i32, code), ggml ? 8 : 7));
  const std::string scale = cast(pt, f.in(1) + lead_index(lead, fmt::format("v_k // {}", group)));
  lead.push_back("v_k");
  extents.push_back(f.dim(out.shape.back()));
  const int d = f.grid(0, lead, extents);
  f.line(d, fmt::format("{}{} = {}", f.out(), at(lead), cast(out.dtype, level + " * " + scale)));
  f.finish("dequantize_" + a.get_string("format"));
}

// MLC GroupQuantize: per group, scale = max|w| / 7 in the scale dtype t; codes
// clip(round_half_even(w / scale + 7), 0, 14) packed 8 per u32, padding after K left 0.
void quantize_mlc(PrimFunc& f, const Binding& b) {
  const int64_t group = b.attrs().get_int("group");
  const TensorType& w = f.in_type(0);
  const DType t = f.out_type(1).dtype;
  std::vector<std::string> lead, extents;
  f.leading(w, lead, extents);
  const std::string K = f.dim(w.shape.back()), scale = f.out(1) + lead_index(lead, "v_g");
  auto weight = [&](const std::string& k) { return cast(t, f.in(0) + lead_index(lead, k)); };
  f.alloc("amax_buf", t);
  f.alloc("word_buf", DType::u32);
  std::vector<std::string> vars = lead, ext = extents;
  vars.push_back("v_g");
  ext.push_back(f.dim(f.out_type(1).shape.back()));
  const int d = f.grid(0, vars, ext);
  f.line(d, "amax_buf[0] = " + cast(t, "0"));
  f.line(d, fmt::format("for v_e in T.serial({}):", group));
  f.line(d + 1, fmt::format("if v_g * {} + v_e < {}:", group, K));
  f.line(d + 2, fmt::format("amax_buf[0] = T.max(amax_buf[0], T.abs({}))", weight(fmt::format("v_g * {} + v_e", group))));
  f.line(d, fmt::format("{} = amax_buf[0] / {}", scale, cast(t, "7")));
  f.line(d, fmt::format("for v_w in T.serial({}):", group / 8));
  f.line(d + 1, "word_buf[0] = T.uint32(0)");
  f.line(d + 1, "for v_e in T.serial(8):");
  const std::string k = fmt::format("v_g * {} + v_w * 8 + v_e", group);
  const std::string q = fmt::format("T.min(T.max(T.nearbyint({} / {} + {}), {}), {})", weight(k), scale, cast(t, "7"),
                                    cast(t, "0"), cast(t, "14"));
  const std::string code = fmt::format("T.if_then_else({} == {}, T.uint32(7), {})", scale, cast(t, "0"), cast(DType::u32, q));
  f.line(d + 2, fmt::format("if {} < {}:", k, K));
  f.line(d + 3, fmt::format("word_buf[0] = word_buf[0] | ({} << {})", code, cast(DType::u32, "v_e * 4")));
  f.line(d + 1, fmt::format("{} = word_buf[0]", f.out(0) + lead_index(lead, fmt::format("v_g * {} + v_w", group / 8))));
}

// GGML quantize_row_q4_0, per 32-element block in f32: m = the first element of largest
// magnitude, d = m / -8, id = 1 / d (0 when d = 0), q = min(15, max(0, trunc(w * id + 8.5))),
// d stored as f16.
void quantize_ggml(PrimFunc& f) {
  const TensorType& w = f.in_type(0);
  std::vector<std::string> lead, extents;
  f.leading(w, lead, extents);
  auto weight = [&](const std::string& k) { return cast(DType::f32, f.in(0) + lead_index(lead, k)); };
  for (const char* s : {"amax_buf", "m_buf", "d_buf", "id_buf"}) f.alloc(s, DType::f32);
  std::vector<std::string> vars = lead, ext = extents;
  vars.push_back("v_g");
  ext.push_back(f.dim(f.out_type(1).shape.back()));
  const int d = f.grid(0, vars, ext);
  f.line(d, "amax_buf[0] = T.float32(0)");
  f.line(d, "m_buf[0] = T.float32(0)");
  f.line(d, "for v_e in T.serial(32):");
  f.line(d + 1, fmt::format("if T.abs({}) > amax_buf[0]:", weight("v_g * 32 + v_e")));
  f.line(d + 2, fmt::format("amax_buf[0] = T.abs({})", weight("v_g * 32 + v_e")));
  f.line(d + 2, fmt::format("m_buf[0] = {}", weight("v_g * 32 + v_e")));
  f.line(d, "d_buf[0] = m_buf[0] / T.float32(-8)");
  f.line(d, "id_buf[0] = T.if_then_else(d_buf[0] != T.float32(0), T.float32(1) / d_buf[0], T.float32(0))");
  f.line(d, fmt::format("{} = T.Cast(\"float16\", d_buf[0])", f.out(1) + lead_index(lead, "v_g")));
  auto code = [&](const std::string& j) {
    return fmt::format("T.Cast(\"uint8\", T.min(T.max(T.Cast(\"int32\", {} * id_buf[0] + T.float32(8.5)), 0), 15))",
                       weight("v_g * 32 + " + j));
  };
  f.line(d, "for v_j in T.serial(16):");
  f.line(d + 1, fmt::format("{} = {} | ({} << T.uint8(4))", f.out(0) + lead_index(lead, "v_g * 16 + v_j"), code("v_j"),
                            code("v_j + 16")));
}

void quantize(Emitter& e, const Binding& b) {
  PrimFunc f(e, b);
  const std::string& format = b.attrs().get_string("format");
  if (format == "q4_0") {
    quantize_ggml(f);
  } else {
    quantize_mlc(f, b);
  }
  f.finish("quantize_" + format);
}

// ------------------------------------------------------------------------------ atan2

void atan2(Emitter& e, const Binding& b) {
  PrimFunc f(e, b);
  const TensorType& out = f.out_type();
  const DType ct = compute_type(out.dtype);
  std::vector<std::string> vars, extents;
  for (int i = 0; i < out.rank(); ++i) {
    vars.push_back(fmt::format("v_{}", i));
    extents.push_back(f.dim(out.shape[static_cast<size_t>(i)]));
  }
  // NumPy broadcasting: dims align from the right and a constant-1 dim reads index 0.
  auto operand = [&](size_t k) {
    const TensorType& t = f.in_type(k);
    std::vector<std::string> idx;
    for (int i = 0; i < t.rank(); ++i) {
      idx.push_back(t.shape[static_cast<size_t>(i)].is_const(1) ? "0" : vars[static_cast<size_t>(out.rank() - t.rank() + i)]);
    }
    return cast(ct, f.in(k) + at(idx));
  };
  const int d = f.grid(0, vars, extents);
  f.line(d, fmt::format("{}{} = {}", f.out(), at(vars), cast(out.dtype, fmt::format("T.atan2({}, {})", operand(0), operand(1)))));
  f.finish("atan2");
}

using PrimFuncExporter = void (*)(Emitter&, const Binding&);

const std::map<std::string, PrimFuncExporter>& exporters() {
  static const std::map<std::string, PrimFuncExporter> table = {
      {"causal_mask", mask}, {"sliding_window_mask", mask}, {"rope", rope},         {"attention", attention},
      {"quantize", quantize}, {"dequantize", dequantize},   {"atan2", atan2},
  };
  return table;
}

}  // namespace

const std::set<std::string>& prim_func_ops() {
  static const std::set<std::string> ops = [] {
    std::set<std::string> s;
    for (const auto& [name, fn] : exporters()) s.insert(name);
    return s;
  }();
  return ops;
}

void emit_prim_func_call(Emitter& e, const Binding& b) {
  const auto it = exporters().find(b.op().name);
  if (it == exporters().end()) throw InternalError(fmt::format("TVMScript export: no prim_func exporter for op '{}'", b.op().name));
  it->second(e, b);
}

}  // namespace difftest::exporters::tvmscript
