// The report's data (oracle/report/report_data.h) of a campaign directory written here by hand:
// every program lands in exactly one bin of each plot, findings lead with the new ones, and
// every link names a file that is there.
#include "oracle/report/report_data.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "oracle/campaign/campaign.h"
#include "oracle/report/report_page.h"

namespace difftest::oracle {
namespace {

namespace fs = std::filesystem;

const char* const kKnown = "mismatch|O3|compare|output of mul";
const char* const kFresh = "mismatch|O1|compare|output of softmax";

class ReportDataTest : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / fmt::format("report_data_test_{}", ::getpid());
  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "campaign.json") << R"({"identity":{"shard":"0/1","faults":[],"compiler":"builtin"}})";
  }
  void TearDown() override { fs::remove_all(dir); }
  // 100 programs over 99 seconds: seed s at 1000 + s, excess 10^-(s % 5), seeds 10, 20 and 30
  // fail with the known signature, 70 with the new one.
  void write_campaign(bool with_times) {
    std::ofstream j(dir / "journal.jsonl");
    for (int s = 0; s < 100; ++s) {
      const bool known = s == 10 || s == 20 || s == 30, fresh = s == 70;
      const std::string at = with_times ? fmt::format(",\"at\":{}", 1000 + s) : "";
      const std::string sig = known ? fmt::format(",\"signature\":\"{}\"", kKnown)
                                    : fresh ? fmt::format(",\"signature\":\"{}\"", kFresh) : "";
      j << fmt::format(R"({{"seed":{},"verdict":"{}","worst_excess":{}{}{},"times":{{"compile_ms":2}}}})", s,
                       known || fresh ? "mismatch" : "ok", std::pow(10.0, -(s % 5)), at, sig)
        << "\n";
    }
    const fs::path repro = dir / "failures" / failure_dir_name("mismatch", kFresh);
    fs::create_directories(repro / "reduced");
    std::ofstream(repro / "program.ir") << "program\n";
    std::ofstream(repro / "in_x.npy") << "npy";
    std::ofstream(repro / "reduced" / "report.md") << "report\n";
    std::ofstream(dir / "reductions.json")
        << fmt::format(R"([{{"signature":"{}","reduced":true,"culprit":"FuseOps","dir":"x"}}])", kFresh);
  }
  nlohmann::json data() {
    ReportOptions o;
    o.dir = dir.string();
    o.page_dir = dir.string();
    o.time_bins = 10;
    o.program_bins = 7;
    o.known_as = [](const Signature& s) -> std::optional<KnownMatch> {
      if (s.str() == kKnown) return KnownMatch{"mul_fault"};
      return std::nullopt;
    };
    return report_data(o);
  }
  static int64_t total(const nlohmann::json& bins) {
    int64_t n = 0;
    for (const auto& b : bins) {
      for (const auto& [kind, c] : b["counts"].items()) n += c.get<int64_t>();
    }
    return n;
  }
};

TEST_F(ReportDataTest, EveryProgramIsInOneBinOfEachPlot) {
  write_campaign(true);
  const nlohmann::json d = data();
  EXPECT_EQ(d["campaign"]["programs"], 100);
  EXPECT_DOUBLE_EQ(d["campaign"]["seconds"].get<double>(), 99);
  ASSERT_EQ(d["verdicts_over_time"]["bins"].size(), 10u);
  EXPECT_EQ(total(d["verdicts_over_time"]["bins"]), 100);
  EXPECT_EQ(d["verdicts_over_time"]["bins"][0]["counts"]["ok"], 10);  // seeds 0..9 at 1000..1009.9
  EXPECT_EQ(d["verdicts_per_program"]["programs_per_bin"], 15);     // 100 programs in 7 bins
  EXPECT_EQ(d["verdicts_per_program"]["bins"].size(), 7u);
  EXPECT_EQ(total(d["verdicts_per_program"]["bins"]), 100);
  int64_t histogram = 0;
  for (const auto& b : d["excess"]["histogram"]) histogram += b["programs"].get<int64_t>();
  EXPECT_EQ(histogram, 100);  // no program compared exactly
  EXPECT_EQ(d["excess"]["max"], 1.0);
  EXPECT_EQ(d["excess"]["above_allowance"], 0);
  EXPECT_DOUBLE_EQ(d["stage_ms_per_program"]["compile"].get<double>(), 2);
}

TEST_F(ReportDataTest, FindingsLeadWithTheNewAndTheirCulpritsOpsAndLinks) {
  write_campaign(true);
  const nlohmann::json d = data();
  ASSERT_EQ(d["findings"].size(), 2u);
  EXPECT_EQ(d["findings"][0]["signature"], kFresh);  // new first, though its first seed is later
  EXPECT_EQ(d["findings"][0]["culprit"], "FuseOps");
  EXPECT_EQ(d["findings"][0]["op"], "softmax");
  EXPECT_EQ(d["findings"][1]["known_as"], "mul_fault");
  EXPECT_EQ(d["findings"][1]["programs"], 3);
  EXPECT_EQ(d["findings"][1]["culprit"], "(not reduced)");
  std::vector<std::string> names;
  for (const auto& l : d["findings"][0]["links"]) {
    names.push_back(l["name"]);
    EXPECT_TRUE(fs::exists(dir / l["href"].get<std::string>())) << l.dump();
  }
  EXPECT_EQ(names, (std::vector<std::string>{"program.ir", "reduced/report.md"}));  // no .npy
  EXPECT_TRUE(d["findings"][1]["links"].empty());  // not saved
  // The discovery curve: the known one at 10 s (program 11), the new one at 70 s (program 71).
  const auto& curve = d["discovery"];
  ASSERT_EQ(curve.size(), 4u);
  EXPECT_EQ(curve[1]["seconds"], 10.0);
  EXPECT_EQ(curve[1]["programs"], 11);
  EXPECT_EQ(curve[1]["new_signatures"], 0);
  EXPECT_EQ(curve[2]["signatures"], 2);
  EXPECT_EQ(curve[2]["new_signatures"], 1);
  EXPECT_EQ(d["by_op"][0]["op"], "mul");
  EXPECT_EQ(d["by_op"][0]["programs"], 3);
}

TEST_F(ReportDataTest, AJournalWithoutTimesHasNoPlotsOverTimeAndThePageEmbedsTheData) {
  write_campaign(false);
  const nlohmann::json d = data();
  EXPECT_TRUE(d["verdicts_over_time"].is_null());
  EXPECT_EQ(total(d["verdicts_per_program"]["bins"]), 100);
  nlohmann::json tricky = d;
  tricky["notes"].push_back("</script><b>not markup</b>");
  const std::string page = report_page(tricky);
  EXPECT_EQ(page.find("{{REPORT_DATA}}"), std::string::npos);
  EXPECT_EQ(page.find("</script><b>"), std::string::npos);  // it cannot end the data's element
  EXPECT_NE(page.find("<\\/script><b>not markup<\\/b>"), std::string::npos);
}

}  // namespace
}  // namespace difftest::oracle
