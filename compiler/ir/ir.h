// Graph IR (Relax-like): one function in SSA form.
//
//   program @name(n: 1..256, m: 1..64) {          dim variables with inclusive ranges
//     %x: f16[n, 640] = param                      a parameter
//     %g: f32[640] = const uniform(-1, 1, seed=3)  a constant (literal, uniform or normal)
//     %0: f16[n, 640] = matmul(%x, %w, ...)        an op binding; every binding states its type
//     %a: f32[n, 2], %b: f32[n, 2] = split(...)    ops may have several results
//     return %0, %a                                one or more results
//   }
//
// Semantics that hold program-wide:
//   - every dim is an integer expression of the dim variables (sym.h) and is >= 1 for every
//     binding of the variables within their ranges (the verifier proves it);
//   - values are immutable tensors; a binding defines its results once (SSA) and may only use
//     values defined above it;
//   - the declared type of a result equals its inferred type up to provable dim equality.
// Nodes are immutable and built through validating factories (Value::make, Binding::*,
// Program::make); structural errors are UserErrors located at the offending binding.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "compiler/support/diagnostics.h"
#include "compiler/sym/sym.h"
#include "compiler/types/dtype.h"
#include "compiler/types/tensor_type.h"

namespace difftest {

struct OpDef;

// ------------------------------------------------------------------------------- values

struct ValueNode {
  std::string name;
  TensorType type;
};

// An SSA value. Identity is the node (two values with the same name in different programs are
// different values).
class Value {
 public:
  Value() = default;
  static Value make(std::string name, TensorType type);  // validates the name: [A-Za-z0-9_]+

  bool defined() const { return node_ != nullptr; }
  const std::string& name() const { return node_->name; }
  const TensorType& type() const { return node_->type; }
  const ValueNode* get() const { return node_.get(); }
  bool same_as(const Value& o) const { return node_ == o.node_; }

 private:
  explicit Value(std::shared_ptr<const ValueNode> n) : node_(std::move(n)) {}
  std::shared_ptr<const ValueNode> node_;
};

bool is_valid_value_name(std::string_view name);

// ------------------------------------------------------------------------------- constants

// The value of a constant. Literals keep exact integers for integer/bool dtypes and doubles
// for float dtypes (the element is the literal rounded to the dtype). Generated constants are
// deterministic functions of (seed, flat index) — see reference/ for their materialization:
//   uniform(lo, hi, seed=S)  floats uniform in [lo, hi); integers uniform in [lo, hi]
//   normal(mean, std, seed=S) an Irwin-Hall approximation (sum of 12 uniforms), no libm
struct ConstantInit {
  enum class Kind { Literal, Uniform, Normal };
  Kind kind = Kind::Literal;
  std::vector<int64_t> int_values;   // Literal with an integer or bool dtype
  std::vector<double> float_values;  // Literal with a float dtype
  double p0 = 0, p1 = 0;             // uniform lo/hi, normal mean/std
  uint64_t seed = 0;

  friend bool operator==(const ConstantInit&, const ConstantInit&) = default;
};

// ------------------------------------------------------------------------------- bindings

enum class BindingKind { Param, Const, Call };

class Binding {
 public:
  static Binding param(Value v, SourceLoc loc = {});
  static Binding constant(Value v, ConstantInit init, SourceLoc loc = {});
  // Checks arity and result count against the op; `attrs` must come from make_attrs.
  static Binding call(std::vector<Value> results, const OpDef* op, std::vector<Value> args, Attrs attrs,
                      SourceLoc loc = {});

  BindingKind kind() const { return kind_; }
  bool is_call() const { return kind_ == BindingKind::Call; }
  const std::vector<Value>& results() const { return results_; }
  const Value& result() const;  // the only result
  const ConstantInit& constant() const;
  const OpDef& op() const;
  const std::vector<Value>& args() const { return args_; }
  const Attrs& attrs() const { return attrs_; }
  const SourceLoc& loc() const { return loc_; }

  // Fusion group (-1: none). Groups are a hint for FuseLoops: the reference ignores them, and
  // the verifier does not require a group's members to be contiguous (FuseLoops refuses when
  // they are not). Only call bindings carry one.
  int group() const { return group_; }
  Binding with_group(int group) const;  // a copy in `group` (>= -1)

 private:
  Binding() = default;
  BindingKind kind_ = BindingKind::Param;
  std::vector<Value> results_;
  ConstantInit constant_;
  const OpDef* op_ = nullptr;
  std::vector<Value> args_;
  Attrs attrs_;
  SourceLoc loc_;
  int group_ = -1;
};

// ------------------------------------------------------------------------------- programs

struct DimVar {
  std::string name;
  sym::Range range;
};

// Limits that keep every later stage's arithmetic in 64 bits and its memory bounded.
constexpr int64_t kMaxDimVarValue = (int64_t{1} << 31) - 1;
constexpr int64_t kMaxTensorElements = int64_t{1} << 40;

class Program {
 public:
  // Validates structure: a valid name, unique dim variables and value names, every operand
  // and result defined by an earlier binding, at least one result.
  static Program make(std::string name, std::vector<DimVar> dims, std::vector<Binding> bindings,
                      std::vector<Value> outputs, SourceLoc loc = {});

  const std::string& name() const { return data_->name; }
  const std::vector<DimVar>& dims() const { return data_->dims; }
  const std::vector<Binding>& bindings() const { return data_->bindings; }
  const std::vector<Value>& outputs() const { return data_->outputs; }
  const SourceLoc& loc() const { return data_->loc; }
  sym::Ranges ranges() const;
  std::vector<Value> params() const;
  // Every dtype it computes in, in order of first use: its values' and the accumulators its calls
  // declare (`acc=f64` computes in f64 whatever its operands are).
  std::vector<DType> dtypes_computed() const;
  size_t num_calls() const;
  bool same_as(const Program& o) const { return data_ == o.data_; }

 private:
  struct Data {
    std::string name;
    std::vector<DimVar> dims;
    std::vector<Binding> bindings;
    std::vector<Value> outputs;
    SourceLoc loc;
  };
  std::shared_ptr<const Data> data_;
};

bool is_valid_identifier(std::string_view name);  // [A-Za-z_][A-Za-z0-9_]*

}  // namespace difftest
