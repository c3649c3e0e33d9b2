// A campaign's summary of the statistical tier's headroom: each program's worst excess, as its
// journal record gives it, over the programs of the campaign (resumed ones included). The
// expected figures are computed here from the journal records.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "compiler/support/diagnostics.h"
#include "oracle/campaign/campaign.h"
#include "tests/support/builtin.h"

namespace difftest::oracle {
namespace {

namespace fs = std::filesystem;

CampaignOptions small_campaign(const fs::path& dir, uint64_t last_seed) {
  CampaignOptions c;
  c.first_seed = 0;
  c.last_seed = last_seed;
  c.jobs = 2;
  c.out_dir = dir.string();
  c.check = testing::builtin_checks();
  c.check.levels = {"O0"};
  c.check.random_orders = 0;
  c.check.cross_checks.clear();
  c.check.specialize = false;
  c.check.random_bindings = 0;
  c.check.limits.cpu_seconds = 30;
  return c;
}

TEST(CampaignSummary, ReportsTheWorstExcessOfEveryJournaledProgramResumedOnesIncluded) {
  const fs::path dir = fs::temp_directory_path() / ("difftest_excess." + std::to_string(::getpid()));
  fs::remove_all(dir);
  run_campaign(small_campaign(dir, 3));
  CampaignOptions more = small_campaign(dir, 7);
  more.resume = true;
  const CampaignSummary s = run_campaign(more);

  double max = -1;
  uint64_t max_seed = 0;
  int64_t programs = 0;
  std::ifstream journal(dir / "journal.jsonl");
  for (std::string line; std::getline(journal, line);) {
    const nlohmann::json rec = nlohmann::json::parse(line);
    ASSERT_TRUE(rec.contains("worst_excess")) << rec.dump();
    const double e = rec["worst_excess"].get<double>();
    ++programs;
    if (e > max) {
      max = e;
      max_seed = rec["seed"].get<uint64_t>();
    }
  }
  EXPECT_EQ(programs, 8);
  EXPECT_EQ(s.excess.programs, programs);
  EXPECT_EQ(s.excess.max, max);
  EXPECT_EQ(s.excess.max_seed, max_seed);
  EXPECT_GT(s.excess.max, 0);  // a correct compile still deviates from the f64 reference
  EXPECT_LT(s.excess.max, 1);  // and stays within its allowances
  EXPECT_LE(s.excess.median, s.excess.p99);
  EXPECT_LE(s.excess.p99, s.excess.max);

  std::ifstream in(dir / "summary.json");
  const nlohmann::json summary = nlohmann::json::parse(in);
  EXPECT_EQ(summary.at("worst_excess").at("max").get<double>(), max);
  EXPECT_EQ(summary.at("worst_excess").at("programs").get<int64_t>(), 8);
  EXPECT_NE(format_summary(s).find("worst excess per program"), std::string::npos);
  fs::remove_all(dir);
}

TEST(CampaignSummary, ExcessQuantilesAreOrderStatistics) {
  std::vector<std::pair<double, uint64_t>> excesses;
  for (uint64_t seed = 0; seed < 101; ++seed) excesses.emplace_back(static_cast<double>((seed * 37) % 101) / 100, seed);
  const ExcessSummary s = ExcessSummary::of(excesses);
  EXPECT_EQ(s.programs, 101);
  EXPECT_DOUBLE_EQ(s.median, 0.5);
  EXPECT_DOUBLE_EQ(s.p99, 0.99);
  EXPECT_DOUBLE_EQ(s.max, 1.0);
  EXPECT_EQ((s.max_seed * 37) % 101, 100u);
  EXPECT_EQ(ExcessSummary::of({}).programs, 0);
}

}  // namespace
}  // namespace difftest::oracle

