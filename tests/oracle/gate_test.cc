// The regression corpus and `difftest gate`: corpus headers (and their errors, located), what
// makes an entry pass or fail, baselines, and the JUnit/JSON reports. The expected signatures
// are derived from where the faults live and what the programs compute, not from a run.
#include "oracle/gate/gate.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "compiler/faults/faults.h"
#include "compiler/support/diagnostics.h"
#include "oracle/gate/corpus.h"
#include "tests/support/builtin.h"

namespace difftest::oracle {
namespace {

namespace fs = std::filesystem;

class TempCorpus {
 public:
  TempCorpus() : dir_(fs::temp_directory_path() / fmt::format("gate_test.{}.{}", ::getpid(), counter_++)) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~TempCorpus() { fs::remove_all(dir_); }
  std::string add(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  std::string dir() const { return dir_.string(); }

 private:
  static inline int counter_ = 0;
  fs::path dir_;
};

const char* kMul = R"(program @mul(n: 1..8) {
  %a: f32[n, 4] = param
  %b: f32[n, 4] = param
  %y: f32[n, 4] = mul(%a, %b)
  return %y
}
)";

const char* kExp = R"(program @exp(n: 1..8) {
  %a: f32[n, 4] = param
  %y: f32[n, 4] = exp(%a)
  return %y
}
)";

// O0 only, one binding: small and quick; the gate logic is the same for every pipeline.
GateOptions quick(const std::string& corpus) {
  GateOptions o;
  o.corpus = corpus;
  o.corpus_compiler = &backends::builtin_compiler();
  o.campaign.unbounded = true;  // and no time: no seeds
  CheckOptions& check = o.campaign.check;
  check = testing::builtin_checks();
  check.levels = {"O0"};
  check.random_orders = 0;
  check.cross_checks.clear();
  check.specialize = false;
  check.bindings = {{{"n", 3}}};
  check.limits.cpu_seconds = 60;
  return o;
}

// mul-drops-tail breaks the mul lowering, which O0 runs: O0's output of mul is wrong.
const std::string kMulSignature = "mismatch|O0|compare|output of mul";

Signature signature(const std::string& text) {
  const std::optional<Signature> s = Signature::parse(text);
  EXPECT_TRUE(s) << text;
  return s.value_or(Signature{});
}

std::set<Signature> signatures(std::initializer_list<std::string> texts) {
  std::set<Signature> out;
  for (const auto& t : texts) out.insert(signature(t));
  return out;
}

// An entry read as the gate reads it: its passes and faults are the builtin compiler's.
CorpusEntry read_entry(const std::string& path) { return read_corpus_entry(path, backends::builtin_compiler()); }

