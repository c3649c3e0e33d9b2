// difftest merge (oracle/merge/merge.h) on shard directories written here by hand: which
// records survive, what is reported of bad shards, and that the result does not depend on the
// order shards and lines come in.
#include "oracle/merge/merge.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/support/diagnostics.h"
#include "oracle/io/json_file.h"

namespace difftest::oracle {
namespace {

namespace fs = std::filesystem;

const char* const kMismatch = "mismatch|O3|compare|output of mul";
const char* const kCrash = "compile_crash|O1|compile|killed by signal N";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class MergeTest : public ::testing::Test {
 protected:
  fs::path root;
  void SetUp() override {
    root = fs::temp_directory_path() / fmt::format("merge_test_{}_{}", ::getpid(),
                                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root);
    fs::create_directories(root);
  }
  void TearDown() override { fs::remove_all(root); }

  static std::string ok(uint64_t seed, double at) {
    return fmt::format(R"({{"seed":{},"verdict":"ok","hash":"{:016x}","worst_excess":0.25,"worst_ratio":0.1,"elements":10,"elements_checked":10,"at":{},"times":{{"generate_ms":1,"reference_ms":2,"compile_ms":3,"run_ms":4,"compare_ms":5}}}})",
                       seed, seed + 1000, at);
  }
  static std::string failed(uint64_t seed, const std::string& sig, double at, const std::string& kind = "mismatch") {
    return fmt::format(R"({{"seed":{},"verdict":"{}","hash":"{:016x}","worst_excess":3.5,"worst_ratio":2,"at":{},"signature":"{}","detail":{{"variants":[{{"pipeline":"O3","binding":{{"n":4}},"kind":"{}","message":"wrong","output_op":"mul","signature":"{}"}}]}}}})",
                       seed, kind, seed + 1000, at, sig, kind, sig);
  }
  // A shard directory: campaign.json (shard i/N) and the journal's lines as given.
  fs::path shard(const std::string& name, const std::string& shard_text, const std::vector<std::string>& lines,
                 const std::string& faults = "[]", bool last_newline = true) {
    const fs::path d = root / name;
    fs::create_directories(d / "failures");
    std::ofstream(d / "campaign.json")
        << fmt::format(R"({{"identity":{{"shard":"{}","faults":{},"pipelines":["O3"],"compiler":"builtin"}}}})",
                       shard_text, faults);
    std::ofstream j(d / "journal.jsonl", std::ios::binary);
    for (size_t i = 0; i < lines.size(); ++i) j << lines[i] << (i + 1 < lines.size() || last_newline ? "\n" : "");
    return d;
  }
  void reproducer(const fs::path& shard_dir, const std::string& kind, const std::string& sig, uint64_t seed) {
    const fs::path d = shard_dir / "failures" / failure_dir_name(kind, sig);
    fs::create_directories(d);
    std::ofstream(d / "program.ir") << "# seed " << seed << "\n";
  }
  MergeResult merge(const std::vector<fs::path>& dirs, const std::string& out = "out") {
    MergeOptions o;
    for (const auto& d : dirs) o.dirs.push_back(d.string());
    o.out_dir = (root / out).string();
    return merge_campaigns(o);
  }
};

TEST_F(MergeTest, OneRecordPerSeedAndOneClassPerSignatureAcrossShards) {
  const auto a = shard("a", "0/2", {ok(0, 100), failed(2, kMismatch, 101), failed(4, kCrash, 102, "compile_crash")});
  const auto b = shard("b", "1/2", {failed(1, kMismatch, 100.5), ok(3, 101.5), failed(5, kMismatch, 103)});
  reproducer(a, "mismatch", kMismatch, 2);
  reproducer(b, "mismatch", kMismatch, 1);
  const MergeResult r = merge({a, b});
  EXPECT_EQ(r.summary.status.done, 6);
  EXPECT_EQ(r.summary.status.counts.at("ok"), 2);
  EXPECT_EQ(r.summary.status.counts.at("mismatch"), 3);
  EXPECT_EQ(r.summary.status.counts.at("compile_crash"), 1);
  ASSERT_EQ(r.summary.failures.size(), 2u);
  const FailureClass& m = r.summary.failures[0];  // by first seed: the mismatch (1), the crash (4)
  EXPECT_EQ(m.signature.str(), kMismatch);
  EXPECT_EQ(m.first_seed, 1u);
  EXPECT_EQ(m.programs, 3);
  EXPECT_EQ(m.seeds, (std::vector<uint64_t>{1, 2, 5}));
  EXPECT_EQ(m.shards, (std::vector<std::string>{"0/2", "1/2"}));
  EXPECT_DOUBLE_EQ(m.found_after_seconds, 0.5);  // at 100.5, the campaign's first record at 100
  EXPECT_EQ(m.found_after_programs, 2);
  // The reproducer is the lowest seed's: shard b's (seed 1), not a's (seed 2).
  EXPECT_EQ(slurp(fs::path(m.saved_in) / "program.ir"), "# seed 1\n");
  EXPECT_EQ(r.summary.failures[1].saved_in, "");  // no shard saved the crash's
  // The journal: every line once, by seed, as the shards wrote it.
  std::istringstream journal(slurp(root / "out" / "journal.jsonl"));
  std::string line;
  std::vector<uint64_t> seeds;
  while (std::getline(journal, line)) seeds.push_back(nlohmann::json::parse(line)["seed"].get<uint64_t>());
  EXPECT_EQ(seeds, (std::vector<uint64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(slurp(root / "out" / "journal.jsonl").find(ok(3, 101.5)), slurp(root / "out" / "journal.jsonl").find("{\"seed\":3"));
  // The summary and the gate's JSON for the whole: one case per shard, each failing with its signatures.
  const nlohmann::json summary = read_json_file((root / "out" / "summary.json").string());
  EXPECT_EQ(summary["failures"][0]["seeds"], nlohmann::json::parse("[1,2,5]"));
  const nlohmann::json gate = read_json_file((root / "out" / "gate.json").string());
  EXPECT_FALSE(gate["passed"].get<bool>());
  ASSERT_EQ(gate["cases"].size(), 2u);
  EXPECT_EQ(gate["cases"][0]["new"], nlohmann::json::parse(fmt::format(R"(["{}","{}"])", kCrash, kMismatch)));
  EXPECT_EQ(gate["cases"][1]["new"], nlohmann::json::parse(fmt::format(R"(["{}"])", kMismatch)));
  EXPECT_EQ(gate["cases"][1]["failures"][0]["seed"], 1);
  EXPECT_EQ(gate["cases"][1]["failures"][0]["variant"], "O3");
  EXPECT_EQ(gate["cases"][1]["failures"][0]["binding"], nlohmann::json::parse(R"({"n":4})"));
  const std::string junit = slurp(root / "out" / "gate.xml");
  EXPECT_NE(junit.find("tests=\"2\" failures=\"2\""), std::string::npos) << junit;
}

TEST_F(MergeTest, ADuplicateIsKeptOnceAndAConflictIsNamedWithBothLines) {
  const auto a = shard("a", "0/1", {ok(0, 1), ok(1, 2), failed(2, kMismatch, 3)});
  const auto b = shard("b", "0/1", {ok(1, 5), ok(2, 6)});  // seed 1 again (same), seed 2 otherwise
  const MergeResult r = merge({a, b});
  EXPECT_EQ(r.summary.status.done, 3);
  EXPECT_EQ(r.duplicates, 1);
  EXPECT_EQ(r.conflicts, 1);
  EXPECT_EQ(r.summary.status.counts.at("mismatch"), 1);  // the first shard's record is kept
  bool named = false;
  for (const auto& n : r.summary.journal_notes) {
    named = named || (n.find("seed 2 conflicts") != std::string::npos &&
                      n.find((a / "journal.jsonl").string() + ":3 says mismatch") != std::string::npos &&
                      n.find((b / "journal.jsonl").string() + ":2 says ok") != std::string::npos);
  }
  EXPECT_TRUE(named) << fmt::format("{}", fmt::join(r.summary.journal_notes, "\n"));
}

TEST_F(MergeTest, ABadLineATornEndAndAMissingShardAreReportedAndTheRestMerged) {
  const auto a = shard("a", "0/3", {ok(0, 1), "{not json", ok(3, 2), ok(6, 3)}, "[]", /*last_newline=*/false);
  const auto b = shard("b", "1/3", {ok(1, 1), R"({"seed":4,"verdict":"frobnicated"})", ok(7, 2)});
  fs::create_directories(root / "empty");
  const MergeResult r = merge({a, b, root / "empty"});
  EXPECT_EQ(r.summary.status.done, 4);  // 0, 3 (6 was torn), 1, 7
  const std::string notes = fmt::format("{}", fmt::join(r.summary.journal_notes, "\n"));
  EXPECT_NE(notes.find((a / "journal.jsonl").string() + ":2: not a journal record"), std::string::npos) << notes;
  EXPECT_NE(notes.find((a / "journal.jsonl").string() + ":4: a torn last line"), std::string::npos) << notes;
  EXPECT_NE(notes.find((b / "journal.jsonl").string() + ":2: not a journal record (an unknown verdict 'frobnicated')"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find((root / "empty").string() + ": no journal.jsonl"), std::string::npos) << notes;
  EXPECT_NE(notes.find("shard 2/3 not given"), std::string::npos) << notes;
  // The shard itself is left as it was: merging reads, it does not repair.
  EXPECT_EQ(slurp(a / "journal.jsonl").substr(slurp(a / "journal.jsonl").size() - 10), ok(6, 3).substr(ok(6, 3).size() - 10));
}

TEST_F(MergeTest, TheResultDependsOnTheRecordsNotOnTheirOrderOrARepeatedLine) {
  const auto a = shard("a", "0/2", {ok(0, 1), failed(2, kMismatch, 2), ok(4, 3)});
  const auto b = shard("b", "1/2", {ok(1, 1), ok(3, 2), failed(5, kMismatch, 4)});
  // The same shards as a killed and resumed run leaves them: lines in another order, one twice.
  const auto a2 = shard("a2", "0/2", {ok(4, 3), failed(2, kMismatch, 2), ok(0, 1), ok(4, 3)});
  const auto b2 = shard("b2", "1/2", {failed(5, kMismatch, 4), ok(1, 1), ok(3, 2)});
  merge({a, b}, "first");
  merge({b2, a2}, "second");
  for (const char* file : {"journal.jsonl", "gate.xml"}) {
    EXPECT_EQ(slurp(root / "first" / file), slurp(root / "second" / file)) << file;
  }
  nlohmann::json s1 = read_json_file((root / "first" / "summary.json").string());
  nlohmann::json s2 = read_json_file((root / "second" / "summary.json").string());
  for (auto* s : {&s1, &s2}) s->erase("merged_from");  // the shards' paths differ, and "duplicates"
  EXPECT_EQ(s1["failures"], s2["failures"]);
  EXPECT_EQ(s1["counts"], s2["counts"]);
  EXPECT_EQ(s1["worst_excess"], s2["worst_excess"]);
  EXPECT_EQ(s1["times_ms"], s2["times_ms"]);
  EXPECT_EQ(s2["duplicates"], 1);
  // Merging into an earlier merge replaces it: the same as the first, but for where it is.
  merge({a, b}, "second");
  std::string second = slurp(root / "second" / "summary.json");
  for (size_t at; (at = second.find("/second/")) != std::string::npos;) second.replace(at, 8, "/first/");
  EXPECT_EQ(slurp(root / "first" / "summary.json"), second);
}

TEST_F(MergeTest, KnownFailuresAreMarkedAndOnlyNewOnesFail) {
  const auto a = shard("a", "0/1", {failed(0, kMismatch, 1), failed(1, kCrash, 2, "compile_crash")});
  MergeOptions o;
  o.dirs = {a.string()};
  o.out_dir = (root / "out").string();
  o.known_as = [](const Signature& s) -> std::optional<KnownMatch> {
    if (s.str() == kMismatch) return KnownMatch{"mul_drops_its_tail"};
    return std::nullopt;
  };
  const MergeResult r = merge_campaigns(o);
  ASSERT_EQ(r.summary.failures.size(), 2u);
  EXPECT_EQ(r.summary.failures[0].known_as, "mul_drops_its_tail");
  EXPECT_FALSE(r.summary.failures[1].known_as);
  EXPECT_TRUE(r.summary.found_failure());
  const std::string text = format_summary(r.summary);
  const size_t fresh = text.find(kCrash), known = text.find("mul_drops_its_tail");
  ASSERT_NE(fresh, std::string::npos) << text;
  ASSERT_NE(known, std::string::npos) << text;
  EXPECT_LT(fresh, known) << "new failures lead: " << text;
  const nlohmann::json gate = read_json_file((root / "out" / "gate.json").string());
  EXPECT_EQ(gate["new"], nlohmann::json::parse(fmt::format(R"(["{}"])", kCrash)));
  EXPECT_EQ(gate["known_seen"], nlohmann::json::parse(fmt::format(R"(["{}"])", kMismatch)));
}

TEST_F(MergeTest, ShardsOfTwoCampaignsAndAnOutputThatIsNotAMergeAreRefused) {
  const auto a = shard("a", "0/2", {ok(0, 1)});
  const auto b = shard("b", "1/2", {ok(1, 1)}, R"(["mul-drops-tail"])");
  try {
    merge({a, b});
    FAIL() << "two campaigns were merged";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("are not shards of one campaign"), std::string::npos) << e.what();
  }
  fs::create_directories(root / "precious");
  std::ofstream(root / "precious" / "notes.txt") << "keep me";
  EXPECT_THROW(merge({a}, "precious"), UserError);
  EXPECT_EQ(slurp(root / "precious" / "notes.txt"), "keep me");
  EXPECT_THROW(merge({root / "nothing-here"}), UserError);
}

}  // namespace
}  // namespace difftest::oracle
