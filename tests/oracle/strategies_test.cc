// The oracle's differential strategies: random orders recorded in the verdict, direct
// opt-level cross-checks, custom pass lists.
#include <gtest/gtest.h>

#include "compiler/ir/parser.h"
#include "oracle/check/check.h"
#include "reference/inputs.h"
#include "tests/support/builtin.h"

namespace difftest::oracle {
namespace {

const char* kProgram = R"(
program @p(n: 1..9) {
  %x: f32[n, 8] = param
  %w: f32[8, 5] = param
  %0: f32[n, 5] = matmul(%x, %w)
  %1: f32[n, 5] = exp(%0)
  return %1
}
)";

CheckOptions in_process() {
  CheckOptions o = testing::builtin_checks();
  o.isolate = false;
  o.random_bindings = 0;
  return o;
}

TEST(Strategies, RandomOrdersAreRecordedWithTheirPassesAndReproduce) {
  CheckOptions o = in_process();
  o.levels = {"O0"};
  o.random_orders = 2;
  const Program p = parse_program(kProgram);
  const Verdict a = check_program(p, o);
  const Verdict b = check_program(p, o);
  EXPECT_EQ(a.overall(), VerdictKind::Ok) << format_verdict(a, "a", backends::builtin_compiler());
  int orders = 0;
  for (size_t i = 0; i < a.variants.size(); ++i) {
    const VariantVerdict& v = a.variants[i];
    if (v.variant.name().rfind("order", 0) != 0) {
      EXPECT_FALSE(v.variant.tested.records_steps()) << v.variant.name();
      continue;
    }
    ++orders;
    const std::vector<std::string>& passes = v.variant.tested.steps;
    EXPECT_EQ(v.variant.tested.kind, VariantKind::RandomOrder);
    EXPECT_FALSE(passes.empty());
    EXPECT_EQ(v.to_json().at("passes"), passes);
    EXPECT_EQ(passes, b.variants[i].variant.tested.steps) << "orders must depend only on the program";
  }
  EXPECT_EQ(orders, 2 * static_cast<int>(reference::standard_bindings(p).size()));
}

TEST(Strategies, CrossChecksOptLevelsWhenBothRan) {
  CheckOptions o = in_process();
  o.levels = {"O0", "O3"};
  const Program p = parse_program(kProgram);
  const Verdict v = check_program(p, o);
  int pairs = 0;
  for (const auto& var : v.variants) {
    if (var.variant.name() != "O0~O3") continue;
    ++pairs;
    EXPECT_EQ(var.kind, VerdictKind::Ok) << var.message;
    EXPECT_LE(var.worst_ratio, 1.0);
  }
  EXPECT_EQ(pairs, static_cast<int>(reference::standard_bindings(p).size()));
  o.levels = {"O0"};
  for (const auto& var : check_program(p, o).variants) EXPECT_NE(var.variant.name(), "O0~O3");
}

TEST(Strategies, CustomPassListsAreCheckedAndSignedAsCustom) {
  CheckOptions o = in_process();
  o.levels = {};
  o.custom = {testing::custom_list(pipeline::Pipeline{"custom", {"DeadCodeElimination", "LegalizeOps"}, 2, true})};
  const Verdict v = check_program(parse_program(kProgram), o);
  ASSERT_FALSE(v.variants.empty());
  // Listed with the flags that compile it again, FMA contraction included.
  const std::string printed = format_verdict(v, "t", backends::builtin_compiler());
  EXPECT_NE(printed.find("  custom = --passes DeadCodeElimination,LegalizeOps --passes-llvm 2 --passes-fma\n"),
            std::string::npos)
      << printed;
  for (const auto& var : v.variants) {
    EXPECT_EQ(var.variant.name(), "custom");
    EXPECT_EQ(backends::builtin_pipeline(var.variant.tested).llvm_opt_level, 2);
    EXPECT_EQ(var.kind, VerdictKind::Ok);
  }
  VariantVerdict failing = v.variants.front();
  failing.kind = VerdictKind::CompileCrash;
  failing.stage = Stage::compile("DeadCodeElimination");
  failing.variant.tested.kind = VariantKind::RandomOrder;
  failing.variant.tested.label = "order2";
  EXPECT_EQ(failing.signature().str().find("compile_crash|custom|DeadCodeElimination|"), 0u)
      << failing.signature().str();
}

TEST(Strategies, ComparesASymbolicCompileWithAShapeSpecializedOne) {
  CheckOptions o = in_process();
  o.levels = {"O0", "O2"};
  const Verdict v = check_program(parse_program(kProgram), o);
  int specialized = 0, paired = 0;
  for (const auto& var : v.variants) {
    if (var.variant.name() == "O2-specialized") ++specialized;
    if (var.variant.name() == "O2~O2-specialized") ++paired;
    if (var.variant.name().find("specialized") != std::string::npos) {
      EXPECT_EQ(var.kind, VerdictKind::Ok) << var.message;
    }
  }
  EXPECT_EQ(specialized, 1);
  EXPECT_EQ(paired, 1);
  o.specialize = false;
  for (const auto& var : check_program(parse_program(kProgram), o).variants) {
    EXPECT_EQ(var.variant.name().find("specialized"), std::string::npos);
  }
}

}  // namespace
}  // namespace difftest::oracle
