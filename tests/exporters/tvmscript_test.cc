// repro_tvmscript.py: every corpus and generated program exports to valid Python, the op table
// covers the registry, the quantized GEMV becomes a prim_func plus an out_dtype matmul, and the
// driver rebuilds generated constants bit for bit.
#include "exporters/tvmscript/tvmscript.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/ir/parser.h"
#include "compiler/ops/op.h"
#include "compiler/tensor/constant.h"
#include "fuzz/generator.h"
#include "exporters/tvmscript/emit.h"
#include "tests/support/one_op_programs.h"
#include "tests/support/run_command.h"

namespace difftest::exporters {
namespace {

namespace fs = std::filesystem;

struct Exported {
  std::string label;
  std::string text;
};

std::string run(const std::string& command) { return testing::run_command(command).output; }

// Parses every text with Python's ast module in one interpreter and returns, per label, the
// SyntaxError for the ones that fail. Fails the test when the checker itself did not run.
std::map<std::string, std::string> python_syntax_errors(const std::vector<Exported>& files) {
  const fs::path dir = fs::temp_directory_path() / ("difftest_tvmscript_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string args;
  std::map<std::string, std::string> label_of;
  for (size_t i = 0; i < files.size(); ++i) {
    const fs::path f = dir / ("repro_" + std::to_string(i) + ".py");
    std::ofstream(f) << files[i].text;
    args += " " + f.string();
    label_of[f.string()] = files[i].label;
  }
  const std::string script =
      "import ast,sys\n"
      "for f in sys.argv[1:]:\n"
      "    try:\n"
      "        ast.parse(open(f).read(), f)\n"
      "    except SyntaxError as e:\n"
      "        print('FAIL\\t' + f + '\\t' + repr(e))\n"
      "print('checked', len(sys.argv) - 1)\n";
  const fs::path checker = dir / "check.py";
  std::ofstream(checker) << script;
  const std::string out = run("python3 " + checker.string() + args + " 2>&1");
  fs::remove_all(dir);
  EXPECT_NE(out.find("checked " + std::to_string(files.size())), std::string::npos) << out;
  std::map<std::string, std::string> errors;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("FAIL\t", 0) != 0) continue;
    const size_t tab = line.find('\t', 5);
    errors[label_of[line.substr(5, tab - 5)]] = line.substr(tab + 1);
  }
  return errors;
}

void expect_valid_python(const std::vector<Exported>& files) {
  const auto errors = python_syntax_errors(files);
  for (const Exported& f : files) {
    const auto it = errors.find(f.label);
    EXPECT_TRUE(it == errors.end()) << f.label << ": " << it->second << "\n" << f.text;
  }
}

::testing::AssertionResult contains(const std::string& text, const std::string& snippet) {
  if (text.find(snippet) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "missing: " << snippet << "\nin:\n" << text;
}

TEST(TvmScript, TheSyntaxCheckRejectsBrokenPython) {
  const auto errors = python_syntax_errors({{"ok", "x = 1\n"}, {"broken", "def f(:\n"}});
  EXPECT_EQ(errors.count("ok"), 0u);
  EXPECT_EQ(errors.count("broken"), 1u);
}

TEST(TvmScript, EveryCorpusProgramExportsToValidPython) {
  std::vector<Exported> files;
  for (const auto& entry : fs::directory_iterator(fs::path(DIFFTEST_SOURCE_DIR) / "corpus")) {
    if (entry.path().extension() != ".ir") continue;
    const Program p = parse_program_file(entry.path().string());
    files.push_back({entry.path().filename().string(), export_tvmscript(p, {})});
  }
  ASSERT_GE(files.size(), 10u);
  expect_valid_python(files);
}

// Seeds, plus one program per op with only that op weighted, so every exporter runs.
TEST(TvmScript, GeneratedProgramsOfEveryOpExportToValidPython) {
  std::vector<Exported> files;
  std::set<std::string> covered;
  auto add = [&](const std::string& label, const Program& p) {
    for (const Binding& b : p.bindings()) {
      if (b.is_call()) covered.insert(b.op().name);
    }
    TvmScriptOptions o;
    o.failing_config = "--passes FuseOps,LegalizeOps";
    files.push_back({label, export_tvmscript(p, o)});
  };
  for (uint64_t seed = 1; seed <= 50; ++seed) add("seed " + std::to_string(seed), generate_program(seed));
  for (const OpDef* op : OpRegistry::get().all()) {
    add("only " + op->name, generate_program(7, testing::only_op(op->name)));
  }
  for (const OpDef* op : OpRegistry::get().all()) EXPECT_TRUE(covered.count(op->name)) << op->name << " never generated";
  expect_valid_python(files);
}

TEST(TvmScript, OpTableMapsKnownOpsToTheirRelaxNames) {
  const auto& table = relax_op_table();
  const std::map<std::string, std::string> known = {
      {"matmul", "R.matmul"},         {"softmax", "R.nn.softmax"},     {"permute_dims", "R.permute_dims"},
      {"add", "R.add"},               {"sub", "R.subtract"},           {"mul", "R.multiply"},
      {"div", "R.divide"},            {"neg", "R.negative"},           {"rms_norm", "R.nn.rms_norm"},
      {"layer_norm", "R.nn.layer_norm"}, {"cast", "R.astype"},         {"silu", "R.nn.silu"},
      {"conv1d", "R.nn.conv1d"},      {"conv_transpose1d", "R.nn.conv1d_transpose"}, {"take", "R.take"},
      {"leaky_relu", "R.nn.leakyrelu"}, {"pow", "R.power"},            {"concat", "R.concat"},
  };
  for (const auto& [ours, relax] : known) {
    ASSERT_TRUE(table.find(ours)) << ours;
    EXPECT_EQ(*table.find(ours), relax) << ours;
  }
  ASSERT_TRUE(table.find("quantize"));
  EXPECT_EQ(*table.find("quantize"), "") << "quantize has no Relax counterpart";
  ASSERT_TRUE(table.find("attention"));
  EXPECT_EQ(*table.find("attention"), "R.nn.attention");
}

TEST(TvmScript, EveryRegistryOpIsARelaxOpOrAPrimFunc) {
  const auto& table = relax_op_table();
  const auto& prim = tvmscript::prim_func_ops();
  for (const OpDef* op : OpRegistry::get().all()) {
    ASSERT_TRUE(table.find(op->name)) << op->name << " is missing from relax_op_table";
    if (tvmscript::relax_layer_ops().count(op->name)) {  // a Relax form, a prim_func where it falls short
      EXPECT_FALSE(table.find(op->name)->empty()) << op->name;
      EXPECT_TRUE(prim.count(op->name)) << op->name << " has a Relax form but no prim_func to fall back on";
    } else if (table.find(op->name)->empty()) {
      EXPECT_TRUE(prim.count(op->name)) << op->name << " maps to no Relax op and has no prim_func exporter";
    } else {
      EXPECT_FALSE(prim.count(op->name)) << op->name << " is both a Relax op and a prim_func";
    }
  }
  for (const auto& name : table.ops()) EXPECT_NE(OpRegistry::get().find(name), nullptr) << name << " is not an op";
}

// The 4-bit weights are unpacked by Relax's shifts and masks, so TVM lowers the dequantization
// itself: codes (w >> 4r) & 15, level code - 7 and the group's scale in f32, one rounding to f16.
TEST(TvmScript, Q4f16DequantizeIsComposedOfRelaxOpsAndTheMatmulCarriesOutDtype) {
  const Program p = parse_program_file(std::string(DIFFTEST_SOURCE_DIR) + "/corpus/q4f16_1_gemv.ir");
  const std::string text = export_tvmscript(p, {});
  EXPECT_FALSE(contains(text, "@T.prim_func"));
  EXPECT_TRUE(contains(text, "wf_shifts = R.const([0, 4, 8, 12, 16, 20, 24, 28], \"uint32\")"));
  EXPECT_TRUE(contains(text,
                       "wf_codes = R.reshape(R.bitwise_and(R.right_shift(R.expand_dims(w, axis=2), wf_shifts), "
                       "R.const(15, \"uint32\")), (256, 512))"));
  EXPECT_TRUE(contains(text,
                       "wf_level = R.astype(R.subtract(R.astype(wf_codes, \"int32\"), R.const(7, \"int32\")), "
                       "\"float32\")"));
  EXPECT_TRUE(contains(text, "wf_scale = R.repeat(s_f32, repeats=32, axis=1)"));
  EXPECT_TRUE(contains(text, "wf = R.astype(wf_pt, \"float16\")"));
  EXPECT_TRUE(contains(text, "wf_t = R.permute_dims(wf, axes=[1, 0])"));
  EXPECT_TRUE(contains(text, "y_acc = R.matmul(x, wf_t, out_dtype=\"float32\")"));
  EXPECT_TRUE(contains(text, "y = R.astype(y_acc, \"float16\")"));
  EXPECT_TRUE(contains(text, "def main(x: R.Tensor((1, 512), \"float16\"), w: R.Tensor((256, 64), \"uint32\"), "
                      "s: R.Tensor((256, 16), \"float16\")):"));
}

TEST(TvmScript, NamesBecomeValidIdentifiersAndSymbolicDimsAreBound) {
  const Program p = parse_program(R"(
program @names(n: 1..8, m: 1..4) {
  %class: f32[n, 4] = param
  %0: f32[n, 4] = exp(%class)
  %n: f32[n * 2, 4] = concat(%0, %0, axis=0)
  %m: f32[m] = const uniform(-1, 1, seed=5)
  return %n, %m
}
)");
  TvmScriptOptions o;
  o.binding = {{"n", 3}};
  const std::string text = export_tvmscript(p, o);
  EXPECT_TRUE(contains(text, "def main(class_: R.Tensor((\"n\", 4), \"float32\"), m_: R.Tensor((\"m\",), \"float32\"))"));
  EXPECT_TRUE(contains(text, "v0 = R.exp(class_)"));
  EXPECT_TRUE(contains(text, "n_ = R.concat((v0, v0), axis=0)"));
  EXPECT_TRUE(contains(text, "(\"m_\", (1,), \"float32\", (\"uniform\", -1.0, 1.0, 5)),"));
  EXPECT_TRUE(contains(text, "(\"class_\", (3, 4), \"float32\"),"));
  expect_valid_python({{"names", text}});
}

// A dim only a compound shape uses reaches main through an R.Shape parameter, and the tensor
// is matched against its shape inside the dataflow block.
TEST(TvmScript, DimsOnlyCompoundShapesUseComeThroughAShapeParameter) {
  const Program p = parse_program(R"(
program @compound(n: 1..8) {
  %x: f32[n * 2, 4] = param
  %y: f32[n * 2, 4] = atan2(%x, %x)
  return %y
}
)");
  TvmScriptOptions o;
  o.binding = {{"n", 5}};
  const std::string text = export_tvmscript(p, o);
  EXPECT_TRUE(contains(text, "def main(x_in: R.Tensor(dtype=\"float32\", ndim=2), dim_values: R.Shape([\"n\"])):"));
  EXPECT_TRUE(contains(text, "x = R.match_cast(x_in, R.Tensor((n * 2, 4), \"float32\"))"));
  // TVM 0.27: the dim as a primitive argument between the operands and the result.
  EXPECT_TRUE(contains(text, "y = R.call_tir(cls.atan2, (x, x, R.prim_value(n)), out_ty=R.Tensor((n * 2, 4), \"float32\"))"));
  EXPECT_TRUE(contains(text, "def atan2(var_a_buf: T.handle, var_b_buf: T.handle, n: T.int64, var_out_buf: T.handle):"));
  EXPECT_TRUE(contains(text, "SHAPE_ARGUMENT = (5, )"));
  EXPECT_TRUE(contains(text, "(\"x\", (10, 4), \"float32\"),"));
  expect_valid_python({{"compound", text}});
}

// The driver's _constant against materialize_constant, through the numpy of the system Python.
TEST(TvmScript, DriverRebuildsGeneratedConstantsBitForBit) {
  if (run("/usr/bin/python3 -c 'import numpy' 2>&1; echo rc=$?").find("rc=0") == std::string::npos) {
    GTEST_SKIP() << "no numpy for /usr/bin/python3";
  }
  const Program p = parse_program(R"(
program @consts() {
  %a: f32[7, 3] = const uniform(-2, 3, seed=11)
  %b: f16[40] = const normal(0.5, 0.25, seed=12)
  %c: i32[9] = const uniform(-5, 17, seed=13)
  return %a, %b, %c
}
)");
  const std::string text = export_tvmscript(p, {});
  const size_t from = text.find("CONSTANTS = ["), to = text.find("def _random_input");
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  const std::string script = "import numpy as np\n" + text.substr(from, to - from) +
                             "for _, shape, dtype, how in CONSTANTS:\n"
                             "    print(' '.join(repr(float(v)) for v in _constant(shape, dtype, how).ravel()))\n";
  const fs::path f = fs::temp_directory_path() / ("difftest_consts_" + std::to_string(getpid()) + ".py");
  std::ofstream(f) << script;
  const std::string out = run("/usr/bin/python3 " + f.string() + " 2>&1");
  fs::remove(f);
  std::istringstream lines(out);
  for (const Binding& b : p.bindings()) {
    const Tensor want = materialize_constant(b.constant(), b.result().type().dtype, *b.result().type().static_shape());
    std::string line;
    ASSERT_TRUE(std::getline(lines, line)) << out;
    std::istringstream values(line);
    for (int64_t i = 0; i < want.numel(); ++i) {
      double got = 0;
      ASSERT_TRUE(values >> got) << b.result().name() << " element " << i << "\n" << out;
      EXPECT_EQ(got, want.get(i)) << b.result().name() << " element " << i;
    }
  }
}

// The Gemma-3 local layer exercises TVM's own attention, RoPE and dequantization: R.nn.attention
// with GQA as repeated KV heads and the 512-key window as an additive bias, RoPE of Relax ops.
TEST(TvmScript, GemmaLocalLayerUsesRelaxAttentionWithItsWindowAsABias) {
  const Program p = parse_program_file(std::string(DIFFTEST_SOURCE_DIR) + "/corpus/gemma3_local_attention.ir");
  const std::string text = export_tvmscript(p, {});
  EXPECT_FALSE(contains(text, "@T.prim_func"));
  EXPECT_TRUE(contains(text, "o_k = R.repeat(kr_f32, repeats=4, axis=2)"));
  EXPECT_TRUE(contains(text, "o_causal = R.less_equal(o_keys, o_rows)"));
  EXPECT_TRUE(contains(text,
                       "o_window = R.logical_and(o_causal, R.greater(o_keys, R.subtract(o_rows, "
                       "R.const(512, \"int64\"))))"));
  EXPECT_TRUE(contains(text,
                       "o_bias2d = R.where(o_window, R.const(0.0, \"float32\"), "
                       "R.const(-float('inf'), \"float32\"))"));
  EXPECT_TRUE(contains(text, "o_bias = R.reshape(o_bias2d, (1, 1, n, n))"));
  EXPECT_TRUE(contains(text, "o_acc = R.nn.attention(qr_f32, o_k, o_v, o_bias, scale=0.0625)"));
  EXPECT_TRUE(contains(text, "o = R.astype(o_acc, \"float16\")"));
  EXPECT_TRUE(contains(text, "qr_x2 = R.strided_slice(qn_f32, axes=[3], begin=[128], end=[256])"));
  EXPECT_TRUE(contains(text, "qr_o1 = R.subtract(R.multiply(qr_x1, qr_cos), R.multiply(qr_x2, qr_sin))"));
  expect_valid_python({{"gemma3_local_attention", text}});
}

// What R.nn.attention cannot say stays a prim_func: a bool mask operand, softcap, and causality
// whose rows may admit no key (softmax over nothing is NaN; ours is 0). Sinks keep key 0.
TEST(TvmScript, AttentionRelaxCannotSayStaysAPrimFunc) {
  const Program p = parse_program(R"(
program @fallbacks(n: 1..8) {
  %q: f32[1, n, 2, 8] = param
  %k: f32[1, 16, 2, 8] = param
  %v: f32[1, 16, 2, 8] = param
  %m: bool[n, 16] = param
  %capped: f32[1, n, 2, 8] = attention(%q, %k, %v, softcap=30)
  %masked: f32[1, n, 2, 8] = attention(%q, %k, %v, %m)
  %shifted: f32[1, n, 2, 8] = attention(%q, %k, %v, causal=true, window=4, offset=2)
  %sunk: f32[1, n, 2, 8] = attention(%q, %k, %v, causal=true, window=4, sink=1, offset=2)
  return %capped, %masked, %shifted, %sunk
}
)");
  const std::string text = export_tvmscript(p, {});
  EXPECT_TRUE(contains(text, "capped = R.call_tir(cls.attention, (q, k, v, R.prim_value(n))"));
  EXPECT_TRUE(contains(text, "masked = R.call_tir(cls.attention_1, (q, k, v, m, R.prim_value(n))"));
  EXPECT_TRUE(contains(text, "shifted = R.call_tir(cls.attention_2, (q, k, v, R.prim_value(n))"));
  EXPECT_TRUE(contains(text, "sunk_pos = R.arange(2, n + 2, 1, dtype=\"int64\")"));
  EXPECT_TRUE(contains(text,
                       "R.logical_or(R.greater(sunk_keys, R.subtract(sunk_rows, R.const(4, \"int64\"))), "
                       "R.less(sunk_keys, R.const(1, \"int64\")))"));
  EXPECT_TRUE(contains(text, "sunk = R.nn.attention(q, k, v, sunk_bias, scale=0.35355339059327373)"));
  expect_valid_python({{"fallbacks", text}});
}

// Interleaved (GPT-J) pairs are split from a trailing axis of 2 and put back the same way.
TEST(TvmScript, InterleavedRopePairsNeighbours) {
  const Program p = parse_program(R"(
program @gptj(n: 1..8) {
  %x: f16[2, n, 3, 8] = param
  %y: f16[2, n, 3, 8] = rope(%x, theta=500, offset=n, style="interleaved")
  return %y
}
)");
  const std::string text = export_tvmscript(p, {});
  EXPECT_FALSE(contains(text, "@T.prim_func"));
  EXPECT_TRUE(contains(text, "y_pos = R.astype(R.arange(n, 2 * n, 1, dtype=\"int64\"), \"float32\")"));
  EXPECT_TRUE(contains(text, "y_pairs = R.reshape(x_f32, (2, n, 3, 4, 2))"));
  EXPECT_TRUE(contains(text, "y_x2 = R.squeeze(R.strided_slice(y_pairs, axes=[4], begin=[1], end=[2]), axis=[4])"));
  EXPECT_TRUE(contains(text,
                       "y_ct = R.reshape(R.concat((R.expand_dims(y_o1, axis=4), R.expand_dims(y_o2, axis=4)), "
                       "axis=4), (2, n, 3, 8))"));
  EXPECT_TRUE(contains(text, "y = R.astype(y_ct, \"float16\")"));
  expect_valid_python({{"gptj", text}});
}

}  // namespace
}  // namespace difftest::exporters
