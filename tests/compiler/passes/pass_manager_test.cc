// The pass manager: opt-bisect numbering and limits, disabled passes, ordering errors,
// printing only after a change, pass-list parsing.
#include "compiler/pipeline/pass_manager.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "compiler/support/diagnostics.h"
#include "compiler/pipeline/pipelines.h"
#include "tests/support/pass_testing.h"

namespace difftest::pipeline {
namespace {

const char* kDeadCode = R"(
program @p(n: 1..8) {
  %x: f32[n, 4] = param
  %0: f32[n, 4] = exp(%x)
  %1: f32[n, 4] = neg(%x)
  return %0
}
)";

std::vector<std::string> events(const std::vector<std::string>& passes, int limit, std::set<std::string> disabled = {}) {
  std::vector<std::string> log;
  RunOptions o;
  o.context.bisect_limit = limit;
  o.disabled = std::move(disabled);
  o.on_event = [&](const PassEvent& e) { log.push_back(bisect_line(e)); };
  run_passes(testing::parse_case(kDeadCode), passes, o);
  return log;
}

TEST(PassManager, NumbersApplicationsLikeOptBisectAndStopsAtTheLimit) {
  const std::vector<std::string> passes = {"DeadCodeElimination", "DeadCodeElimination", "LegalizeOps"};
  EXPECT_EQ(events(passes, -1), (std::vector<std::string>{"BISECT: running pass (1) DeadCodeElimination",
                                                          "BISECT: running pass (2) DeadCodeElimination",
                                                          "BISECT: running pass (3) LegalizeOps (required)"}));
  EXPECT_EQ(events(passes, 1), (std::vector<std::string>{"BISECT: running pass (1) DeadCodeElimination",
                                                         "BISECT: NOT running pass (2) DeadCodeElimination",
                                                         "BISECT: running pass (3) LegalizeOps (required)"}));
  EXPECT_EQ(events(passes, 0)[0], "BISECT: NOT running pass (1) DeadCodeElimination");
}

TEST(PassManager, TheLimitDecidesWhatRuns) {
  const Program p = testing::parse_case(kDeadCode);
  RunOptions o;
  o.context.bisect_limit = 0;
  EXPECT_EQ(run_passes(p, {"DeadCodeElimination", "LegalizeOps"}, o).module.calls.size(), 2u);
  o.context.bisect_limit = 1;
  EXPECT_EQ(run_passes(p, {"DeadCodeElimination", "LegalizeOps"}, o).module.calls.size(), 1u);
}

// The passes that changed the IR are listed (coverage maps count them): the first DCE removes
// the dead neg, the second finds nothing; LegalizeOps always counts; a second LoopSimplify has
// nothing left to simplify.
TEST(PassManager, ListsThePassesThatChangedTheProgram) {
  const Program p = testing::parse_case(kDeadCode);
  EXPECT_EQ(run_passes(p, {"DeadCodeElimination", "DeadCodeElimination", "LegalizeOps"}).changed,
            (std::vector<std::string>{"DeadCodeElimination", "LegalizeOps"}));
  const Lowered twice = run_passes(p, {"LegalizeOps", "LoopSimplify", "LoopSimplify"});
  ASSERT_FALSE(twice.changed.empty());
  EXPECT_EQ(twice.changed.front(), "LegalizeOps");
  // What LoopSimplify does it does once: a second application changes nothing.
  EXPECT_LE(std::count(twice.changed.begin(), twice.changed.end(), "LoopSimplify"), 1);
}

TEST(PassManager, DisabledPassesAreDroppedAndNotNumbered) {
  EXPECT_EQ(events({"DeadCodeElimination", "LegalizeOps"}, -1, {"DeadCodeElimination"}),
            (std::vector<std::string>{"BISECT: running pass (1) LegalizeOps (required)"}));
  const Program p = testing::parse_case(kDeadCode);
  RunOptions o;
  o.disabled = {"DeadCodeElimination"};
  EXPECT_EQ(run_passes(p, {"DeadCodeElimination", "LegalizeOps"}, o).module.calls.size(), 2u);
}

TEST(PassManager, PrintsOnlyAfterAPassThatChangedTheProgram) {
  std::vector<std::string> printed;
  RunOptions o;
  o.context.diagnostics = [&](const std::string& pass, const std::string&) { printed.push_back(pass); };
  run_passes(testing::parse_case(kDeadCode), {"DeadCodeElimination", "DeadCodeElimination", "LegalizeOps"}, o);
  EXPECT_EQ(printed, (std::vector<std::string>{"DeadCodeElimination", "LegalizeOps"}));
}

TEST(PassManager, RefusesBadOrders) {
  const Program p = testing::parse_case(kDeadCode);
  EXPECT_THROW(run_passes(p, {"LegalizeOps", "DeadCodeElimination"}), UserError);
  EXPECT_THROW(run_passes(p, {"DeadCodeElimination"}), UserError);
  EXPECT_THROW(run_passes(p, {"LegalizeOps", "LegalizeOps"}), UserError);
  EXPECT_THROW(run_passes(p, {"NoSuchPass", "LegalizeOps"}), UserError);
}

TEST(PassManager, ParsesPassLists) {
  EXPECT_EQ(parse_pass_list("DeadCodeElimination, LegalizeOps", "--passes"),
            (std::vector<std::string>{"DeadCodeElimination", "LegalizeOps"}));
  try {
    parse_pass_list("DeadCodeElimination,,LegalizeOps", "--passes");
    FAIL() << "an empty name was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("--passes: empty pass name"), std::string::npos) << e.what();
  }
  try {
    parse_pass_list("Nope", "--passes");
    FAIL() << "an unknown pass was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown pass 'Nope'"), std::string::npos) << e.what();
  }
}

