// What each op makes of NaN, infinities, signed zeros and zero divisors: one rule per group of
// ops, every op in exactly one group (op_catalog_test checks it), printed into docs/ops.md. The
// reference, the compiler's lowerings and the ONNX conformance runner follow these rules.
#include "compiler/ops/special_values.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace difftest {

const std::vector<SpecialValueRule>& special_value_rules() {
  static const std::vector<SpecialValueRule> rules = {
      {"IEEE 754 in the op's dtype, as the C library computes it: a NaN operand gives NaN; log(0) = -inf, "
       "log(x < 0) = sqrt(x < 0) = NaN, rsqrt(0) = inf, x / 0 = +-inf (0 / 0 = NaN), pow as C's pow; floor and "
       "round keep +-inf; overflow rounds to +-inf",
       {"exp",   "log",   "sqrt", "rsqrt", "tanh", "sigmoid", "silu", "gelu", "erf", "sin",  "cos",
        "floor", "round", "neg",  "abs",   "add",  "sub",     "mul",  "div",  "pow", "atan2"}},
      {"a NaN passes through: relu(NaN) = leaky_relu(NaN) = NaN, clip(NaN) = NaN; maximum and minimum give NaN "
       "when either operand is NaN",
       {"relu", "leaky_relu", "clip", "maximum", "minimum"}},
      {"floats: floor_divide is floor(a / b) (+-inf or NaN for b = 0), floor_mod follows fmod (NaN for b = 0 "
       "or an infinite a); integers: b = 0 gives 0, and min // -1 wraps to min",
       {"floor_divide", "floor_mod"}},
      {"a comparison with a NaN operand is false, except not_equal, which is true; -0 equals +0",
       {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}},
      {"bool operands only: no special values", {"logical_and", "logical_or", "logical_xor", "logical_not"}},
      {"the unselected operand is not read: a NaN there does not reach the result", {"where"}},
      {"to a float: round to nearest even, +-inf past the range, NaN stays NaN; to an integer: NaN gives 0, "
       "values past the range saturate",
       {"cast"}},
      {"IEEE sums and products: a NaN in a slice gives NaN, inf - inf gives NaN", {"sum", "mean", "prod"}},
      {"a NaN in the slice gives NaN (NumPy, ONNX)", {"max", "min"}},
      {"a NaN counts as the extreme: the index of the first NaN (NumPy)", {"argmax", "argmin"}},
      {"IEEE dot products: a NaN or an infinity in an operand reaches every result that reads it (0 * inf = NaN)",
       {"matmul", "linear", "conv1d", "conv2d", "conv_transpose1d"}},
      {"max-subtracted: a NaN or +inf in a row makes the row NaN; a -inf entry gets weight 0 (a row of -inf is "
       "NaN)",
       {"softmax", "log_softmax"}},
      {"a NaN or infinity makes its whole normalized group NaN",
       {"rms_norm", "layer_norm", "group_norm", "instance_norm"}},
      {"masked keys are not read (a NaN in their k or v does not reach the output); a NaN score makes its row "
       "NaN; a row without keys is 0",
       {"attention"}},
      {"IEEE products and sums of x with cos and sin of a finite angle", {"rope"}},
      {"values move unchanged (NaN stays NaN, -0 stays -0); indices are integers",
       {"reshape", "permute_dims", "broadcast_to", "concat", "split", "strided_slice", "squeeze", "expand_dims", "take",
        "slice_scatter", "repeat", "tril", "triu", "upsample_nearest1d"}},
      {"made from attributes: full's value is rounded to the dtype (past its range: +-inf); the others are "
       "finite",
       {"arange", "full", "zeros", "ones"}},
      {"bool results from integer positions: no special values", {"causal_mask", "sliding_window_mask"}},
      {"weights are read as finite: a NaN or infinite weight makes the codes unspecified (such a program is "
       "invalid_program); NaN or infinite scales give NaN or infinite weights",
       {"quantize", "dequantize"}},
  };
  return rules;
}

const SpecialValueRule* special_values_of(std::string_view op) {
  for (const auto& rule : special_value_rules()) {
    for (const auto& name : rule.ops) {
      if (name == op) return &rule;
    }
  }
  return nullptr;
}

std::string special_values_markdown() {
  std::string out =
      "\n## Special values\n\n"
      "What each op makes of NaN, infinities, signed zeros and zero divisors (the reference, the compiler and\n"
      "the ONNX conformance runner follow it). difftest judges only programs whose computed reference values are\n"
      "all finite: one whose calls compute a NaN or infinity anywhere is `invalid_program`. Inputs may\n"
      "hold infinities and NaN that every use maps to finite values (generated inputs do, for a\n"
      "sixteenth of such parameters: docs/reference.md), so these rules matter for the bounds there, as\n"
      "well as for conformance and compilers' handling of hostile inputs.\n\n"
      "| ops | special values |\n|---|---|\n";
  for (const auto& rule : special_value_rules()) {
    out += fmt::format("| `{}` | {} |\n", fmt::join(rule.ops, "`, `"), rule.text);
  }
  out +=
      "\n## Integer overflow\n\n"
      "Integer arithmetic wraps modulo 2^bits (`add`, `sub`, `mul`, `neg`, `abs`, `sum`, `prod`, a narrowing\n"
      "integer `cast`), and the builtin compiler is held to it exactly. ONNX leaves integer overflow undefined\n"
      "(ONNX Runtime saturated an int32 product to 2147483647 where the IR wraps), so under a compiler that\n"
      "runs an exported model (`--backend ort`) an integer element whose exact value leaves its dtype is\n"
      "uncertain, not compared, and so is everything computed from it (docs/tolerance.md); so is a float\n"
      "cast to an integer whose truncated value is past the integer's range (the IR saturates; C's and\n"
      "LLVM's conversions are undefined there: Apache TVM answered 4294967295 for u32(-1.37)). An integer\n"
      "`div`, `floor_divide` or `floor_mod` by zero is 0 in the IR; C, LLVM IR and ONNX leave it\n"
      "undefined (Apache TVM's code traps: SIGFPE), so under such a compiler (every backend but the\n"
      "builtin) a case that divides an integer by zero is invalid under its binding, as one whose floats\n"
      "overflow is: neither a crash nor a value there is the compiler's finding.\n";
  return out;
}

}  // namespace difftest
