// What generated programs exercise, as cells and counts: the generator's side of the coverage map
// (docs/fuzzing.md, "Coverage"). A call contributes one cell per (attribute class, shape class)
// pair of its op and dtype; values contribute value classes. The same classification serves the
// generation statistics (bench/generator_stats: the distribution over a range of seeds) and the
// coverage map a campaign writes (`difftest fuzz --coverage`).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/tensor/tensor.h"

namespace difftest::coverage {

// The attribute classes of a call: one per attribute present, `name=class` (`axes:negative`,
// `transpose_a=true`, `window>1`, `approximate=tanh`, `acc=f32`), or `-` when it has none.
std::vector<std::string> attribute_classes(const Binding& call);

// The shape classes of a call: of its result (`static`, `symbolic`, `derived`, `unit`, `scalar`),
// of its operands against the result (`broadcast-one`, `broadcast-both`, `rank-differs`), and
// the op-specific ones (matmul `batch:none|lhs|rhs|both|broadcast`, attention `gqa`, reshape
// `same-rank`, permute_dims `rank=R`).
std::vector<std::string> shape_classes(const Binding& call);

// The class of one float value: nan, inf, zero, negative-zero, subnormal, tiny (|x| < 2^-8),
// unit (up to 4), large (up to 2^10), huge; `tie` is counted besides for x + 0.5 integral.
std::vector<std::string> value_classes(double x, DType t);
// The same as bits, for many elements without allocating: value_class_names turns a union of
// them (tensor_value_class_bits: every element of a float tensor) into the class names.
uint32_t value_class_bits(double x, DType t);
std::vector<std::string> value_class_names(uint32_t bits);
uint32_t tensor_value_class_bits(const Tensor& t);

// Counts over many programs.
struct Counts {
  int64_t programs = 0, calls = 0;
  std::map<std::string, int64_t> ops;                 // calls per op
  std::map<std::string, int64_t> cells;               // "op|dtype|attribute class|shape class"
  std::map<std::string, int64_t> attribute_classes;   // "op|class"
  std::map<std::string, int64_t> shape_classes;       // "op|class"
  std::map<std::string, int64_t> constant_values;     // value classes of literal and generated constants
  std::map<std::string, int64_t> input_values;        // value classes of the inputs a check feeds
  std::map<std::string, int64_t> result_dtypes;       // "op|dtype" of results (cast's, dequantize's)

  void add_program(const Program& p);
  void add_inputs(const std::map<std::string, Tensor>& inputs);
  void merge(const Counts& other);
};

// The cells one call exercises (sorted, distinct).
std::vector<std::string> call_cells(const Binding& call);

}  // namespace difftest::coverage
