// Every form the TVMScript exporter writes is a module the pinned Apache TVM (0.27) accepts: each
// corpus program, and generated programs of every op with only that op weighted, are exported as
// the TVM backend hands them over (exporters/tvmscript: export_tvmscript_module) and parsed by
// TVM's own TVMScript parser in one interpreter of build/tvm/venv (backends/tvm/tvm_levels.py
// load_program), which also runs TVM's well-formedness check. Each is then built at the `O0`
// level; what TVM refuses to build is printed by op (findings and documented limits, counted in
// docs/backends.md), not asserted: the parse is the exporter's contract, the build TVM's. A program
// in a form TVM documents it does not take (tvm_unsupported_form) is not handed over.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "compiler/ir/parser.h"
#include "compiler/ops/op.h"
#include "exporters/tvmscript/tvmscript.h"
#include "fuzz/generator.h"
#include "tests/support/one_op_programs.h"
#include "tests/support/run_command.h"

namespace difftest::exporters {
namespace {

namespace fs = std::filesystem;

std::string run(const std::string& command) { return testing::run_command(command).output; }

// Loads each module with TVM's parser, then builds it as the O0 level does; one line per file:
// "PARSE_FAIL\tFILE\tERROR", "BUILD_FAIL\tFILE\tERROR" or "OK\tFILE".
constexpr const char* kChecker = R"PY(
import json, sys, traceback
sys.path.insert(0, sys.argv[1])
import tvm
from tvm import relax
from tvm_levels import apply_level, level_context, load_program
config = json.load(open(sys.argv[2]))
for f in sys.argv[3:]:
    try:
        module, _ = load_program(f)
    except Exception as e:
        print("PARSE_FAIL\t" + f + "\t" + (type(e).__name__ + ": " + str(e)).replace("\n", " ")[:300])
        continue
    try:
        with level_context(config, []):
            mod = apply_level(module, config)
            relax.build(mod, target=tvm.target.Target(config.get("target", "llvm")))
        print("OK\t" + f)
    except Exception as e:
        print("BUILD_FAIL\t" + f + "\t" + (type(e).__name__ + ": " + str(e)).replace("\n", " ")[:300])
print("checked", len(sys.argv) - 3)
)PY";

struct Module {
  std::string label;
  std::string op;  // the one op weighted, or "" for a corpus program
  std::string text;
};

TEST(TvmScriptOnTvm, EveryFormTheExporterWritesIsParsedByTvm) {
  std::vector<Module> modules;
  for (const auto& entry : fs::directory_iterator(fs::path(DIFFTEST_SOURCE_DIR) / "corpus")) {
    if (entry.path().extension() != ".ir") continue;
    const Program p = parse_program_file(entry.path().string());
    modules.push_back({entry.path().filename().string(), "", export_tvmscript_module(p).text});
  }
  std::set<std::string> covered;
  int not_handed = 0;
  for (const OpDef* op : OpRegistry::get().all()) {
    int handed = 0;
    for (uint64_t seed = 7; seed < 20 && handed < 2; ++seed) {
      const Program p = generate_program(seed, testing::only_op(op->name));
      for (const Binding& b : p.bindings()) {
        if (b.is_call()) covered.insert(b.op().name);
      }
      if (const std::string why = tvm_unsupported_form(p); !why.empty()) {
        std::cout << fmt::format("only {} (seed {}): not handed to TVM: {}\n", op->name, seed, why);
        ++not_handed;
        continue;
      }
      modules.push_back({fmt::format("only {} (seed {})", op->name, seed), op->name, export_tvmscript_module(p).text});
      ++handed;
    }
  }
  for (const OpDef* op : OpRegistry::get().all()) EXPECT_TRUE(covered.count(op->name)) << op->name << " never generated";

  const fs::path dir = fs::temp_directory_path() / fmt::format("tvmscript_on_tvm.{}", ::getpid());
  fs::create_directories(dir);
  std::string args;
  std::map<std::string, const Module*> of_file;
  for (size_t i = 0; i < modules.size(); ++i) {
    const fs::path f = dir / fmt::format("program_{}.py", i);
    std::ofstream(f) << modules[i].text;
    args += " " + f.string();
    of_file[f.string()] = &modules[i];
  }
  std::ifstream manifest(fs::path(DIFFTEST_SOURCE_DIR) / "backends/tvm/manifest.json");
  const nlohmann::json levels = nlohmann::json::parse(manifest).at("levels");
  std::ofstream(dir / "o0.json") << levels.at(0).at("config").dump();
  ASSERT_EQ(levels.at(0).at("name"), "O0");
  std::ofstream(dir / "check.py") << kChecker;
  const std::string out = run(fmt::format("{} {} {} {} {} 2>&1", DIFFTEST_TVM_PYTHON, (dir / "check.py").string(),
                                          (fs::path(DIFFTEST_SOURCE_DIR) / "backends/tvm").string(), (dir / "o0.json").string(),
                                          args));
  fs::remove_all(dir);
  ASSERT_NE(out.find(fmt::format("checked {}", modules.size())), std::string::npos) << out;
  std::map<std::string, int> refused_by_op;
  int built = 0;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    const std::string kind = line.substr(0, tab);
    const size_t tab2 = line.find('\t', tab + 1);
    const std::string file = line.substr(tab + 1, tab2 == std::string::npos ? std::string::npos : tab2 - tab - 1);
    const Module* m = of_file.at(file);
    if (kind == "PARSE_FAIL") {
      ADD_FAILURE() << m->label << ": TVM's parser refused the module: " << line.substr(tab2 + 1) << "\n" << m->text;
    } else if (kind == "BUILD_FAIL") {
      ++refused_by_op[m->op.empty() ? m->label : m->op];
      std::cout << "refused at O0: " << m->label << ": " << line.substr(tab2 + 1) << "\n";
    } else if (kind == "OK") {
      ++built;
    }
  }
  std::cout << fmt::format("{} modules parsed; {} built at O0; refused by op:", modules.size(), built);
  for (const auto& [op, n] : refused_by_op) std::cout << fmt::format(" {} {}", op, n);
  std::cout << "\n";
  EXPECT_GT(built, static_cast<int>(modules.size()) * 3 / 4) << "most forms must also build";
  EXPECT_LT(not_handed, 8) << "a form TVM does not take is an exception";
}

}  // namespace
}  // namespace difftest::exporters
