// A manifest (backends/manifest/manifest.h) read as written, its defaults derived, and each kind
// of mistake refused with the file and the field.
#include "backends/manifest/manifest.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/parser.h"

namespace difftest::backends {
namespace {

namespace fs = std::filesystem;

struct ManifestFile {
  explicit ManifestFile(const std::string& text)
      : dir(fs::temp_directory_path() / fmt::format("manifest_test.{}", ::getpid())), path(dir / "m.json") {
    fs::create_directories(dir);
    std::ofstream(path) << text;
  }
  ~ManifestFile() { fs::remove_all(dir); }
  fs::path dir, path;
};

const char* kGood = R"({
  "name": "mine",
  "worker": ["python3", "{manifest_dir}/w.py", "--fast"],
  "model_format": "onnx",
  "levels": [{"name": "O0"}, {"name": "O1", "steps": ["a", "b"]}, {"name": "O2", "steps": ["a", "b", "c"]}],
  "baseline": "O0",
  "culprit_search": "opt-bisect"
})";

std::string error_of(const std::string& text) {
  const ManifestFile f(text);
  try {
    read_manifest(f.path.string());
  } catch (const UserError& e) {
    return e.what();
  }
  return "(accepted)";
}

// kGood with `from` replaced by `to`.
std::string good_with(const std::string& from, const std::string& to) {
  std::string s = kGood;
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(Manifest, IsReadAsWrittenWithTheBaselineCrossCheckedAgainstEveryOtherLevel) {
  const ManifestFile f(kGood);
  const Manifest m = read_manifest(f.path.string());
  EXPECT_EQ(m.name, "mine");
  EXPECT_EQ(m.path, f.path.string());
  ASSERT_EQ(m.worker.size(), 3u);
  EXPECT_EQ(m.worker[1], (f.dir / "w.py").string()) << "{manifest_dir} is the manifest's directory";
  EXPECT_EQ(m.model_format, ModelFormat::Onnx);
  EXPECT_EQ(m.level_names(), (std::vector<std::string>{"O0", "O1", "O2"}));
  ASSERT_NE(m.level("O1"), nullptr);
  EXPECT_EQ(m.level("O1")->steps, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(m.level("O0")->steps.empty());
  EXPECT_EQ(m.default_levels, m.level_names()) << "no default_check: every level";
  const std::vector<std::pair<std::string, std::string>> against_baseline = {{"O0", "O1"}, {"O0", "O2"}};
  EXPECT_EQ(m.cross_checks, against_baseline);
  EXPECT_EQ(m.culprit_search, CulpritSearch::OptBisect);
  EXPECT_TRUE(m.specialize);
}

TEST(Manifest, ADefaultCheckNamesItsLevelsAndCrossChecks) {
  const ManifestFile f(good_with(
      R"("culprit_search": "opt-bisect")",
      R"("culprit_search": "none", "default_check": {"levels": ["O2"], "cross_checks": [["O1", "O2"]], "specialize": false})"));
  const Manifest m = read_manifest(f.path.string());
  EXPECT_EQ(m.default_levels, (std::vector<std::string>{"O2"}));
  EXPECT_EQ(m.cross_checks, (std::vector<std::pair<std::string, std::string>>{{"O1", "O2"}}));
  EXPECT_FALSE(m.specialize);
  EXPECT_EQ(m.culprit_search, CulpritSearch::None);
}

TEST(Manifest, EachMistakeIsRefusedWithTheFileAndTheField) {
  EXPECT_NE(error_of(good_with(R"("name": "mine",)", "")).find("m.json: field \"name\": is required"),
            std::string::npos);
  EXPECT_NE(error_of(good_with(R"("name": "mine")", R"("name": "ort")")).find("field \"name\": 'ort' is a built-in"),
            std::string::npos);
  EXPECT_NE(error_of(good_with(R"("onnx")", R"("tflite")")).find("field \"model_format\": 'tflite' is not a format"),
            std::string::npos);
  EXPECT_NE(error_of(good_with(R"("baseline": "O0")", R"("baseline": "O9")"))
                .find("field \"baseline\": names no level ('O9'; levels: O0, O1, O2)"),
            std::string::npos);
  EXPECT_NE(error_of(good_with(R"({"name": "O0"})", R"({"name": "O1"})")).find("field \"levels[1].name\": 'O1' is named twice"),
            std::string::npos);
  EXPECT_NE(error_of(good_with(R"(["a", "b"])", R"(["a", 2])")).find("field \"levels[1].steps[1]\": expected a string"),
            std::string::npos);
  EXPECT_NE(error_of(good_with(R"("opt-bisect")", R"("bisect")")).find("'bisect' is not one of disable-list"),
            std::string::npos);
  EXPECT_NE(error_of(good_with(R"("baseline")", R"("base_line")")).find("field \"base_line\": not a manifest field"),
            std::string::npos);
  EXPECT_NE(error_of(good_with(R"("culprit_search": "opt-bisect")", R"("reproducer": {"r.py": "missing.in"})"))
                .find("field \"reproducer.r.py\": no template file"),
            std::string::npos);
  EXPECT_NE(error_of(good_with(R"("baseline": "O0",)", R"("default_check": {"cross_checks": [["O1", "O1"]]},)"))
                .find("field \"default_check.cross_checks[0]\": expected two different levels"),
            std::string::npos);
  const std::string malformed = error_of("{\n  \"name\": \"mine\",\n  \"levels\": [\n");
  EXPECT_NE(malformed.find("m.json:4:1"), std::string::npos) << malformed;
  EXPECT_NE(error_of("[1, 2]").find("m.json: a manifest is a JSON object"), std::string::npos);
}


const char* kOrders = R"({
  "name": "mine",
  "worker": ["python3", "w.py"],
  "model_format": "tvmscript",
  "levels": [{"name": "O0"}],
  "random_orders": {"count": 2, "config": {"pipeline": "order"},
                    "phases": [{"any": ["a", "b"]}, {"all": ["legalize"]}, {"maybe": ["fuse", "fuse_tir"]},
                               {"subset": ["x", "y", "z"]}]}
})";

