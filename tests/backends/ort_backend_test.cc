// ONNX Runtime as a compiler under test (backends/onnxruntime). With the pinned package the
// set-up installs: corpus programs exported, run at every level and judged by the oracle, each
// level also held against `disabled`. With a stand-in worker (fake_ort_worker.js) that
// misbehaves by level: a crash, a hang, a second run that differs, a wrong answer and a
// missing kernel each become their verdict, never a harness failure.
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "backends/backends.h"
#include "backends/onnxruntime/ort_compiler.h"
#include "backends/onnxruntime/ort_session.h"
#include "backends/onnxruntime/ort_culprit.h"
#include "compiler/ir/parser.h"
#include "oracle/check/check.h"
#include "oracle/reduce/bisect.h"
#include "reference/inputs.h"

namespace difftest::backends {
namespace {

namespace fs = std::filesystem;
using oracle::VerdictKind;

oracle::CheckOptions ladder() {
  const Backend& ort = find_backend("ort", "test");
  oracle::CheckOptions o;
  o.compiler = ort.compiler;
  o.levels = ort.default_opt;
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

// difftest's float -> int cast saturates where ONNX's Cast leaves the value undefined (ORT wraps
// -2.0 to 254 as u8): the export clips first, so every level gives 0, 255, 0 and 3 here.
TEST(OrtBackend, AFloatToIntCastSaturatesAsTheIrDefinesIt) {
  const Program p = parse_program(R"(program @saturating_cast() {
  %x: f32[4] = const [-2, 300.5, -1e+10, 3.7]
  %y: u8[4] = cast(%x, dtype=u8)
  %z: i32[4] = cast(%x, dtype=i32)
  return %y, %z
}
)",
                                  "saturating_cast.ir");
  const oracle::Verdict v = oracle::check_program(p, ladder());
  EXPECT_EQ(v.overall(), VerdictKind::Ok);
  for (const auto& var : v.variants) EXPECT_EQ(var.kind, VerdictKind::Ok) << var.variant.name() << ": " << var.message;
}

// ORT's own log of a session at level `all`: the transformers it ran, those that changed the
// graph, and the optimized model it saved.
TEST(OrtBackend, ALoggedSessionNamesItsTransformersAndSavesTheOptimizedGraph) {
  const Program p = corpus("norms_and_softmax.ir");
  oracle::Case c;
  c.env = {{"s", 5}};
  c.inputs = reference::generate_inputs(p, c.env, 0);
  const OrtSessionLog log = ort_session_log(p, ort_compiler().named("all", "test"), c, oracle::IsolationLimits{});
  ASSERT_TRUE(log.ok) << log.error;
  for (const char* t : {"ConstantFolding", "CommonSubexpressionElimination", "GeluFusionL1", "LayerNormFusionL1"}) {
    EXPECT_NE(std::find(log.applied.begin(), log.applied.end(), t), log.applied.end()) << t;
  }
  EXPECT_FALSE(log.modified.empty());
  EXPECT_NE(op_histogram(log.optimized_model).find(" nodes: "), std::string::npos);
}

// The coverage map's `transformer:NAME` items: every check logs ORT's transformers, and a
// verdict names those that changed the graph at some level — each one ORT's own log of the
// `all` session ran, and the RMS-norm fusion (SimplifiedLayerNormFusion) among them.
TEST(OrtBackend, ACheckNamesTheTransformersThatChangedTheGraph) {
  const Program p = corpus("norms_and_softmax.ir");
  const oracle::Verdict v = oracle::check_program(p, ladder());
  std::vector<std::string> fired;
  for (const auto& item : v.exercised) {
    if (item.rfind("transformer:", 0) == 0) fired.push_back(item.substr(12));
  }
  ASSERT_FALSE(fired.empty());
  oracle::Case c;
  c.env = {{"s", 5}};
  c.inputs = reference::generate_inputs(p, c.env, 0);
  const OrtSessionLog log = ort_session_log(p, ort_compiler().named("all", "test"), c, oracle::IsolationLimits{});
  ASSERT_TRUE(log.ok) << log.error;
  for (const auto& t : fired) EXPECT_NE(std::find(log.applied.begin(), log.applied.end(), t), log.applied.end()) << t;
  EXPECT_NE(std::find(fired.begin(), fired.end(), "SimplifiedLayerNormFusion"), fired.end()) << fmt::format("{}", fmt::join(fired, ", "));
}

// Wrong results and refused sessions of ONNX Runtime 1.30.0's optimizer that difftest found,
// reduced and attributed (corpus/external/ort): `disabled` passes, every level below the first
// failing one passes, every level from it fails the same way, and the culprit search names the
// one transformer. A newer pinned ORT that fixes one fails this test, which is when its
// expectations are updated.
struct OrtFinding {
  const char* file;
  const char* culprit;
  const char* first_level;
  VerdictKind kind;
};
// Test names and ctest's list show the entry, not the struct's bytes.
void PrintTo(const OrtFinding& f, std::ostream* os) { *os << f.file; }
class OrtFindings : public ::testing::TestWithParam<OrtFinding> {};

TEST_P(OrtFindings, FailsFromItsLevelUpAndIsAttributedToItsTransformer) {
  const OrtFinding& finding = GetParam();
  const Program p = parse_program_file(fmt::format("{}/corpus/external/ort/{}", DIFFTEST_SOURCE_DIR, finding.file));
  oracle::CheckOptions o = ladder();
  o.specialize = false;
  const oracle::Verdict v = oracle::check_program(p, o);
  std::map<std::string, VerdictKind> kinds;
  for (const auto& var : v.variants) kinds[var.variant.name()] = var.kind;
  bool failing = false;
  for (const auto& level : ort_levels()) {
    failing = failing || level == finding.first_level;
    EXPECT_EQ(kinds[level], failing ? finding.kind : VerdictKind::Ok) << level;
  }
  const oracle::VariantVerdict& failure = *v.first_failure();
  ASSERT_EQ(failure.variant.name(), finding.first_level);
  const oracle::Culprit c = oracle::find_culprit(p, {failure.variant, failure.binding, failure, 0}, o);
  EXPECT_EQ(c.minimal_passes, std::vector<std::string>{finding.culprit}) << c.summary;
}

INSTANTIATE_TEST_SUITE_P(Ort1_30, OrtFindings,
                         ::testing::Values(OrtFinding{"matmul_scale_fusion_f64_alpha.ir", "MatMulScaleFusion",
                                                      "extended", VerdictKind::Mismatch},
                                           OrtFinding{"simplified_layer_norm_fusion_f64_eps.ir",
                                                      "SimplifiedLayerNormFusion", "extended", VerdictKind::Mismatch},
                                           OrtFinding{"layer_norm_fusion_eps_on_the_left.ir", "LayerNormFusionL1",
                                                      "basic", VerdictKind::Mismatch},
                                           OrtFinding{"layer_norm_fusion_drops_the_upcast.ir", "LayerNormFusionL1",
                                                      "basic", VerdictKind::CompileReject}));

// A rewrite rule that throws cannot be disabled alone (it runs inside a rule-based transformer);
// the exception names it, and the culprit search reports that name.
TEST(OrtCulprit, ARuleThatThrowsIsNamedByItsException) {
  const Program p =
      parse_program_file(fmt::format("{}/corpus/external/ort/relu_clip_fusion_f64_exception.ir", DIFFTEST_SOURCE_DIR));
  oracle::CheckOptions o = ladder();
  o.specialize = false;
  const oracle::Verdict v = oracle::check_program(p, o);
  const oracle::VariantVerdict& failure = *v.first_failure();
  ASSERT_EQ(failure.kind, VerdictKind::CompileReject);
  ASSERT_EQ(failure.variant.name(), "basic");
  const oracle::Culprit c = oracle::find_culprit(p, {failure.variant, failure.binding, failure, 0}, o);
  EXPECT_EQ(c.pass, "FuseReluClip") << c.summary;
}

class StandInWorker : public ::testing::Test {
 protected:
  void SetUp() override { use("fake_ort_worker.js"); }
  void use(const std::string& script) {
    // A directory per script: the compiler keeps one worker per worker path.
    dir_ = fmt::format("{}/difftest-{}-{}", fs::temp_directory_path().string(), script, ::getpid());
    dirs_.push_back(dir_);
    const std::string package = fmt::format("{}/node_modules/onnxruntime-node", dir_);
    fs::create_directories(package);
    std::ofstream(fmt::format("{}/package.json", package)) << R"({"version": "0.0.0-fake"})";
    fs::copy_file(fmt::format("{}/tests/backends/{}", DIFFTEST_SOURCE_DIR, script),
                  fmt::format("{}/ort_worker.js", dir_), fs::copy_options::overwrite_existing);
    ::setenv("DIFFTEST_ORT_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("DIFFTEST_ORT_DIR");
    for (const auto& d : dirs_) fs::remove_all(d);
  }
  std::string dir_;
  std::vector<std::string> dirs_;
};

const char* kTanh = R"(program @tanh() {
  %x: f32[64] = param
  %y: f32[64] = tanh(%x)
  return %y
}
)";

