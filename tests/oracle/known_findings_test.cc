// Known findings (oracle/gate/known_findings.h): a corpus entry's signatures are known only to a
// campaign that can show its root cause; a baseline's always.
#include "oracle/gate/known_findings.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "backends/builtin/builtin_compiler.h"
#include "compiler/support/diagnostics.h"

namespace difftest::oracle {
namespace {

namespace fs = std::filesystem;

const char* const kEntryProgram = "program @gen() {\n  %a: f32[3] = const [1, 1, 1]\n  %b: f32[3] = mul(%a, %a)\n  return %b\n}\n";

class KnownFindingsTest : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / fmt::format("known_findings_test_{}", ::getpid());
  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir / "corpus" / "external");
    std::ofstream(dir / "corpus" / "mul_fault.ir")
        << "# fault: mul-drops-tail\n# expect: mismatch|O0|compare|output of mul\n" << kEntryProgram;
    std::ofstream(dir / "corpus" / "clean.ir") << "# expect: ok\n" << kEntryProgram;
    std::ofstream(dir / "corpus" / "external" / "ort_mul.ir")
        << "# compiler: ort\n# expect: mismatch|all|compare|output of mul\n# expect: mismatch|basic|compare|output of mul\n"
        << kEntryProgram;
    std::ofstream(dir / "corpus" / "external" / "ort_mul_again.ir")
        << "# compiler: ort\n# expect: mismatch|all|compare|output of mul\n" << kEntryProgram;
    std::ofstream(dir / "baseline.json")
        << R"({"difftest_baseline": 1, "signatures": ["timeout|O3|run|cpu budget exceeded"]})";
  }
  void TearDown() override { fs::remove_all(dir); }
  KnownFindings read(const std::vector<std::string>& paths, const std::string& compiler,
                     const std::vector<std::string>& faults) {
    return KnownFindings::read(paths, backends::builtin_compiler(), compiler, faults);
  }
  static Signature sig(const std::string& text) { return *Signature::parse(text); }
};

TEST_F(KnownFindingsTest, AFaultsEntryIsKnownOnlyWithItsFaultsOn) {
  const std::vector<std::string> corpus = {(dir / "corpus").string()};
  EXPECT_EQ(read(corpus, "builtin", {"mul-drops-tail"}).root_cause(sig("mismatch|O0|compare|output of mul")), "mul_fault");
  EXPECT_FALSE(read(corpus, "builtin", {}).root_cause(sig("mismatch|O0|compare|output of mul")));
  EXPECT_FALSE(read(corpus, "builtin", {"exp-via-exp2-rounded-product"}).root_cause(sig("mismatch|O0|compare|output of mul")));
}

TEST_F(KnownFindingsTest, AnExternalEntryIsKnownOnlyToItsCompilerAndEveryEntryIsNamed) {
  const std::vector<std::string> corpus = {(dir / "corpus").string()};
  const KnownFindings ort = read(corpus, "ort", {});
  EXPECT_EQ(ort.root_cause(sig("mismatch|all|compare|output of mul")), "ort_mul or ort_mul_again");
  EXPECT_EQ(ort.root_cause(sig("mismatch|basic|compare|output of mul")), "ort_mul");
  EXPECT_FALSE(ort.root_cause(sig("mismatch|layout|compare|output of mul")));
  // The same failure under a pipeline no entry names: the root cause, marked as such.
  const auto elsewhere = ort.match(sig("mismatch|layout-specialized|compare|output of mul"));
  ASSERT_TRUE(elsewhere);
  EXPECT_EQ(elsewhere->root_cause, "ort_mul or ort_mul_again");
  EXPECT_TRUE(elsewhere->other_pipeline);
  EXPECT_FALSE(ort.match(sig("mismatch|all|compare|output of add")));  // another op: new
  EXPECT_FALSE(ort.match(sig("timeout|all|compare|output of mul")));   // another kind: new
  EXPECT_FALSE(ort.match(sig("mismatch|basic|compare|output of mul"))->other_pipeline);
  EXPECT_FALSE(read(corpus, "tvm", {}).root_cause(sig("mismatch|all|compare|output of mul")));
  EXPECT_EQ(ort.signatures(), 2u);
}

TEST_F(KnownFindingsTest, ABaselineIsKnownToAnyCampaignAndABadPathIsAnError) {
  const KnownFindings k = read({(dir / "baseline.json").string()}, "tvm", {});
  EXPECT_EQ(k.root_cause(sig("timeout|O3|run|cpu budget exceeded")), "baseline baseline.json");
  EXPECT_THROW(read({(dir / "nowhere").string()}, "builtin", {}), UserError);
  std::ofstream(dir / "bad.json") << R"({"difftest_baseline": 1, "signatures": ["nonsense"]})";
  EXPECT_THROW(read({(dir / "bad.json").string()}, "builtin", {}), UserError);
}

}  // namespace
}  // namespace difftest::oracle
