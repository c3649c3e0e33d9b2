// ONNX Runtime as a compiler under test (backends/onnxruntime). With the pinned package the
// set-up installs: corpus programs exported, run at every level and judged by the oracle, each
// level also held against `disabled`. With a stand-in worker (fake_ort_worker.js) that
// misbehaves by level: a crash, a hang, a second run that differs, a wrong answer and a
// missing kernel each become their verdict, never a harness failure.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "backends/backends.h"
#include "backends/onnxruntime/ort_compiler.h"
#include "compiler/ir/parser.h"
#include "oracle/check/check.h"

namespace difftest::backends {
namespace {

namespace fs = std::filesystem;
using oracle::VerdictKind;

oracle::CheckOptions ladder() {
  const Backend& ort = find_backend("ort", "test");
  oracle::CheckOptions o;
  o.compiler = ort.compiler;
  o.pipelines = ort.default_opt;
  o.cross_checks = ort.cross_checks;
  o.random_orders = 0;
  o.random_bindings = 0;
  return o;
}

Program corpus(const std::string& name) {
  return parse_program_file(fmt::format("{}/corpus/{}", DIFFTEST_SOURCE_DIR, name));
}

TEST(OrtBackend, ThePinnedPackageIsInstalledInTheBuildTree) {
  const OrtInstall in = ort_install();
  EXPECT_EQ(in.missing, "");
  EXPECT_EQ(in.version, "1.30.0");
  EXPECT_NE(ort_compiler().identity().find("ONNX Runtime 1.30.0"), std::string::npos);
}

// Every level and every binding compared with the reference, and every level with `disabled`.
void expect_every_level_ok(const std::string& file, std::vector<sym::Env> bindings = {}) {
  oracle::CheckOptions o = ladder();
  o.bindings = std::move(bindings);
  const oracle::Verdict v = oracle::check_program(corpus(file), o);
  std::set<std::string> compared;
  for (const auto& var : v.variants) {
    EXPECT_EQ(var.kind, VerdictKind::Ok) << file << " " << var.variant.name() << ": " << var.message;
    compared.insert(var.variant.name());
  }
  for (const auto& level : ort_levels()) EXPECT_TRUE(compared.count(level)) << file << " " << level;
  for (const auto& level : {"basic", "extended", "layout", "all"}) {
    EXPECT_TRUE(compared.count(fmt::format("disabled~{}", level))) << file << " " << level;
  }
  EXPECT_TRUE(compared.count("all-specialized")) << file;
}

TEST(OrtBackend, NormsAndSoftmaxAgreeWithTheReferenceAtEveryLevel) { expect_every_level_ok("norms_and_softmax.ir"); }

// q4f16_1 weights through com.microsoft.MatMulNBits, RoPE, sliding-window attention, f16.
TEST(OrtBackend, TheGemma3LocalLayerAgreesWithTheReferenceAtEveryLevel) {
  expect_every_level_ok("gemma3_local_attention.ir", {{{"n", 1}}, {{"n", 37}}});
}

TEST(OrtBackend, AnOpWithoutAnOnnxTypeIsUnsupportedNotAFinding) {
  const Program p = parse_program(R"(program @bf16_sin() {
  %x: bf16[4, 4] = param
  %y: bf16[4, 4] = sin(%x)
  return %y
}
)",
                                  "bf16_sin.ir");
  const oracle::Verdict v = oracle::check_program(p, ladder());
  EXPECT_EQ(v.overall(), VerdictKind::Unsupported);
  ASSERT_FALSE(v.variants.empty());
  EXPECT_NE(v.variants.front().message.find("tensor(bfloat16)"), std::string::npos) << v.variants.front().message;
}

class StandInWorker : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fmt::format("{}/difftest-fake-ort-{}", fs::temp_directory_path().string(), ::getpid());
    const std::string package = fmt::format("{}/node_modules/onnxruntime-node", dir_);
    fs::create_directories(package);
    std::ofstream(fmt::format("{}/package.json", package)) << R"({"version": "0.0.0-fake"})";
    fs::copy_file(fmt::format("{}/tests/backends/fake_ort_worker.js", DIFFTEST_SOURCE_DIR),
                  fmt::format("{}/ort_worker.js", dir_), fs::copy_options::overwrite_existing);
    ::setenv("DIFFTEST_ORT_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("DIFFTEST_ORT_DIR");
    fs::remove_all(dir_);
  }
  std::string dir_;
};

TEST_F(StandInWorker, EachMisbehaviourIsItsVerdict) {
  const Program p = parse_program(R"(program @tanh() {
  %x: f32[64] = param
  %y: f32[64] = tanh(%x)
  return %y
}
)",
                                  "tanh.ir");
  oracle::CheckOptions o = ladder();
  o.limits.cpu_seconds = 0.5;
  o.confirm_timeouts = false;
  o.specialize = false;
  const oracle::Verdict v = oracle::check_program(p, o);
  std::map<std::string, VerdictKind> kinds;
  std::map<std::string, std::string> stages;
  for (const auto& var : v.variants) {
    kinds[var.variant.name()] = var.kind;
    stages[var.variant.name()] = var.stage.name();
  }
  EXPECT_EQ(kinds["disabled"], VerdictKind::Unsupported);
  EXPECT_EQ(kinds["basic"], VerdictKind::CompileCrash);
  EXPECT_EQ(kinds["extended"], VerdictKind::Timeout);
  EXPECT_EQ(stages["extended"], "run");
  EXPECT_EQ(kinds["layout"], VerdictKind::Nondeterministic);
  EXPECT_EQ(kinds["all"], VerdictKind::Mismatch);
  EXPECT_EQ(v.overall(), VerdictKind::CompileCrash);  // the first finding
}

}  // namespace
}  // namespace difftest::backends
