// Adding a pass is one checklist (docs/adding-a-pass.md): every pass of the registry has its
// file, its cases, its property test and its documentation (a codegen step: its file, its LLVM
// IR cases and its paragraph), and every step of a named pipeline says why it stands there. A
// missing item fails here by the pass's name.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "compiler/pipeline/pass_manager.h"
#include "compiler/pipeline/pipelines.h"

namespace difftest {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = DIFFTEST_SOURCE_DIR;

// FuseAddRMSNorm -> fuse_add_rms_norm, LICM -> licm, ScheduleGEMV -> schedule_gemv.
std::string file_stem(const std::string& pass) {
  std::string out;
  for (size_t i = 0; i < pass.size(); ++i) {
    const bool upper = std::isupper(static_cast<unsigned char>(pass[i]));
    const bool after_lower = i > 0 && std::islower(static_cast<unsigned char>(pass[i - 1]));
    const bool before_lower = i + 1 < pass.size() && std::islower(static_cast<unsigned char>(pass[i + 1]));
    const bool after_upper = i > 0 && std::isupper(static_cast<unsigned char>(pass[i - 1]));
    if (upper && i > 0 && (after_lower || (after_upper && before_lower))) out += '_';
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(pass[i])));
  }
  return out;
}

std::string text_of(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(PassChecklist, FileStemsFollowThePassNames) {
  EXPECT_EQ(file_stem("FuseAddRMSNorm"), "fuse_add_rms_norm");
  EXPECT_EQ(file_stem("LICM"), "licm");
  EXPECT_EQ(file_stem("ScheduleGEMV"), "schedule_gemv");
  EXPECT_EQ(file_stem("CommonSubexprElimination"), "common_subexpr_elimination");
}

TEST(PassChecklist, EveryPassHasItsFileCasesPropertyAndDocumentation) {
  const std::string passes_md = text_of(kSource / "docs/passes.md");
  const std::string compiler_md = text_of(kSource / "docs/compiler.md");
  for (const auto& pass : pipeline::all_passes()) {
    const std::string stem = file_stem(pass.name);
    if (pass.kind == pipeline::PassKind::Codegen) {
      // A rewrite of LLVM IR: its file in codegen/, its cases on LLVM IR text, its paragraph in
      // docs/compiler.md (its values are checked end to end by the machine-code tests).
      EXPECT_TRUE(fs::exists(kSource / "compiler/codegen" / (stem + ".cc"))) << pass.name << ": no compiler/codegen/" << stem << ".cc";
      EXPECT_TRUE(fs::exists(kSource / "tests/compiler" / (stem + "_test.cc")))
          << pass.name << ": no tests/compiler/" << stem << "_test.cc";
      EXPECT_NE(compiler_md.find("**" + pass.name + "**"), std::string::npos) << pass.name << ": no entry in docs/compiler.md";
      continue;
    }
    EXPECT_TRUE(fs::exists(kSource / "compiler/passes" / (stem + ".cc")) ||
                fs::exists(kSource / "compiler/passes/schedule" / (stem + ".cc")))
        << pass.name << ": no compiler/passes/" << stem << ".cc (or schedule/)";
    EXPECT_TRUE(fs::exists(kSource / "tests/compiler/passes" / (stem + "_test.cc")))
        << pass.name << ": no tests/compiler/passes/" << stem << "_test.cc (its reference-preservation property)";
    const fs::path cases = kSource / "tests/passes" / pass.name;
    bool has_case = false;
    if (fs::is_directory(cases)) {
      for (const auto& f : fs::directory_iterator(cases)) has_case = has_case || f.path().extension() == ".ir";
    }
    EXPECT_TRUE(has_case) << pass.name << ": no tests/passes/" << pass.name << "/*.ir";
    if (pass.kind == pipeline::PassKind::Lowering) {
      EXPECT_NE(compiler_md.find("## " + pass.name), std::string::npos) << pass.name << ": no section in docs/compiler.md";
    } else {
      EXPECT_NE(passes_md.find("**" + pass.name + "**"), std::string::npos) << pass.name << ": no entry in docs/passes.md";
    }
  }
}

TEST(PassChecklist, EveryStepOfANamedPipelineSaysWhyItStandsThere) {
  for (const auto& p : pipeline::pipelines()) {
    ASSERT_EQ(p.reasons.size(), p.passes.size()) << p.name;
    for (size_t i = 0; i < p.passes.size(); ++i) {
      EXPECT_NO_THROW(pipeline::find_pass(p.passes[i])) << p.name;
      EXPECT_FALSE(p.reasons[i].empty()) << p.name << " step " << i << " (" << p.passes[i] << ")";
    }
  }
}

}  // namespace
}  // namespace difftest
