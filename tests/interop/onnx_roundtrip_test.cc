// Export then import gives back a program with the same results under the reference: for the
// corpus programs and generated seeds whose ops all have an ONNX form (the others are counted
// and must fail with Unsupported naming the binding, never with a wrong model). The round trip
// is judged as a compiled result would be: within the original's bounds, since its
// decompositions (gelu in parts, constants in the program's dtype) round differently.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "fuzz/generator.h"
#include "interop/onnx/export.h"
#include "interop/onnx/import.h"
#include "oracle/check/case.h"
#include "reference/inputs.h"
#include "reference/reference.h"

namespace difftest::interop {
namespace {

namespace fs = std::filesystem;

// Empty when the round trip of `p`, run in its declared dtypes, is within the bounds of `p`'s
// reference under the lower-bound binding (as a compiled result would have to be); else what
// differs.
std::string round_trip_difference(const Program& p, const ExportOptions& export_options) {
  const ::onnx::ModelProto model = export_program(p, export_options);
  std::string bytes;
  model.SerializeToString(&bytes);
  ::onnx::ModelProto read;
  if (!read.ParseFromString(bytes)) return "the model does not parse back";
  const Program q = import_model(read, {}, p.name() + ".onnx");
  if (q.outputs().size() != p.outputs().size()) return "a different number of outputs";
  sym::Env env;
  for (const auto& d : p.dims()) env[d.name] = d.range.lo;
  oracle::CaseOptions options;
  options.input_seed = 7;
  options.tolerance.mode = tolerance::BoundMode::Probabilistic;
  options.ensemble.members = 0;
  const oracle::Case c = oracle::make_case(p, env, options);
  if (c.invalid()) return "";  // nothing to compare: the reference is not finite here
  // The round trip declares only the dims its inputs have (a dim no input has cannot be
  // exported, so no op uses it).
  sym::Env q_env;
  for (const auto& d : q.dims()) q_env[d.name] = env.at(d.name);
  const auto got = reference::evaluate(q, q_env, c.inputs, reference::Mode::Native).outputs;
  const tolerance::Comparison cmp = c.compare(p, got, options.tolerance);
  for (const auto& o : cmp.outputs) {
    if (!o.passed()) {
      return fmt::format("output {}: {} elements beyond the bounds, worst got {} want {} bound {}\n{}", o.index,
                         o.failing, o.got, o.want, o.bound, print(q));
    }
  }
  return "";
}

// Every corpus program, with its q4 weights in both forms (MatMulNBits where it applies, and
// unpacked then MatMul).
TEST(OnnxRoundTrip, EveryCorpusProgramComesBackTheSame) {
  int programs = 0;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(DIFFTEST_SOURCE_DIR) / "corpus")) {
    if (entry.path().extension() != ".ir") continue;
    const Program p = parse_program_file(entry.path().string());
    for (const auto form : {ExportOptions::Q4Form::MatMulNBits, ExportOptions::Q4Form::Dequantize}) {
      ExportOptions options;
      options.q4_form = form;
      EXPECT_EQ(round_trip_difference(p, options), "") << entry.path();
    }
    ++programs;
  }
  std::printf("corpus: %d programs round-tripped in both q4 forms\n", programs);
  EXPECT_GE(programs, 39);
}

size_t count_nodes(const ::onnx::ModelProto& m, const std::string& op_type) {
  return static_cast<size_t>(std::count_if(m.graph().node().begin(), m.graph().node().end(),
                                           [&](const auto& n) { return n.op_type() == op_type; }));
}