TEST(Manifest, RandomOrdersAreReadPhaseByPhase) {
  const ManifestFile f(kOrders);
  const Manifest m = read_manifest(f.path.string());
  EXPECT_EQ(m.model_format, ModelFormat::TvmScript);
  EXPECT_EQ(m.random_orders.count, 2);
  EXPECT_EQ(m.random_orders.config, nlohmann::json({{"pipeline", "order"}}));
  ASSERT_EQ(m.random_orders.phases.size(), 4u);
  EXPECT_EQ(m.random_orders.phases[1].kind, OrderPhase::Kind::All);
  EXPECT_EQ(m.random_orders.phases[3].steps, (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_EQ(m.random_orders.all_steps(),
            (std::vector<std::string>{"a", "b", "legalize", "fuse", "fuse_tir", "x", "y", "z"}));
}

TEST(Manifest, RandomOrderMistakesAreRefusedWithTheField) {
  const auto with = [](const std::string& from, const std::string& to) {
    std::string s = kOrders;
    const size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return error_of(s.replace(at, from.size(), to));
  };
  EXPECT_NE(with(R"({"all": ["legalize"]})", R"({"every": ["legalize"]})")
                .find("field \"random_orders.phases[1]\": 'every' is not a phase kind (any, all, maybe, subset)"),
            std::string::npos);
  EXPECT_NE(with(R"("count": 2)", R"("count": 65)").find("field \"random_orders.count\": expected a whole number 0..64"),
            std::string::npos);
  EXPECT_NE(with(R"({"all": ["legalize"]})", R"({"all": []})").find("field \"random_orders.phases[1].all\": must not be empty"),
            std::string::npos);
  EXPECT_NE(with(R"({"any": ["a", "b"]})", R"({"any": ["a"], "all": ["b"]})").find("field \"random_orders.phases[0]\": expected one of"),
            std::string::npos);
  EXPECT_NE(with(R"([{"name": "O0"}])", R"([{"name": "O0"}, {"name": "order1"}])")
                .find("field \"random_orders\": level 'order1' would be taken for a random order's name"),
            std::string::npos);
}

// Orders drawn from the phases: `all` always, in order; `maybe` whole or absent; `subset` in
// its order; `any` only its own steps. The same program draws the same orders.
TEST(Manifest, RandomOrdersFollowTheirPhasesAndDependOnlyOnTheProgram) {
  const ManifestFile f(kOrders);
  const Manifest m = read_manifest(f.path.string());
  std::set<std::vector<std::string>> distinct;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    PcgChoices choices(seed);
    const std::vector<std::string> order = draw_order(m.random_orders, choices);
    distinct.insert(order);
    const auto at = std::find(order.begin(), order.end(), "legalize");
    ASSERT_NE(at, order.end()) << "an order without its required step";
    EXPECT_EQ(std::count(order.begin(), order.end(), "legalize"), 1);
    for (auto it = order.begin(); it != at; ++it) EXPECT_TRUE(*it == "a" || *it == "b") << *it;
    std::vector<std::string> rest(at + 1, order.end());
    if (!rest.empty() && rest[0] == "fuse") {
      ASSERT_GE(rest.size(), 2u);
      EXPECT_EQ(rest[1], "fuse_tir") << "maybe: both or neither";
      rest.erase(rest.begin(), rest.begin() + 2);
    }
    EXPECT_TRUE(std::is_sorted(rest.begin(), rest.end())) << "subset keeps x, y, z in order";
    for (const auto& s : rest) EXPECT_TRUE(s == "x" || s == "y" || s == "z") << s;
  }
  EXPECT_GT(distinct.size(), 20u) << "the draw varies";
  const Program p = parse_program("program @p() {\n  %x: f32[2] = param\n  %y: f32[2] = neg(%x)\n  return %y\n}\n", "p.ir");
  const Program q = parse_program("program @q() {\n  %x: f32[2] = param\n  %y: f32[2] = exp(%x)\n  return %y\n}\n", "q.ir");
  EXPECT_EQ(draw_orders(m.random_orders, p, 2), draw_orders(m.random_orders, p, 2));
  EXPECT_EQ(draw_orders(m.random_orders, p, 2).size(), 2u);
  std::set<std::vector<std::vector<std::string>>> per_program;
  for (const Program* x : {&p, &q}) per_program.insert(draw_orders(m.random_orders, *x, 4));
  EXPECT_EQ(per_program.size(), 2u) << "two programs drew the same four orders";
}

}  // namespace
}  // namespace difftest::backends
