// Internals of the TVMScript exporter shared by tvmscript.cc (module and driver),
// tvmscript_ops.cc (Relax ops) and tvmscript_tir.cc (T.prim_funcs).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "exporters/tvmscript/tvmscript.h"

namespace difftest::exporters::tvmscript {

const char* tvm_dtype(DType t);          // "float16", "bfloat16", "uint32", "bool", ...
std::string py_float(double v);          // a Python float literal ("2.0", "1e-06", "float('inf')")
std::string py_ints(const std::vector<int64_t>& xs);  // "[1, 2]"
// The type RoPE and quantization compute in: f64 for f64, else f32.
DType compute_type(DType t);
// The type (code - zero point) * scale is multiplied in, as our lowering does: exact in f32 for an
// f16 scale and in f64 for an f32 one, or one correctly rounded multiply when f32 is the result.
DType product_type(DType scale, DType out);

// State of one export: Python names for values and dims, the lines of `main`'s body and the
// prim_funcs the module needs.
class Emitter {
 public:
  explicit Emitter(const Program& p);

  const std::string& name(const Value& v) const;  // the Python name of a value
  std::string fresh(const std::string& base);     // a new local that clashes with nothing
  const std::string& dim_name(const std::string& var) const;

  // A dim as a Python expression over the T.int64 dim variables ("n * 2 + 1").
  std::string dim(const sym::Expr& e) const;
  std::string shape(const std::vector<sym::Expr>& dims) const;  // "(1, n)" / "(n,)" / "()"
  std::string sinfo(const TensorType& t) const;                 // R.Tensor((1, n), "float16")

  void line(const std::string& text) { body_.push_back(text); }
  // Binds `lhs = rhs` and, when `from` differs from `to`, returns a cast of it instead.
  std::string cast(const std::string& x, DType from, DType to);

  // Adds a prim_func (text starting at `def`, indented for the class body) under a unique name
  // derived from `base`; `{name}` in the text is replaced by that name.
  std::string add_prim_func(const std::string& base, const std::string& text);

  // The dim variables a prim_func gets through tir_vars, in declaration order.
  std::vector<std::string> dims_of(const std::vector<TensorType>& types) const;

  const std::vector<std::string>& body() const { return body_; }
  const std::vector<std::string>& prim_funcs() const { return prim_funcs_; }
  const Program& program() const { return program_; }

 private:
  const Program& program_;
  std::map<const ValueNode*, std::string> names_;
  std::map<std::string, std::string> dim_names_;
  std::set<std::string> taken_;
  std::set<std::string> func_names_;
  std::vector<std::string> body_;
  std::vector<std::string> prim_funcs_;
  std::vector<std::string> prim_func_texts_;  // before naming, to reuse identical functions
  std::vector<std::string> prim_func_names_;
};

// The elements of a static literal as a nested Python list, each rounded to the dtype first so
// numpy's own conversion is exact; `numpy_floats` spells non-finite values np.inf / np.nan.
std::string literal_list(const ConstantInit& c, const TensorType& t, bool numpy_floats);

// A tensor main takes: a parameter of the program, or a constant the driver materializes.
struct MainParam {
  Value value;
  const ConstantInit* init = nullptr;  // null for a program parameter
};

// The file's opening comment and imports, and the driver after the module (tvmscript_driver.cc).
std::string repro_header(const Program& p, const TvmScriptOptions& options);
// The imports a module needs (tvm, relax, TVMScript's I, R and T).
std::string module_imports();
std::string repro_driver(const Program& p, const TvmScriptOptions& options, const Emitter& e,
                         const std::vector<MainParam>& params, const std::vector<MainParam>& consts,
                         const std::vector<std::string>& shape_dims);

// Emits the Relax lines of one call binding (a Relax op, or R.call_tir of a prim_func).
// Throws InternalError naming the op when there is no exporter for it.
void emit_call(Emitter& e, const Binding& b);

// The layer ops with a Relax form (layer_ops.cc), and the emitter: false when the op's attributes
// need more than Relax says (a mask operand, softcap, symbolic head counts...), nothing emitted.
const std::set<std::string>& relax_layer_ops();
bool emit_relax_layer_op(Emitter& e, const Binding& b);

// The ops exported as prim_funcs, and the emitter for one of them (tvmscript_tir.cc).
const std::set<std::string>& prim_func_ops();
void emit_prim_func_call(Emitter& e, const Binding& b);

}  // namespace difftest::exporters::tvmscript