// q4f16_1 weights feeding a matmul become one MatMulNBits (com.microsoft, opset 1) with an
// explicit zero point 7 in both nibbles of each byte (0x77 = 119): 256 rows x 16 blocks of 32,
// so 8 zero-point bytes per row. The unpacked form has no contrib op.
TEST(OnnxRoundTrip, Q4f16_1WeightsOfAMatmulBecomeMatMulNBitsWithZeroPointSeven) {
  const Program p = parse_program_file(std::string(DIFFTEST_SOURCE_DIR) + "/corpus/q4f16_1_gemv.ir");
  const ::onnx::ModelProto m = export_program(p);
  ASSERT_EQ(count_nodes(m, "MatMulNBits"), 1u);
  EXPECT_EQ(count_nodes(m, "MatMul"), 0u);
  const auto& node = *std::find_if(m.graph().node().begin(), m.graph().node().end(),
                                   [](const auto& n) { return n.op_type() == "MatMulNBits"; });
  EXPECT_EQ(node.domain(), "com.microsoft");
  ASSERT_EQ(node.input_size(), 4);
  const auto& zp = *std::find_if(m.graph().initializer().begin(), m.graph().initializer().end(),
                                 [&](const auto& t) { return t.name() == node.input(3); });
  const Tensor zero_points = tensor_from_proto(zp, "zp");
  ASSERT_EQ(zero_points.numel(), 256 * 8);
  EXPECT_EQ(zero_points.get_int(0), 119);
  EXPECT_EQ(zero_points.get_int(256 * 8 - 1), 119);
  bool contrib_opset = false;
  for (const auto& o : m.opset_import())
    contrib_opset = contrib_opset || (o.domain() == "com.microsoft" && o.version() == 1);
  EXPECT_TRUE(contrib_opset);
  ExportOptions unpacked;
  unpacked.q4_form = ExportOptions::Q4Form::Dequantize;
  const ::onnx::ModelProto u = export_program(p, unpacked);
  EXPECT_EQ(count_nodes(u, "MatMulNBits"), 0u);
  EXPECT_EQ(count_nodes(u, "MatMul"), 1u);
  EXPECT_EQ(count_nodes(u, "BitShift"), 1u);
}

// An f16 function written as several nodes computes them in f32 between one Cast in and one
// out, as our gelu/atan2 round once: in f16 each node would round, and pi and sqrt(2) with them.
TEST(OnnxRoundTrip, F16FunctionsWrittenAsSeveralNodesComputeInF32) {
  const Program p = parse_program(R"(
program @f16_functions() {
  %x: f16[8] = param
  %y: f16[8] = param
  %g: f16[8] = gelu(%x)
  %a: f16[8] = atan2(%y, %x)
  %s: f16[8] = silu(%x)
  %r: f16[8] = rsqrt(%x)
  return %g, %a, %s, %r
}
)");
  const ::onnx::ModelProto m = export_program(p);
  for (const auto& n : m.graph().node()) {
    if (n.op_type() == "Erf" || n.op_type() == "Atan" || n.op_type() == "Sigmoid" || n.op_type() == "Sqrt") {
      const auto& in = n.input(0);
      const auto producer = std::find_if(m.graph().node().begin(), m.graph().node().end(),
                                         [&](const auto& k) { return k.output_size() > 0 && k.output(0) == in; });
      ASSERT_NE(producer, m.graph().node().end()) << n.op_type();
      // Erf and Atan read a Div of the widened operands; Sigmoid and Sqrt read the Cast itself.
      const auto& cast_or_div = *producer;
      EXPECT_TRUE(cast_or_div.op_type() == "Cast" || cast_or_div.op_type() == "Div") << n.op_type();
    }
  }
  EXPECT_EQ(count_nodes(m, "Cast"), 4u + 1u + 4u) << "x widened once per function, y once, each result narrowed";
  EXPECT_EQ(round_trip_difference(p, {}), "");
}

// With bf16 edges, the bf16 inputs and outputs are f32 and the model computes the same values:
// the imported model, fed the f32 copies of the inputs, gives the f32 copies of what the model
// without edges gives, bit for bit (bf16 is exact in f32).
TEST(OnnxRoundTrip, Bf16EdgesAsF32ChangeOnlyTheEdgeDtypes) {
  const Program p = parse_program_file(std::string(DIFFTEST_SOURCE_DIR) + "/corpus/geglu_mlp.ir");
  ExportOptions edges;
  edges.bf16_edges_as_f32 = true;
  const ::onnx::ModelProto m = export_program(p, edges);
  for (const auto& in : m.graph().input()) EXPECT_EQ(in.type().tensor_type().elem_type(), ::onnx::TensorProto::FLOAT);
  for (const auto& out : m.graph().output())
    EXPECT_EQ(out.type().tensor_type().elem_type(), ::onnx::TensorProto::FLOAT);
  const Program with_edges = import_model(m, {}, "edges.onnx");
  const Program plain = import_model(export_program(p), {}, "plain.onnx");
  sym::Env env;
  for (const auto& d : p.dims()) env[d.name] = d.range.lo;
  const auto inputs = reference::generate_inputs(p, env, 3);
  std::map<std::string, Tensor> as_f32;
  for (const auto& [name, t] : inputs) {
    ASSERT_EQ(t.dtype(), DType::bf16) << name;
    as_f32[name + "_f32"] = Tensor::from_doubles(DType::f32, t.shape(), t.to_doubles());
  }
  const auto want = reference::evaluate(plain, env, inputs, reference::Mode::Native).outputs;
  const auto got = reference::evaluate(with_edges, env, as_f32, reference::Mode::Native).outputs;
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < got.size(); ++o) {
    EXPECT_EQ(got[o].dtype(), DType::f32);
    EXPECT_EQ(got[o].to_doubles(), want[o].to_doubles()) << "output " << o;
  }
}

