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

namespace difftest::exporters {
namespace {

namespace fs = std::filesystem;

struct Exported {
  std::string label;
  std::string text;
};

std::string run(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  pclose(pipe);
  return out;
}

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
    GeneratorOptions g;
    for (const auto& [name, w] : default_op_weights()) g.weights[name] = 0;
    g.weights[op->name] = 1;
    g.template_percent = 0;
    g.min_ops = 2;
    g.max_ops = 4;
    add("only " + op->name, generate_program(7, g));
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
  for (const char* op : {"dequantize", "quantize", "causal_mask", "sliding_window_mask", "attention", "rope"}) {
    ASSERT_TRUE(table.find(op)) << op;
    EXPECT_EQ(*table.find(op), "") << op << " has no Relax counterpart";
  }
}

TEST(TvmScript, EveryRegistryOpIsARelaxOpOrAPrimFunc) {
  const auto& table = relax_op_table();
  const auto& prim = tvmscript::prim_func_ops();
  for (const OpDef* op : OpRegistry::get().all()) {
    ASSERT_TRUE(table.find(op->name)) << op->name << " is missing from relax_op_table";
    if (table.find(op->name)->empty()) {
      EXPECT_TRUE(prim.count(op->name)) << op->name << " maps to no Relax op and has no prim_func exporter";
    } else {
      EXPECT_FALSE(prim.count(op->name)) << op->name << " is both a Relax op and a prim_func";
    }
  }
  for (const auto& name : table.ops()) EXPECT_NE(OpRegistry::get().find(name), nullptr) << name << " is not an op";
}

TEST(TvmScript, Q4f16DequantizeIsAPrimFuncAndTheMatmulCarriesOutDtype) {
  const Program p = parse_program_file(std::string(DIFFTEST_SOURCE_DIR) + "/corpus/q4f16_1_gemv.ir");
  const std::string text = export_tvmscript(p, {});
  EXPECT_TRUE(contains(text, "    @T.prim_func(private=True)\n    def dequantize_q4f16_1(packed_buf: T.Buffer((T.int64(256), "
                      "T.int64(64)), \"uint32\"), scales_buf: T.Buffer((T.int64(256), T.int64(16)), \"float16\"), "
                      "out_buf: T.Buffer((T.int64(256), T.int64(512)), \"float16\")):"));
  EXPECT_TRUE(contains(text, "for v_0, v_k in T.grid(T.int64(256), T.int64(512)):"));
  EXPECT_TRUE(contains(text, "(packed_buf[v_0, v_k // 8] >> T.Cast(\"uint32\", v_k % 8 * 4)) & T.uint32(15)) - 7)"));
  EXPECT_TRUE(contains(text, "wf = R.call_tir(cls.dequantize_q4f16_1, (w, s), out_sinfo=R.Tensor((256, 512), \"float16\"))"));
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
  EXPECT_TRUE(contains(text, "y = R.call_tir(cls.atan2, (x, x), out_sinfo=R.Tensor((n * 2, 4), \"float32\"), "
                             "tir_vars=R.shape([n]))"));
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

}  // namespace
}  // namespace difftest::exporters