TEST_F(StandInWorker, EachMisbehaviourIsItsVerdict) {
  const Program p = parse_program(kTanh, "tanh.ir");
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

// Two fusions that mask each other: disabling the first lets the second fire, so the culprit is
// the pair, found in two rounds of ORT's log, and the harmless transformers are dropped.
TEST_F(StandInWorker, TheCulpritIsTheSmallestSetOfMaskingTransformers) {
  use("fake_ort_masking.js");
  const Program p = parse_program(kTanh, "tanh.ir");
  oracle::CheckOptions o = ladder();
  o.levels = {"all"};
  o.cross_checks.clear();
  o.specialize = false;
  const oracle::Verdict v = oracle::check_program(p, o);
  ASSERT_EQ(v.overall(), VerdictKind::Mismatch);
  const oracle::VariantVerdict& failure = *v.first_failure();
  const oracle::Culprit c = oracle::find_culprit(p, {failure.variant, failure.binding, failure, 0}, o);
  ASSERT_TRUE(c.reproduced);
  EXPECT_EQ(c.minimal_passes, (std::vector<std::string>{"GeluFusionL1", "GeluFusionL2"})) << c.summary;
  EXPECT_NE(c.summary.find("round 2: GeluFusionL2 modified the graph"), std::string::npos) << c.summary;
}

TEST(OrtTransformerLog, NamesEveryTransformerAndThoseThatModifiedTheGraph) {
  OrtSessionLog log;
  parse_transformer_log(
      "2026-11-26 23:30:24.75 [I:onnxruntime:, graph_transformer.cc:15 Apply] GraphTransformer ConstantSharing "
      "modified: 1 with status: OK\n"
      "2026-11-26 23:30:24.75 [V:onnxruntime:, graph_transformer_mgr.cc:55 ApplyTransformers] Applying graph "
      "transformer MatMulAddFusion on step 1.\n"
      "2026-11-26 23:30:24.75 [I:onnxruntime:, graph_transformer.cc:15 Apply] GraphTransformer MatMulAddFusion "
      "modified: 0 with status: OK\n"
      "2026-11-26 23:30:24.76 [I:onnxruntime:, graph_transformer.cc:15 Apply] GraphTransformer ConstantSharing "
      "modified: 0 with status: OK\n",
      log);
  EXPECT_EQ(log.applied, (std::vector<std::string>{"ConstantSharing", "MatMulAddFusion"}));
  EXPECT_EQ(log.modified, (std::vector<std::string>{"ConstantSharing"}));
}

}  // namespace
}  // namespace difftest::backends
