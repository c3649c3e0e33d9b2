// The generator's working state: the dims, the values made so far with their magnitude
// bounds, and the bindings. Recipes (fuzz/recipes.cc) ask it for operands and emit calls;
// it keeps every call finite (guards and squashes, see fuzz/magnitude.h) and well typed (the
// op's own shape inference decides).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/sym/sym_prove.h"
#include "compiler/ops/op_table.h"
#include "fuzz/generator.h"
#include "fuzz/magnitude.h"
#include "compiler/support/rng.h"

namespace difftest::fuzz {

using AttrList = std::vector<std::pair<std::string, AttrValue>>;

class Builder {
 public:
  Builder(ChoiceSource& choices, const GeneratorOptions& options);

  ChoiceSource& choices() { return c_; }
  const sym::Ranges& ranges() const { return ranges_; }

  // Declares options' number of dim variables with random ranges and fills the dim pool.
  void declare_dims();
  // Starts from an existing program (a template): its dims, values and bindings are kept and
  // become operands for what follows.
  void adopt(const Program& p);
  Program finish(const std::string& name);

  // ---------------------------------------------------------------- dims and types
  sym::Expr dim();  // a dim from the pool: constants, variables, derived expressions
  int64_t const_dim();
  std::vector<sym::Expr> shape(int rank);
  int rank(int min_rank = 0);
  DType float_dtype();
  DType float_dtype_for(const std::string& op);  // within GeneratorOptions::op_float_dtypes
  DType int_dtype();
  DType numeric_dtype();
  bool small_enough(const TensorType& t) const;

  // ---------------------------------------------------------------- values
  Value param(TensorType t);
  Value constant(TensorType t);  // t must be static
  Value fresh(TensorType t);     // a constant (static shapes, sometimes) or a param
  // Quantized weights packed into unsigned words, as fresh(): a constant draws every word over
  // the dtype's whole range, so every nibble holds every code as in a real checkpoint (a small
  // uniform integer leaves the upper nibbles 0 and a row's weights nearly all equal). Params get
  // their codes from quantized weights (reference/inputs.cc).
  Value packed_words(TensorType t);
  // An existing value satisfying `pred` (two times in three when one exists), else make().
  Value operand(const std::function<bool(const TensorType&)>& pred, const std::function<TensorType()>& make);
  Value float_operand(int min_rank, int max_rank = 8);
  Value typed_operand(DType dt, int min_rank);
  Value broadcast_partner(const std::vector<sym::Expr>& s, DType dt);  // fresh, broadcasts against s
  // Operands that both broadcast, as in `a[:, None] - b[None, :]`: `a` with a unit axis inserted
  // (expand_dims) and a fresh partner that is real there and 1 on some of a's axes, sometimes of
  // lower rank. Falls back to (a, broadcast_partner) when the rank would exceed max_rank.
  std::pair<Value, Value> outer_pair(const Value& a, DType dt);
  // Batch dims for a matmul's right operand against the left one's `batch`: equal, broadcast
  // (some axes 1), with a leading axis the left lacks, or a suffix; fresh dims when it has none.
  std::vector<sym::Expr> batch_partner(const std::vector<sym::Expr>& batch);

  // ---------------------------------------------------------------- emitting
  // Emits `name(args) {attrs}` if inference accepts it and the result can be kept finite;
  // returns whether it did. Operands may be replaced by guarded or squashed versions.
  bool call(const std::string& name, std::vector<Value> args, const AttrList& attrs);
  // As call(), with the result (nullopt when nothing was emitted), for a chain of calls.
  std::optional<Value> apply(const std::string& name, std::vector<Value> args, const AttrList& attrs);
  // Counts a refused call under `reason` (GeneratorOptions::drops) and answers nothing.
  std::nullopt_t dropped(const std::string& reason) const;
  Value scalar(DType dt, double value);       // a rank-0 constant of exactly `value`
  bool allowed(const std::string& op) const;  // not given weight 0 by the options
  // Emits a near twin of a random earlier call that has a boolean attribute: the same op and
  // operands with that attribute flipped (a matmul whose flip does not infer is re-emitted
  // first with a fresh square right operand). Returns whether it emitted one.
  bool twin();
  // Emits an elementwise binary op (arithmetic, floor division and modulo, min/max) on two
  // fresh constants of one small static shape, integers half the time. Returns whether it did.
  bool constant_subexpression();
  // An `acc` for an op on `t`: none (the op accumulates in `t`: half the time, one time in eight
  // for bf16) or a wider float (f64 for f64).
  AttrValue acc_for(DType t);
  // As acc_for, but `t` itself for an op with narrowed dtypes (GeneratorOptions::op_float_dtypes).
  AttrValue acc_for_op(const std::string& op, DType t);
  // `t` itself (no widening) or a wider float: always accepted. Motifs use these.
  AttrValue accumulator(DType t);
  AttrValue accumulator_for(const std::string& op, DType t);  // `t` itself for an op with narrowed dtypes
  int64_t axis_of(int rank);

 private:
  enum class Domain { Unclaimed, Positive, NonZero, Other };  // what reference/inputs.cc will draw

  Value add_constant(TensorType t, ConstantInit init);  // named, with its magnitude, in the program
  // A literal of a value class the k/2 grid never holds: -0, a tie, a large or tiny magnitude, a
  // subnormal of t.
  double special_value(DType t);
  Value emit(const OpDef& op, std::vector<Value> args, Attrs attrs, std::vector<TensorType> types);
  Value emit_simple(const std::string& name, std::vector<Value> args, const AttrList& attrs);
  Value positive(const Value& v, double floor);   // v itself when provably >= floor, else |v| + floor
  Value squash(const Value& v);                   // tanh for floats, clip to +-100 for integers
  double hi(const sym::Expr& e) const;            // upper bound of a dim
  double numel_hi(const TensorType& t) const;
  double terms(const OpDef& op, const Attrs& a, const std::vector<TensorType>& in) const;
  double internal_magnitude(const OpDef& op, const Attrs& a, const std::vector<Magnitude>& in, double terms) const;
  bool fits(const OpDef& op, const Attrs& a, const std::vector<Value>& args, const std::vector<TensorType>& types,
            std::vector<Magnitude>& out) const;
  void claim_domain(const std::string& op, const std::vector<Value>& args);

  ChoiceSource& c_;
  GeneratorOptions o_;
  std::vector<DimVar> dims_;
  sym::Ranges ranges_;
  std::vector<sym::Expr> pool_;
  std::vector<Binding> bindings_;
  std::vector<Value> values_;
  std::map<const ValueNode*, Magnitude> mag_;
  std::map<const ValueNode*, Domain> domain_;  // params only
  std::set<const ValueNode*> used_;
  std::set<const ValueNode*> produced_by_call_;
  std::set<std::string> names_;
  int params_ = 0, consts_ = 0, results_ = 0;
};

// The recipes: one per op, building operands and attributes that suit the op.
using Recipe = bool (*)(Builder&, const std::string& op);
using RecipeTable = OpTable<Recipe>;
const RecipeTable& recipes();  // registered per family (compiler/ops/op_table.h)

}  // namespace difftest::fuzz