std::string error_of(const std::string& path) {
  try {
    read_entry(path);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(Corpus, ReadsExpectationsAndFaults) {
  TempCorpus c;
  const CorpusEntry ok = read_entry(c.add("ok.ir", std::string("# expect: ok\n# what: a mul\n") + kMul));
  EXPECT_FALSE(ok.expect) << "ok";
  EXPECT_TRUE(ok.faults.empty());
  EXPECT_EQ(ok.program.name(), "mul");
  const CorpusEntry f = read_entry(
      c.add("f.ir", "# fault: mul-drops-tail\n# expect: " + kMulSignature + "\n# what: the tail\n" + kMul));
  EXPECT_EQ(f.faults, std::vector<std::string>{"mul-drops-tail"});
  ASSERT_TRUE(f.expect);
  EXPECT_EQ(f.expect->str(), kMulSignature);
}

// `# input-seed:` names the seed of an entry's generated inputs, and the gate's checks use it.
TEST(Corpus, AnInputSeedReachesTheEntrysChecks) {
  TempCorpus c;
  const CorpusEntry plain = read_entry(c.add("plain.ir", std::string("# expect: ok\n") + kMul));
  EXPECT_FALSE(plain.input_seed);
  const CorpusEntry seeded = read_entry(c.add("seeded.ir", std::string("# input-seed: 17\n# expect: ok\n") + kMul));
  ASSERT_TRUE(seeded.input_seed);
  EXPECT_EQ(*seeded.input_seed, 17u);
  CheckOptions base;
  base.input_seed = 3;
  EXPECT_EQ(entry_checks(plain, base).input_seed, 3u);
  EXPECT_EQ(entry_checks(seeded, base).input_seed, 17u);
  EXPECT_NE(error_of(c.add("badseed.ir", std::string("# input-seed: -1\n# expect: ok\n") + kMul))
                .find("badseed.ir:1:15: error[syntax]: '# input-seed: -1' is not a seed"),
            std::string::npos);
  EXPECT_NE(error_of(c.add("twoseeds.ir", std::string("# input-seed: 1\n# input-seed: 2\n# expect: ok\n") + kMul))
                .find("twoseeds.ir:2:15: error[syntax]: a second '# input-seed:' line (the first is on line 1)"),
            std::string::npos);
}

TEST(Corpus, MalformedHeadersAreLocatedErrors) {
  TempCorpus c;
  EXPECT_NE(error_of(c.add("none2.ir", kMul)).find("none2.ir:1:1: error[syntax]: missing the '# expect: ok'"),
            std::string::npos);
  EXPECT_NE(error_of(c.add("two.ir", std::string("# expect: ok\n# expect: ok\n") + kMul))
                .find("two.ir:2:11: error[syntax]: a second '# expect:' line (the first is on line 1)"),
            std::string::npos);
  EXPECT_NE(error_of(c.add("fault.ir", std::string("# fault: no-such-fault\n# expect: mismatch|O0|compare|x\n") + kMul))
                .find("fault.ir:1:10: error[syntax]: unknown fault 'no-such-fault'"),
            std::string::npos);
  EXPECT_NE(error_of(c.add("kind.ir", std::string("# expect: broken|O0\n") + kMul))
                .find("kind.ir:1:11: error[syntax]: '# expect: broken|O0' is neither ok nor a failure signature"),
            std::string::npos);
  EXPECT_NE(error_of(c.add("okfault.ir", std::string("# fault: mul-drops-tail\n# expect: ok\n") + kMul))
                .find("okfault.ir:2:11: error[syntax]: an entry with '# fault:' lines must expect the signature"),
            std::string::npos);
  EXPECT_NE(error_of(c.add("nofault.ir", "# expect: " + kMulSignature + "\n" + kMul))
                .find("nofault.ir:1:11: error[syntax]: an expected failure needs the '# fault: NAME'"),
            std::string::npos);
  // The program itself: parse errors keep their own location.
  EXPECT_NE(error_of(c.add("prog.ir", "# expect: ok\nprogram @p( {\n")).find("prog.ir:2:"), std::string::npos);
}

// Another backend's own bugs: no fault, every `# expect:` line kept, in order.
TEST(Corpus, ReadsAnotherCompilersKnownBugs) {
  TempCorpus c;
  const CorpusEntry e =
      read_entry(c.add("ort.ir",
                       "# compiler: ort\n# expect: mismatch|extended|compare|output of mul\n# expect: "
                       "mismatch|all|compare|output of mul\n" +
                           std::string(kMul)));
  EXPECT_EQ(e.compiler, "ort");
  EXPECT_FALSE(e.expect);
  EXPECT_TRUE(e.faults.empty());
  ASSERT_EQ(e.known_bugs.size(), 2u);
  EXPECT_EQ(e.known_bugs[0].str(), "mismatch|extended|compare|output of mul");
  EXPECT_EQ(e.known_bugs[1].str(), "mismatch|all|compare|output of mul");
  // Every kind of finding an external compiler shows, not only the builtin's usual ones.
  const CorpusEntry kinds = read_entry(
      c.add("ov.ir", "# compiler: openvino\n# expect: nondeterministic|accuracy|run|two runs differ\n"
                     "# expect: timeout|static|run|it hung\n" + std::string(kMul)));
  ASSERT_EQ(kinds.known_bugs.size(), 2u);
  EXPECT_EQ(kinds.known_bugs[0].kind, "nondeterministic");
  EXPECT_EQ(kinds.known_bugs[1].kind, "timeout");
  EXPECT_NE(error_of(c.add("unsupported.ir", "# compiler: openvino\n# expect: unsupported|accuracy|compile|x\n" +
                                                  std::string(kMul)))
                .find("is neither ok nor a failure signature"),
            std::string::npos)
      << "unsupported is no finding";
}

TEST(Corpus, MalformedCompilerHeadersAreLocatedErrors) {
  TempCorpus c;
  EXPECT_NE(error_of(c.add("builtin.ir", "# compiler: builtin\n# expect: ok\n" + std::string(kMul)))
                .find("builtin.ir:1:13: error[syntax]: '# compiler:' names another backend than builtin"),
            std::string::npos);
  EXPECT_NE(error_of(c.add("ok.ir", "# compiler: ort\n# expect: ok\n" + std::string(kMul)))
                .find("ok.ir:2:11: error[syntax]: an entry of '# compiler:' expects its failures, not ok"),
            std::string::npos);
  EXPECT_NE(error_of(c.add("fault.ir", "# compiler: ort\n# fault: mul-drops-tail\n# expect: " + kMulSignature + "\n" +
                                           std::string(kMul)))
                .find("fault.ir:1:13: error[syntax]: an entry of '# compiler:' takes no '# fault:' or '# passes:'"),
            std::string::npos);
  EXPECT_NE(error_of(c.add("late.ir", "# expect: " + kMulSignature + "\n# compiler: ort\n" + std::string(kMul)))
                .find("late.ir:2:13: error[syntax]: '# compiler:' goes before the '# expect:' lines"),
            std::string::npos);
  EXPECT_NE(error_of(c.add("twice.ir",
                           "# compiler: ort\n# compiler: ort\n# expect: " + kMulSignature + "\n" + std::string(kMul)))
                .find("twice.ir:2:13: error[syntax]: a second '# compiler:' line (the first is on line 1)"),
            std::string::npos);
}

// Under the builtin compiler another backend's entry is an ok entry: its program must pass.
TEST(Gate, AnotherCompilersEntryIsHeldToOkUnderTheBuiltin) {
  TempCorpus c;
  c.add("ort.ir", "# compiler: ort\n# expect: mismatch|extended|compare|output of mul\n" + std::string(kMul));
  const GateResult r = run_gate(quick(c.dir()));
  ASSERT_EQ(r.cases.size(), 1u);
  EXPECT_TRUE(r.passed()) << r.cases[0].detail;
  EXPECT_NE(r.cases[0].detail.find("its expected failures are ort's"), std::string::npos) << r.cases[0].detail;
  GateOptions faulty = quick(c.dir());
  faulty.campaign.check.compiler = &testing::builtin_with({"mul-drops-tail"});
  const GateResult broken = run_gate(faulty);
  EXPECT_EQ(broken.fresh(), signatures({kMulSignature}));
}

TEST(Gate, OkAndFaultEntriesPass) {
  TempCorpus c;
  c.add("a_ok.ir", std::string("# expect: ok\n") + kMul);
  c.add("b_fault.ir", "# fault: mul-drops-tail\n# expect: " + kMulSignature + "\n" + kMul);
  const GateResult r = run_gate(quick(c.dir()));
  ASSERT_EQ(r.cases.size(), 2u);
  for (const auto& k : r.cases) EXPECT_TRUE(k.passed()) << k.name << ": " << k.detail;
  EXPECT_TRUE(r.passed());
  EXPECT_TRUE(r.seen.empty());
  EXPECT_NE(r.cases[1].detail.find("with mul-drops-tail: " + kMulSignature), std::string::npos) << r.cases[1].detail;
}

// exp has no mul: the fault cannot show, so the entry's detection is lost.
TEST(Gate, AFaultEntryThatNoLongerShowsItsSignatureFails) {
  TempCorpus c;
  c.add("lost.ir", "# fault: mul-drops-tail\n# expect: " + kMulSignature + "\n" + kExp);
  const GateResult r = run_gate(quick(c.dir()));
  ASSERT_EQ(r.cases.size(), 1u);
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(r.fresh(), signatures({"lost-detection|lost.ir|" + kMulSignature}));
}

// A fault on for the whole gate breaks the ok entry and the fault entry's clean run; with those
// signatures in the baseline the gate passes, reporting them as known.
TEST(Gate, NewSignaturesFailAndBaselinedOnesAreKnown) {
  TempCorpus c;
  c.add("a_ok.ir", std::string("# expect: ok\n") + kMul);
  c.add("b_exp.ir", std::string("# expect: ok\n") + kExp);
  GateOptions o = quick(c.dir());
  o.campaign.check.compiler = &testing::builtin_with({"mul-drops-tail"});
  const GateResult r = run_gate(o);
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(r.fresh(), signatures({kMulSignature}));
  EXPECT_FALSE(r.cases[0].passed());
  EXPECT_TRUE(r.cases[1].passed());  // exp has no mul
  o.baseline = signatures({kMulSignature, "timeout|O3|codegen|never seen"});
  const GateResult known = run_gate(o);
  EXPECT_TRUE(known.passed());
  EXPECT_EQ(known.cases[0].known, std::vector<Signature>{signature(kMulSignature)});
  EXPECT_EQ(known.absent(o.baseline), signatures({"timeout|O3|codegen|never seen"}));
}

TEST(Gate, ShardsSplitTheCorpus) {
  TempCorpus c;
  for (const char* n : {"a.ir", "b.ir", "c.ir"}) c.add(n, std::string("# expect: ok\n") + kMul);
  GateOptions o = quick(c.dir());
  o.campaign.shard = {1, 2};
  const GateResult r = run_gate(o);
  ASSERT_EQ(r.cases.size(), 1u);
  EXPECT_EQ(fs::path(r.cases[0].name).filename(), "b.ir");
}

TEST(Gate, SeedsAreCheckedInBatches) {
  GateOptions o = quick("");
  o.campaign.check.bindings.clear();
  o.campaign.check.random_bindings = 0;
  o.campaign.unbounded = false;
  o.campaign.first_seed = 3;
  o.campaign.last_seed = 9;
  o.batch = 3;
  o.campaign.out_dir = (fs::temp_directory_path() / fmt::format("gate_seeds.{}", ::getpid())).string();
  const GateResult r = run_gate(o);
  fs::remove_all(o.campaign.out_dir);
  EXPECT_EQ(r.programs, 7);
  ASSERT_EQ(r.cases.size(), 3u);
  EXPECT_EQ(r.cases[0].name, "seeds 3..5");
  EXPECT_EQ(r.cases[1].name, "seeds 6..8");
  EXPECT_EQ(r.cases[2].name, "seeds 9..11");
}

TEST(Gate, JUnitHasOneCasePerEntryWithEscapedFailures) {
  GateResult r;
  GateCase a;
  a.suite = "corpus";
  a.name = "corpus/a.ir";
  a.fresh = {signature("mismatch|O0|compare|output of <mul> & \"x\"")};
  GateCase b;
  b.suite = "seeds";
  b.name = "seeds 0..49";
  r.cases = {a, b};
  const std::string xml = gate_junit(r);
  EXPECT_NE(xml.find("<testsuites name=\"difftest gate\" tests=\"2\" failures=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase classname=\"difftest.corpus\" name=\"corpus/a.ir\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("output of &lt;mul&gt; &amp; &quot;x&quot;"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase classname=\"difftest.seeds\" name=\"seeds 0..49\" time=\"0.000\"/>"), std::string::npos)
      << xml;
}

TEST(Gate, BaselinesRoundTripAndMalformedOnesAreLocated) {
  TempCorpus c;
  const std::string path = c.dir() + "/baseline.json";
  // Every kind --update-baseline writes: an unchecked output of an entry expecting ok and an
  // outlier under --fail-on outlier fail a gate as a mismatch does.
  const std::set<Signature> known = signatures({kMulSignature, "timeout|O3|codegen|never seen",
                                                "lost-detection|q4.ir|mismatch|O0|compare|output of dequantize",
                                                "unchecked|O0|compare|output of cast", "outlier|O2|compare|output of exp"});
  write_baseline(path, known);
  EXPECT_EQ(read_baseline(path), known);
  const std::string bad = c.add("bad.json", "{\n  \"signatures\": [\"a\",\n  oops]\n}\n");
  try {
    read_baseline(bad);
    ADD_FAILURE() << "a malformed baseline was read";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json:3:3: error[syntax]: not valid JSON"), std::string::npos) << e.what();
  }
  // Each schema violation is refused with what is wrong, and where.
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"{\"difftest_baseline\": 1, \"signatures\": [1]}", "\"signatures\"[0] is not a string"},
      {"{\"signatures\": []}", "no \"difftest_baseline\" version key"},
      {"{\"difftest_baseline\": 2, \"signatures\": []}", "\"difftest_baseline\" is 2; this difftest reads version 1"},
      {"{\"difftest_baseline\": 1, \"signatures\": [], \"extra\": 0}", "unknown key \"extra\""},
      {"{\"difftest_baseline\": 1}", "no \"signatures\" list"},
      {"{\"difftest_baseline\": 1, \"signatures\": [\"ok|O0|x|y\"]}", "\"signatures\"[0] 'ok|O0|x|y' is not a failure"},
      {"[]", "not a JSON object"},
  };
  for (const auto& [text, why] : refused) {
    const std::string file = c.add("wrong.json", text);
    try {
      read_baseline(file);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("wrong.json: " + why), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace difftest::oracle
