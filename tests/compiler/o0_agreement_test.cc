// Every op compiled at O0 agrees with the bounded reference.
//
// Cases are IR files under tests/compiler/o0_cases/<family>/; each is compiled once and run
// at several bindings of its dims: every dim at its lower bound, at 13 (not a multiple of
// 4/8/16; clamped into the range) and at its upper bound, unless the file says otherwise with
// `# bind: n=1,m=3 | n=5,m=7`. A last test checks that the cases cover the whole registry.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "compiler/ir/parser.h"
#include "compiler/ir/verifier.h"
#include "compiler/ops/op.h"
#include "compiler/pipeline/compile.h"
#include "reference/inputs.h"
#include "reference/summary.h"
#include "tolerance/bounds.h"
#include "tolerance/compare.h"

namespace difftest {
namespace {

namespace fs = std::filesystem;

const fs::path kCases = fs::path(DIFFTEST_SOURCE_DIR) / "tests/compiler/o0_cases";

std::vector<std::string> case_files() {
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(kCases)) {
    if (e.path().extension() == ".ir") files.push_back(fs::relative(e.path(), kCases).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<sym::Env> bindings_of(const Program& p, const std::string& text) {
  std::vector<sym::Env> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("# bind:", 0) != 0) continue;
    std::istringstream alternatives(line.substr(7));
    for (std::string alt; std::getline(alternatives, alt, '|');) out.push_back(reference::parse_binding(alt, "# bind"));
  }
  if (!out.empty() || p.dims().empty()) return out.empty() ? std::vector<sym::Env>{{}} : out;
  for (const int64_t target : {int64_t{-1}, int64_t{13}, int64_t{-2}}) {
    sym::Env env;
    for (const auto& d : p.dims()) {
      env[d.name] = target == -1 ? d.range.lo : target == -2 ? d.range.hi : std::clamp(target, d.range.lo, d.range.hi);
    }
    if (std::find(out.begin(), out.end(), env) == out.end()) out.push_back(env);
  }
  return out;
}

class O0Agreement : public ::testing::TestWithParam<std::string> {};

TEST_P(O0Agreement, CompiledOutputsAreWithinTheirBounds) {
  const fs::path path = kCases / GetParam();
  const std::string text = read_text_file(path.string());
  const Program p = parse_program(text, path.string());
  verify(p);
  const runtime::Executable exe = pipeline::compile(p, pipeline::find_pipeline("O0"));
  tolerance::Options opt;
  opt.mode = tolerance::BoundMode::Probabilistic;
  for (const sym::Env& given : bindings_of(p, text)) {
    const sym::Env env = reference::resolve_binding(p, given, nullptr);
    const auto inputs = reference::generate_inputs(p, env, 1);
    const auto bounds = tolerance::bound_program(p, env, inputs, opt);
    ASSERT_FALSE(bounds.invalid) << reference::binding_str(env) << ": " << bounds.invalid_reason;
    const auto got = exe.run(inputs, env);
    const auto c = tolerance::compare_outputs(p, bounds, got, opt);
    for (const auto& o : c.outputs) {
      EXPECT_TRUE(o.passed()) << GetParam() << " under " << reference::binding_str(env) << ": output " << o.name
                              << " failing=" << o.failing << " of " << o.compared << ", worst ratio " << o.worst_ratio
                              << " at element " << ::testing::PrintToString(o.worst_index) << ": got " << o.got
                              << " want " << o.want << " bound " << o.bound;
      EXPECT_GT(o.compared + o.uncertain, 0) << o.name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, O0Agreement, ::testing::ValuesIn(case_files()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(0, info.param.size() - 3);
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
                         });

TEST(O0Coverage, EveryRegisteredOpHasACase) {
  std::set<std::string> covered;
  for (const auto& f : case_files()) {
    const Program p = parse_program(read_text_file((kCases / f).string()), f);
    for (const auto& b : p.bindings()) {
      if (b.is_call()) covered.insert(b.op().name);
    }
  }
  std::vector<std::string> missing;
  for (const auto* op : OpRegistry::get().all()) {
    if (!covered.count(op->name)) missing.push_back(op->name);
  }
  EXPECT_TRUE(missing.empty()) << "ops without an O0 case: " << ::testing::PrintToString(missing);
}

}  // namespace
}  // namespace difftest