// A dim variable no param has (arange(end=n)) travels as an extent input u8[n] named in the
// metadata; the import reads n from it and makes no param of it.
TEST(OnnxRoundTrip, ADimVariableWithoutAnInputTravelsAsAnExtentInput) {
  const Program p = parse_program_file(std::string(DIFFTEST_SOURCE_DIR) + "/corpus/symbolic_arange_full.ir");
  const ::onnx::ModelProto m = export_program(p);
  ASSERT_EQ(m.graph().input_size(), 1);
  EXPECT_EQ(m.graph().input(0).name(), "n_extent");
  EXPECT_EQ(m.graph().input(0).type().tensor_type().shape().dim(0).dim_param(), "n");
  bool listed = false;
  for (const auto& prop : m.metadata_props())
    listed = listed || (prop.key() == kExtentInputsKey && prop.value() == "n_extent");
  EXPECT_TRUE(listed);
  const Program q = import_model(m, {}, "extent.onnx");
  EXPECT_TRUE(q.params().empty());
  ASSERT_EQ(q.dims().size(), 1u);
  EXPECT_EQ(q.dims()[0].name, "n");
}

TEST(OnnxRoundTrip, GeneratedProgramsThatExportComeBackTheSame) {
  int exported = 0, unsupported = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    const Program p = generate_program(seed);
    try {
      EXPECT_EQ(round_trip_difference(p, {seed}), "") << "seed " << seed << "\n" << print(p);
      ++exported;
    } catch (const Unsupported&) {
      ++unsupported;
    }
  }
  std::printf("seeds 0..299: %d round-tripped, %d have an op without an ONNX form yet\n", exported, unsupported);
  EXPECT_GE(exported, 270);
}

// Programs of motifs (fuzz/motifs.h) in ONNX Runtime's float dtypes: linear and conv layers
// with their bias and activation, residual norms and masked softmaxes, each form seed drawing
// its own operand orders and decompositions.
TEST(OnnxRoundTrip, MotifProgramsComeBackTheSame) {
  GeneratorOptions options;
  options.motif_percent = 100;
  options.float_dtypes = {DType::f32, DType::f16, DType::f64};
  int exported = 0;
  for (uint64_t seed = 0; seed < 100; ++seed) {
    const Program p = generate_program(seed, options);
    try {
      EXPECT_EQ(round_trip_difference(p, {seed}), "") << "seed " << seed << "\n" << print(p);
      ++exported;
    } catch (const Unsupported&) {
    }
  }
  std::printf("motif seeds 0..99: %d round-tripped\n", exported);
  EXPECT_GE(exported, 95);
}

// A layer norm over the last axis is written as the LayerNormalization node or as the
// decomposition ORT's LayerNormFusion rebuilds it from (Pow or Mul for the square, eps on
// either side of its Add, gamma and beta on either side): over 16 form seeds every form
// appears, and each computes the norm.
TEST(OnnxRoundTrip, LayerNormIsWrittenAsItsNodeOrInEveryDecomposedForm) {
  const Program p = parse_program(R"(
program @ln(n: 1..8) {
  %x: f32[n, 16] = param
  %g: f32[16] = param
  %b: f32[16] = param
  %y: f32[n, 16] = layer_norm(%x, %g, %b, eps=0.001)
  return %y
}
)");
  std::set<std::string> forms;
  for (uint64_t form_seed = 0; form_seed < 16; ++form_seed) {
    ExportOptions options;
    options.form_seed = form_seed;
    const ::onnx::ModelProto m = export_program(p, options);
    if (count_nodes(m, "LayerNormalization") == 1) {
      forms.insert("node");
    } else {
      EXPECT_EQ(count_nodes(m, "ReduceMean"), 2u);
      forms.insert(count_nodes(m, "Pow") == 1 ? "pow" : "mul");
      for (const auto& n : m.graph().node()) {
        if (n.op_type() == "Add" && n.input(0).rfind("var", 0) == 0) forms.insert("eps second");
        if (n.op_type() == "Add" && n.input(1).rfind("var", 0) == 0) forms.insert("eps first");
      }
    }
    EXPECT_EQ(round_trip_difference(p, options), "") << "form seed " << form_seed;
  }
  EXPECT_EQ(forms, (std::set<std::string>{"node", "pow", "mul", "eps first", "eps second"}));
}

}  // namespace
}  // namespace difftest::interop
