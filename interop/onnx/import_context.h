// The importer's state while it walks a graph (interop/onnx/ only): the program being built,
// ONNX names -> values, the constants an op needs as attributes, and one node's view of it.
#pragma once

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/ops/op.h"
#include "interop/onnx/import.h"

namespace difftest::interop {

using AttrList = std::vector<std::pair<std::string, AttrValue>>;

class GraphImport {
 public:
  explicit GraphImport(sym::Ranges ranges) : ranges_(std::move(ranges)) {}

  // A fresh IR name for an ONNX one.
  std::string fresh_name(const std::string& onnx_name);
  Value param(const std::string& onnx_name, TensorType type);
  Value constant(const std::string& onnx_name, const Tensor& value);
  // Calls `op` (inferring result types) with fresh names derived from `hint`.
  std::vector<Value> call(const std::string& op, std::vector<Value> args, const AttrList& attrs,
                          const std::string& hint);

  void bind(const std::string& onnx_name, const Value& v) { values_[onnx_name] = v; }

  // An int64 tensor of rank 0 or 1 holding dims (a Shape's output and what shape arithmetic
  // makes of it), kept as expressions of the dim variables rather than as an IR value.
  struct ShapeValue {
    std::vector<sym::Expr> elements;
    bool scalar = false;
    DType dtype = DType::i64;  // i32 after a Cast to it
  };
  void bind_shape(const std::string& onnx_name, ShapeValue v) { shape_values_[onnx_name] = std::move(v); }
  const ShapeValue* shape_value(const std::string& onnx_name) const;
  std::optional<Value> lookup(const std::string& onnx_name) const;
  // An extent input (kExtentInputsKey): only its shape exists, for Shape to read.
  void bind_extent(const std::string& onnx_name, std::vector<sym::Expr> shape) {
    extents_[onnx_name] = std::move(shape);
  }
  const std::vector<sym::Expr>* extent(const std::string& onnx_name) const {
    const auto it = extents_.find(onnx_name);
    return it == extents_.end() ? nullptr : &it->second;
  }
  const Tensor* constant_of(const Value& v) const;

  const sym::Ranges& ranges() const { return ranges_; }
  std::vector<Binding>& bindings() { return bindings_; }

 private:
  sym::Ranges ranges_;
  std::vector<Binding> bindings_;
  std::map<std::string, Value> values_;
  std::set<std::string> used_names_;
  std::map<const ValueNode*, Tensor> constants_;
  std::map<std::string, ShapeValue> shape_values_;
  std::map<std::string, std::vector<sym::Expr>> extents_;
};

// One node being translated.
class NodeImport {
 public:
  NodeImport(GraphImport& graph, const ::onnx::NodeProto& node, int index, int opset)
      : graph_(graph), node_(node), index_(index), opset_(opset) {}

  const ::onnx::NodeProto& node() const { return node_; }
  int opset() const { return opset_; }
  size_t num_inputs() const { return static_cast<size_t>(node_.input_size()); }
  bool has_input(size_t i) const;
  Value input(size_t i) const;                           // required
  std::optional<Tensor> constant_input(size_t i) const;  // nullopt when absent; Unsupported when not constant
  std::vector<int64_t> ints_input(size_t i) const;       // a required constant integer tensor
  // A required integer input as dims: a constant, or a shape value (Shape and its arithmetic).
  std::vector<sym::Expr> dims_input(size_t i) const;
  GraphImport& graph() const { return graph_; }

  bool has_attr(const std::string& name) const;
  int64_t attr_int(const std::string& name, int64_t fallback) const;
  double attr_float(const std::string& name, double fallback) const;
  std::vector<int64_t> attr_ints(const std::string& name) const;
  std::string attr_string(const std::string& name, const std::string& fallback) const;
  const ::onnx::TensorProto* attr_tensor(const std::string& name) const;
  // Unsupported for any attribute of the node not in `known`.
  void only_attrs(std::initializer_list<const char*> known) const;

  Value call(const std::string& op, std::vector<Value> args, const AttrList& attrs = {}) const;
  std::vector<Value> calls(const std::string& op, std::vector<Value> args, const AttrList& attrs = {}) const;
  Value constant(const Tensor& value) const;
  // A scalar of `dtype` (for x + 1, 1 / x, ...).
  Value scalar(DType dtype, double value) const;

  // Where the node is, for messages: "node 3 'add1' (Add, opset 13)".
  std::string where() const;
  [[noreturn]] void unsupported(const std::string& reason, const std::string& why) const;

 private:
  GraphImport& graph_;
  const ::onnx::NodeProto& node_;
  int index_;
  int opset_;
};

// Translates one node into values for its outputs, in order (an output the node does not use
// may be left undefined).
using Translator = std::vector<Value> (*)(const NodeImport& n);
const std::map<std::string, Translator>& translators();
// The shape, layout and constant ops' translators (import_layout_ops.cc).
const std::map<std::string, Translator>& layout_translators();
// The layer ops' translators (import_layer_ops.cc), and those of the com.microsoft domain.
const std::map<std::string, Translator>& layer_translators();
const std::map<std::string, Translator>& microsoft_translators();

// What the translators share.
namespace import_util {

inline int rank_of(const Value& v) { return v.type().rank(); }
inline DType dtype_of(const Value& v) { return v.type().dtype; }
inline const std::vector<sym::Expr>& dims_of(const Value& v) { return v.type().shape; }

// An axis in [-rank, rank) as a non-negative one.
inline int64_t normalized_axis(const NodeImport& n, int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) {
    throw UserError(ErrorKind::Attribute,
                    fmt::format("{}: axis {} is out of range for rank {}", n.where(), axis, rank));
  }
  return axis < 0 ? axis + rank : axis;
}

inline sym::Expr product(const std::vector<sym::Expr>& dims, size_t from, size_t to) {
  sym::Expr p = sym::Expr::constant(1);
  for (size_t i = from; i < to; ++i) p = p.is_const(1) ? dims[i] : p * dims[i];
  return p;
}

inline void require_float(const NodeImport& n, const Value& v) {
  if (!is_float(dtype_of(v))) {
    n.unsupported(
        fmt::format("{} on {}", n.node().op_type(), dtype_name(dtype_of(v))),
        fmt::format("{}: difftest's counterpart takes float operands, not {}", n.where(), dtype_name(dtype_of(v))));
  }
}

}  // namespace import_util

}  // namespace difftest::interop

namespace difftest::interop {

// Shape arithmetic evaluated on dims (import_shapes.cc): a Shape node, and an int64 op on a
// Shape's output (Slice, Gather, Concat, Squeeze, Unsqueeze, Cast, Identity, Add, Sub, Mul,
// Div, Mod, Min, Max), bind shape values instead of IR calls. True when `n` was one.
bool fold_shape_arithmetic(GraphImport& g, const NodeImport& n);

}  // namespace difftest::interop
