// Random program generator: type-directed insertion over the whole op registry, mixed with
// templates from real models (fuzz/templates.h). It draws every decision from a ChoiceSource,
// so `generate_program(seed)` is byte-for-byte deterministic and the same code runs under
// RapidCheck with shrinking.
//
// Algorithm (in the spirit of NNSmith): declare 1..4 dim variables (or start from a model
// template and keep its dims and values); then repeat: pick an op by weight, pick or create
// operands whose types suit it (new params and constants are created on demand), choose
// attributes, run the op's own shape inference, and keep the binding only if inference accepts
// it. Values stay finite by construction: the generator tracks a magnitude bound for every
// value (fuzz/magnitude.h), guards the operands of log/sqrt/rsqrt/pow/div, and squashes an
// operand when a result could overflow its dtype. Results are the values nothing else used.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "compiler/ir/ir.h"
#include "compiler/support/rng.h"

namespace difftest {

// The picks that made nothing, counted when GeneratorOptions::drops is set: by op (a recipe that
// emitted no call) and by the builder's reason for refusing a call (`attributes`, `types`: the
// op's own checks; `too-large`; `magnitude`: even squashed operands could overflow).
struct GenerationDrops {
  std::map<std::string, int64_t> by_op, by_reason;
};

struct GeneratorOptions {
  int min_ops = 1;  // random ops per program (guards and template ops come on top)
  int max_ops = 20;
  int min_dim_vars = 1;
  int max_dim_vars = 4;
  int max_rank = 4;
  int64_t max_elements = int64_t{1} << 16;  // per tensor, at the dims' upper bounds
  // Relative weight of each op (absent: default_op_weights()); 0 never picks the op.
  std::map<std::string, uint32_t> weights;
  uint32_t template_percent = 10;  // programs that start from a model template
  int template_size_shift = 4;  // model widths divided by 2^shift (TemplateOptions)
  // Programs that end with a near twin of one of their calls (Builder::twin): the same op and
  // operands with one boolean attribute flipped, which CommonSubexprElimination must not merge.
  uint32_t twin_percent = 30;
  // Programs that end with an elementwise binary op on two fresh constants (Builder::
  // constant_subexpression): a constant subgraph for FoldConstant to evaluate.
  uint32_t constant_percent = 30;
  // Picks that emit a motif (fuzz/motifs.h: a linear or conv layer with bias and activation, a
  // residual norm, a masked softmax, in the forms ONNX exporters write) instead of one op. 0
  // draws nothing, so programs stay those of a generator without motifs.
  uint32_t motif_percent = 0;
  // The float dtypes an op's operands are drawn from, uniformly (a repeated dtype weighs more).
  // A compiler under test without kernels for some (ONNX Runtime's CPU provider: bf16) gets
  // programs it can run (backends/backends.h).
  std::vector<DType> float_dtypes = {DType::f32, DType::f16, DType::bf16, DType::f64};
  // Ops whose float operands come from a narrower list (a compiler without kernels for the rest:
  // ONNX Runtime's CPU Conv is f32 only), where their recipes make fresh operands.
  std::map<std::string, std::vector<DType>> op_float_dtypes;
  // The dtypes a program may compute in (empty: any): what a compiler under test declares it computes
  // as declared (an OpenVINO CPU converts f64, i64 and u32). generate_program(seed) draws again,
  // from a stream derived from the seed and the draw's number, while a program has another
  // (at most kMaxDraws draws; the last is kept whatever it holds).
  std::vector<DType> dtypes;
  // Whether the compiler under test can be handed the program at all (an ONNX backend: whether
  // the exporter has a form for it); empty: every program. A program it cannot take is drawn
  // again, as one outside `dtypes` is.
  std::function<bool(const Program&)> can_take;
  // Not owned; when set, every pick that made nothing is counted there (a generation statistic).
  GenerationDrops* drops = nullptr;
};

inline constexpr int kMaxDraws = 64;

// Every op in the registry with its default weight.
const std::map<std::string, uint32_t>& default_op_weights();

// "exp=0,matmul=30" -> weights; UserError(Usage) naming `flag` for an unknown op or a bad
// number.
std::map<std::string, uint32_t> parse_op_weights(const std::string& text, const std::string& flag);

Program generate_program(ChoiceSource& choices, const GeneratorOptions& options = {});
Program generate_program(uint64_t seed, const GeneratorOptions& options = {});
// Whether `p` computes only in `dtypes` (Program::dtypes_computed; empty: any).
bool uses_only_dtypes(const Program& p, const std::vector<DType>& dtypes);

}  // namespace difftest
