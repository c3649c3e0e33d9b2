// The exporter's state (interop/onnx/ only): the graph being written, IR values -> ONNX names,
// and dims computed from the inputs' shapes.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/rng.h"
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

 private:
  std::string dim(const sym::Expr& e);  // a [1] int64 tensor

  ::onnx::GraphProto& graph_;
  std::map<const ValueNode*, std::string> names_;
  std::map<std::string, int> used_;
  std::map<std::string, std::pair<std::string, int>> var_source_;  // dim variable -> (input, axis)
  std::map<std::string, std::string> shape_of_, var_tensor_;
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
const std::map<std::string, Emitter>& emitters();

}  // namespace difftest::interop
