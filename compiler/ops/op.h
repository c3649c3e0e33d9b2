// Op definitions: the single source of truth for every op's name, operands, attribute schema,
// shape/dtype inference, fusion pattern kind and written semantics. docs/ops.md is generated
// from this registry (`difftest list-ops --markdown`), the reference interpreter implements
// the semantics text, and the compiler lowers it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "compiler/types/tensor_type.h"
#include "compiler/sym/sym_prove.h"

namespace difftest {

struct OpDef;

enum class AttrKind { Int, Float, Bool, String, DType, OptDType, IntList, Sym, SymList };
const char* attr_kind_name(AttrKind k);

struct AttrSpec {
  std::string name;
  AttrKind kind;
  bool required = false;            // no default: must be written
  AttrValue default_value;          // for optional attributes (monostate = absent)
  std::vector<std::string> choices; // for String attributes
  std::string doc;
};

// TVM's op pattern kinds; FuseOps groups by them.
enum class OpPattern { ElemWise, Broadcast, Injective, CommReduce, OutEWiseFusable, Opaque };
const char* op_pattern_name(OpPattern p);

struct InferContext {
  const OpDef& op;
  const std::vector<TensorType>& inputs;
  const Attrs& attrs;
  const sym::Ranges& ranges;
};

using InferFn = std::function<std::vector<TensorType>(const InferContext&)>;
using NumResultsFn = std::function<int(const Attrs&)>;

struct OpDef {
  std::string name;
  std::string family;                 // "elementwise", "reduction", ... (one file per family)
  std::string summary;                // one line
  std::string semantics;              // the exact definition, index conventions included
  std::vector<std::string> inputs;    // operand names; a trailing "..." marks variadic
  int min_inputs = 1;
  int max_inputs = 1;                 // -1: unbounded
  std::vector<AttrSpec> attrs;
  OpPattern pattern = OpPattern::Opaque;
  InferFn infer;
  NumResultsFn num_results;           // empty: one result

  int result_count(const Attrs& a) const { return num_results ? num_results(a) : 1; }
  const AttrSpec* find_attr(std::string_view attr) const;
};

class OpRegistry {
 public:
  static const OpRegistry& get();

  const OpDef* find(std::string_view name) const;
  const std::vector<const OpDef*>& all() const { return ordered_; }  // by family, then name
  void add(OpDef def);

 private:
  OpRegistry() = default;
  // The ops added since the last check must all be of `family` (one family's registration).
  void check_family(const std::string& family);
  std::vector<std::unique_ptr<OpDef>> defs_;
  std::vector<const OpDef*> ordered_;
  size_t checked_ = 0;
};

// Converts a parsed value to the attribute's kind (an integer for a float attribute, a
// constant sym::Expr for an integer); throws UserError(Attribute) naming the attribute.
AttrValue coerce_attr(const OpDef& op, const AttrSpec& spec, const AttrValue& raw);

// "matmul has no attribute 'foo'; it has: transpose_a, transpose_b, acc"
std::string unknown_attr_message(const OpDef& op, std::string_view attr);

// Builds the normalized attribute list of a call: schema order, defaults filled in, unknown
// and missing attributes rejected.
Attrs make_attrs(const OpDef& op, const std::vector<std::pair<std::string, AttrValue>>& given);

// Runs the op's inference; errors are UserErrors of kind Shape, TypeMismatch or Attribute.
std::vector<TensorType> infer_types(const OpDef& op, const std::vector<TensorType>& inputs, const Attrs& attrs,
                                    const sym::Ranges& ranges);

// Markdown reference of every op (docs/ops.md).
std::string ops_markdown();

}  // namespace difftest