namespace difftest::oracle {
namespace {

CampaignSummary counted(std::map<std::string, int64_t> counts) {
  CampaignSummary s;
  for (const auto& [kind, n] : counts) s.status.done += n;
  s.status.counts = std::move(counts);
  return s;
}

// Unchecked and unsupported programs are not findings; a campaign the compiler took no program
// of checked nothing, and fails.
TEST(CampaignSummary, FailsOnFindingsAndOnNothingSupportedNotOnUncheckedAlone) {
  EXPECT_FALSE(counted({{"ok", 5}, {"unchecked", 3}}).found_failure());
  EXPECT_FALSE(counted({{"ok", 5}, {"unsupported", 3}}).found_failure());
  EXPECT_FALSE(counted({{"unchecked", 3}}).found_failure());
  EXPECT_TRUE(counted({{"unsupported", 3}}).found_failure());
  EXPECT_TRUE(counted({{"unsupported", 3}}).nothing_supported());
  EXPECT_FALSE(counted({}).found_failure());
  CampaignSummary with_finding = counted({{"ok", 5}, {"mismatch", 1}});
  FailureClass finding;
  finding.signature = *Signature::parse("mismatch|O3|compare|output of mul");
  with_finding.failures.push_back(finding);
  EXPECT_TRUE(with_finding.found_failure());
  const std::string text = format_summary(counted({{"unsupported", 2}}));
  EXPECT_NE(text.find("every program was unsupported"), std::string::npos) << text;
}

// The journal records the output elements each program had compared and in all; the summary
// adds them up.
TEST(CampaignSummary, CountsTheElementsComparedOverTheJournal) {
  const fs::path dir = fs::temp_directory_path() / ("difftest_unchecked." + std::to_string(::getpid()));
  fs::remove_all(dir);
  CampaignOptions o = small_campaign(dir, 1);
  const CampaignSummary plain = run_campaign(o);
  EXPECT_GT(plain.status.elements, 0);
  EXPECT_LE(plain.status.elements_checked, plain.status.elements);
  std::ifstream journal(dir / "journal.jsonl");
  int64_t elements = 0;
  for (std::string line; std::getline(journal, line);) elements += nlohmann::json::parse(line).at("elements").get<int64_t>();
  EXPECT_EQ(elements, plain.status.elements);
  fs::remove_all(dir);
}

TEST(CampaignOptions, CountsUncheckedAgainstTheCompilerOnlyWhenAsked) {
  VariantVerdict v;
  v.kind = VerdictKind::Unchecked;
  CampaignOptions o;
  EXPECT_FALSE(o.counts_against(v));
  o.fail_on_unchecked = true;
  EXPECT_TRUE(o.counts_against(v));
  v.kind = VerdictKind::Unsupported;
  EXPECT_FALSE(o.counts_against(v));
  v.kind = VerdictKind::Mismatch;
  o.fail_on_unchecked = false;
  EXPECT_TRUE(o.counts_against(v));
}

}  // namespace
}  // namespace difftest::oracle

namespace difftest::oracle {
namespace {

std::set<uint64_t> journaled_seeds(const fs::path& dir) {
  std::set<uint64_t> seeds;
  std::ifstream in(dir / "journal.jsonl");
  for (std::string line; std::getline(in, line);) seeds.insert(nlohmann::json::parse(line).at("seed").get<uint64_t>());
  return seeds;
}

// Steering checks one seed of each window of K, decided before anything is checked: the same
// seeds with one job or two, and after a resume; the coverage map counts what was journaled.
TEST(CampaignSteering, OneSeedPerWindowTheSameWithAnyJobsAndAfterAResume) {
  const fs::path base = fs::temp_directory_path() / ("difftest_steer." + std::to_string(::getpid()));
  fs::remove_all(base);
  CampaignOptions two = small_campaign(base / "two", 15);
  two.steer = 4;
  two.coverage_path = (base / "two.json").string();
  run_campaign(two);
  const std::set<uint64_t> seeds = journaled_seeds(base / "two");
  ASSERT_EQ(seeds.size(), 4u);
  for (uint64_t w = 0; w < 4; ++w) {
    EXPECT_EQ(std::count_if(seeds.begin(), seeds.end(), [&](uint64_t s) { return s / 4 == w; }), 1) << "window " << w;
  }
  CampaignOptions one = small_campaign(base / "one", 7);
  one.jobs = 1;
  one.steer = 4;
  run_campaign(one);
  CampaignOptions rest = small_campaign(base / "one", 15);
  rest.jobs = 1;
  rest.steer = 4;
  rest.resume = true;
  run_campaign(rest);
  EXPECT_EQ(journaled_seeds(base / "one"), seeds);
  std::ifstream in(base / "two.json");
  const nlohmann::json map = nlohmann::json::parse(in);
  EXPECT_EQ(map.at("programs"), 4);
  EXPECT_EQ(map.at("steer"), 4);
  EXPECT_GT(map.at("distinct_cells").get<int64_t>(), 10);
  EXPECT_EQ(map.at("cells").size(), map.at("distinct_cells").get<size_t>());
  // Every program was lowered (the campaign checks O0 only): its compiles exercised LegalizeOps.
  EXPECT_EQ(map.at("exercised").at("pass:LegalizeOps"), 4);
  fs::remove_all(base);
}

// Resuming with another window is refused: the campaign would check other seeds.
TEST(CampaignSteering, ResumeWithAnotherWindowIsRefused) {
  const fs::path dir = fs::temp_directory_path() / ("difftest_steer_resume." + std::to_string(::getpid()));
  fs::remove_all(dir);
  CampaignOptions first = small_campaign(dir, 3);
  first.steer = 2;
  run_campaign(first);
  CampaignOptions other = small_campaign(dir, 7);
  other.steer = 4;
  other.resume = true;
  EXPECT_THROW(run_campaign(other), UserError);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace difftest::oracle
