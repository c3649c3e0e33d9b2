// docs/adding-a-backend.md's checklist, checked over every registered backend: a backend that
// lacks an item fails here, naming itself and the item.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "backends/backends.h"

namespace difftest::backends {
namespace {

namespace fs = std::filesystem;

std::string source_file(const std::string& relative) {
  std::ifstream f(fs::path(DIFFTEST_SOURCE_DIR) / relative);
  EXPECT_TRUE(f.good()) << relative;
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

bool contains(const std::vector<std::string>& list, const std::string& x) {
  return std::find(list.begin(), list.end(), x) != list.end();
}

TEST(BackendChecklist, EveryRegisteredBackendHasEveryItem) {
  const std::string backends_md = source_file("docs/backends.md");
  const std::string adding_md = source_file("docs/adding-a-backend.md");
  const std::string tests_cmake = source_file("tests/CMakeLists.txt");
  int external = 0;
  for (const Backend& b : all_backends()) {
    if (b.builtin()) continue;
    ++external;
    SCOPED_TRACE("backend " + b.name);
    const fs::path folder = fs::path(DIFFTEST_SOURCE_DIR) / "backends" / b.folder;
    EXPECT_FALSE(b.folder.empty()) << "1: no folder";
    EXPECT_TRUE(fs::is_directory(folder)) << "1: no folder " << folder;
    ASSERT_NE(b.compiler, nullptr);
    EXPECT_EQ(b.compiler->name(), b.name) << "1: records would name it otherwise";
    // 2: pinned, with hashes, and installed by scripts/setup.sh (this suite runs after it).
    const fs::path lock = folder / "requirements.lock";
    if (fs::exists(lock)) {
      std::ifstream f(lock);
      int pinned = 0;
      for (std::string line; std::getline(f, line);) {
        if (line.empty() || line[0] == '#') continue;
        ++pinned;
        EXPECT_NE(line.find("=="), std::string::npos) << "2: not pinned: " << line;
        EXPECT_NE(line.find("--hash=sha256:"), std::string::npos) << "2: no hash: " << line;
      }
      EXPECT_GT(pinned, 0) << "2: an empty requirements.lock";
    } else {
      EXPECT_TRUE(fs::exists(folder / "package-lock.json")) << "2: no lock file in " << folder;
    }
    EXPECT_EQ(b.missing(), "") << "2: not installed by scripts/setup.sh";
    // 3
    const std::string version = b.version();
    EXPECT_EQ(version.find("not installed"), std::string::npos) << "3: " << version;
    EXPECT_EQ(version.find("unknown"), std::string::npos) << "3: " << version;
    EXPECT_EQ(version.find("did not say"), std::string::npos) << "3: " << version;
    // 4
    EXPECT_FALSE(b.levels.empty()) << "4: no levels";
    EXPECT_FALSE(b.default_opt.empty()) << "4: no default check";
    for (const auto& l : b.default_opt) EXPECT_TRUE(contains(b.levels, l)) << "4: default level " << l;
    EXPECT_FALSE(b.cross_checks.empty()) << "4: no level is cross-checked against a baseline";
    for (const auto& [x, y] : b.cross_checks) {
      EXPECT_TRUE(contains(b.levels, x) && contains(b.levels, y)) << "4: cross-check " << x << "~" << y;
    }
    // 9, 10, 11
    EXPECT_NE(backends_md.find("(`--backend " + b.name + "`)"), std::string::npos)
        << "9: no section '(`--backend " << b.name << "`)' in docs/backends.md";
    EXPECT_NE(tests_cmake.find("--backend " + b.name), std::string::npos)
        << "10: no test in tests/CMakeLists.txt runs --backend " << b.name;
    EXPECT_NE(adding_md.find("| `" + b.name + "` | `backends/" + b.folder + "/` |"), std::string::npos)
        << "11: no row in docs/adding-a-backend.md's table";
  }
  EXPECT_GE(external, 2) << "ort and openvino are registered";
}

}  // namespace
}  // namespace difftest::backends
