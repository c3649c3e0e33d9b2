// The exporter's state (interop/onnx/ only): the graph being written, IR values -> ONNX names,
// and dims computed from the inputs' shapes.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ops/op_table.h"
#include "compiler/support/rng.h"
#include "interop/onnx/export.h"

namespace difftest::interop {

class ModelWriter {
 public:
  ModelWriter(const Program& p, const ExportOptions& options, ::onnx::GraphProto& graph);

  const std::string& name_of(const Value& v) const { return names_.at(v.get()); }
  void set_name(const Value& v, const std::string& name) { names_[v.get()] = name; }
  std::string fresh(const std::string& hint);

  // A node of `op_type` with attributes set by the caller on the returned proto.
  ::onnx::NodeProto& node(const std::string& op_type, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs);
  // One output named after `hint`.
  std::string op(const std::string& op_type, const std::vector<std::string>& inputs, const std::string& hint,
                 ::onnx::NodeProto** made = nullptr);
  std::string initializer(const Tensor& t, const std::string& hint);
  std::string int64s(const std::vector<int64_t>& values);
  std::string scalar(DType dtype, double value);
  // A 1-D int64 tensor of `dims`: an initializer when they are constants, else computed from
  // the graph inputs' shapes (Shape, Slice, Add/Sub/Mul/Div/Mod/Min/Max, Concat).
  std::string dims(const std::vector<sym::Expr>& dims);

  // One of `n` equivalent forms, drawn from the form seed.
  uint64_t form(uint64_t n) { return choices_.below(n); }

  // Where the binding being written is, for messages: "binding 3 (%y = rms_norm)".
  std::string where;

  // The graph inputs added to carry a dim variable no param has (kExtentInputsKey).
  const std::vector<std::string>& extent_inputs() const { return extent_inputs_; }

 private:
  std::string dim(const sym::Expr& e);  // a [1] int64 tensor
  std::string extent_input(const std::string& var);

  ::onnx::GraphProto& graph_;
  std::map<const ValueNode*, std::string> names_;
  std::map<std::string, int> used_;
  std::map<std::string, std::pair<std::string, int>> var_source_;  // dim variable -> (input, axis)
  std::map<std::string, std::string> shape_of_, var_tensor_;
  std::vector<std::string> extent_inputs_;
  PcgChoices choices_;
};

void set_attr(::onnx::NodeProto& n, const std::string& name, int64_t v);
void set_attr(::onnx::NodeProto& n, const std::string& name, float v);
void set_attr(::onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v);
void set_attr(::onnx::NodeProto& n, const std::string& name, const ::onnx::TensorProto& t);

// The accumulator dtype a call declares (`acc`), nullopt when it has none or no such attribute.
std::optional<DType> accumulator_of(const Binding& b);

// Writes one call binding (its results named already); Unsupported when it cannot.
using Emitter = void (*)(ModelWriter& w, const Binding& b);
using EmitterTable = OpTable<Emitter>;
// Every op's emitter, registered per family (compiler/ops/op_table.h): the elementwise,
// reduction, linalg, shape and creation ops in export_ops.cc, the normalization, attention and
// conv ops in export_layer_ops.cc, the 4-bit formats in export_quant_ops.cc.
const EmitterTable& emitters();
void register_elementwise_onnx_emitters(EmitterTable& t);
void register_reduction_onnx_emitters(EmitterTable& t);
void register_linalg_onnx_emitters(EmitterTable& t);
void register_normalization_onnx_emitters(EmitterTable& t);
void register_shape_onnx_emitters(EmitterTable& t);
void register_creation_onnx_emitters(EmitterTable& t);
void register_attention_onnx_emitters(EmitterTable& t);
void register_quantization_onnx_emitters(EmitterTable& t);
void register_conv_onnx_emitters(EmitterTable& t);

// Why `matmul` (or linear) cannot take dequantize `dq` as a MatMulNBits, or nullopt when it can.
std::optional<std::string> matmul_nbits_obstacle(const Binding& matmul, const Binding& dq);
void emit_matmul_nbits(ModelWriter& w, const Binding& matmul, const Binding& dq);

// Positions of a mask: a column [q_len, 1] of offset + i and a row [1, kv_len] of j (int64).
std::pair<std::string, std::string> mask_positions(ModelWriter& w, const sym::Expr& offset, const sym::Expr& q_len,
                                                   const sym::Expr& kv_len);
// j <= p, as LessOrEqual(k, q) or GreaterOrEqual(q, k) (a form).
std::string causal_part(ModelWriter& w, const std::string& q, const std::string& k);
// j > p - window, or j < sink.
std::string window_part(ModelWriter& w, const std::string& q, const std::string& k, int64_t window, int64_t sink);
// A 0-D int64 tensor of a dim expression (Range takes scalars).
std::string scalar_dim(ModelWriter& w, const sym::Expr& e);

namespace export_util {

inline const std::string& in(ModelWriter& w, const Binding& b, size_t i) { return w.name_of(b.args()[i]); }
inline const std::string& out(ModelWriter& w, const Binding& b) { return w.name_of(b.result()); }
// The dtype the op computes in: its accumulator when it declares one (export_program casts its
// operands to it), else its first operand's.
inline DType compute_dtype(const Binding& b) {
  if (const auto acc = accumulator_of(b)) return *acc;
  return b.args()[0].type().dtype;
}
inline int64_t positive_axis(int64_t axis, int rank) { return axis < 0 ? axis + rank : axis; }

// x[begin:end] along `axis`.
inline std::string slice(ModelWriter& w, const std::string& x, const sym::Expr& begin, const sym::Expr& end,
                         int64_t axis, const std::string& hint) {
  return w.op("Slice", {x, w.dims({begin}), w.dims({end}), w.int64s({axis})}, hint);
}

// a * b and a + b with the operands in either order (a form).
inline std::string multiplied(ModelWriter& w, const std::string& a, const std::string& b, const std::string& hint) {
  return w.form(2) ? w.op("Mul", {b, a}, hint) : w.op("Mul", {a, b}, hint);
}
inline std::string added(ModelWriter& w, const std::string& a, const std::string& b, const std::string& hint) {
  return w.form(2) ? w.op("Add", {b, a}, hint) : w.op("Add", {a, b}, hint);
}

}  // namespace export_util

}  // namespace difftest::interop
