// A manifest (backends/manifest/manifest.h) read as written, its defaults derived, and each kind
// of mistake refused with the file and the field.
#include "backends/manifest/manifest.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "compiler/ir/diagnostics.h"

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

}  // namespace
}  // namespace difftest::backends