// The optional codegen steps a compile applies are numbered after its pass list, so a limit
// below them skips them (and culprit bisection can name them); only those within it come back.
TEST(PassManager, NumbersTheCodegenStepsAfterThePassList) {
  const Program p = testing::parse_case(kDeadCode);
  auto run = [&](int limit, std::vector<std::string>& log) {
    RunOptions o;
    o.context.bisect_limit = limit;
    o.codegen_steps = {"ContractMultiplyAdds"};
    o.on_event = [&](const PassEvent& e) { log.push_back(bisect_line(e)); };
    return run_passes(p, {"DeadCodeElimination", "LegalizeOps"}, o).codegen_steps;
  };
  std::vector<std::string> all, below;
  EXPECT_EQ(run(-1, all), (std::vector<std::string>{"ContractMultiplyAdds"}));
  EXPECT_EQ(all.back(), "BISECT: running pass (3) ContractMultiplyAdds");
  EXPECT_TRUE(run(2, below).empty());
  EXPECT_EQ(below.back(), "BISECT: NOT running pass (3) ContractMultiplyAdds");
}

// Which codegen steps a pipeline applies: contraction where it allows it and the target has FMA.
TEST(PassManager, OnlyAContractingPipelineOnAnFmaTargetContracts) {
  const target::Target& fma = target::find_target("avx2", "--target");
  const target::Target& no_fma = target::find_target("avx", "--target");
  EXPECT_EQ(codegen_steps(find_pipeline("O3"), fma), (std::vector<std::string>{"ContractMultiplyAdds"}));
  EXPECT_TRUE(codegen_steps(find_pipeline("O3"), no_fma).empty());
  EXPECT_TRUE(codegen_steps(find_pipeline("O2"), fma).empty());
}

// A codegen step is the variant's setting, not a pass of a list.
TEST(PassManager, RefusesACodegenStepInAPassList) {
  try {
    parse_pass_list("LegalizeOps,ContractMultiplyAdds", "--passes");
    FAIL() << "a codegen step was accepted in a pass list";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("ContractMultiplyAdds is a step of the code generator"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(run_passes(testing::parse_case(kDeadCode), {"LegalizeOps", "ScalarHalvesAsBits"}), UserError);
}

TEST(PassManager, EveryPassIsDescribedAndEveryPipelineIsRunnable) {
  for (const auto& p : all_passes()) {
    EXPECT_FALSE(p.description.empty()) << p.name;
    EXPECT_EQ(p.description.find('\n'), std::string::npos) << p.name;
  }
  const Program prog = testing::parse_case(kDeadCode);
  for (const auto& pipe : pipelines()) {
    EXPECT_NO_THROW(run_passes(prog, pipe.passes)) << pipe.name;
  }
}

}  // namespace
}  // namespace difftest::pipeline
