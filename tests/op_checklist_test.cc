// Adding an op is one checklist (docs/adding-an-op.md): every op of the registry has every
// per-op aspect, each registered by its family (compiler/ops/op_table.h), and every family of
// the registry is on the one list of families. A missing aspect fails here by name, before any
// program meets the gap.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "compiler/ops/op_table.h"
#include "compiler/ops/special_values.h"
#include "compiler/passes/legalize/lowering.h"
#include "exporters/tvmscript/tvmscript.h"
#include "fuzz/builder.h"
#include "interop/onnx/export_context.h"
#include "reference/kernel.h"
#include "tolerance/bounds.h"

namespace difftest {
namespace {

TEST(OpChecklist, EveryFamilyIsOnTheListAndEveryListedFamilyHasOps) {
  std::set<std::string> used;
  for (const OpDef* op : OpRegistry::get().all()) {
    used.insert(op->family);
    EXPECT_NE(std::find(op_families().begin(), op_families().end(), op->family), op_families().end())
        << op->name << "'s family " << op->family << " is not in DIFFTEST_OP_FAMILY_LIST";
  }
  for (const auto& family : op_families()) EXPECT_TRUE(used.count(family)) << family << " has no op";
  EXPECT_EQ(op_families().size(), 9u);
}

template <typename Table>
std::vector<std::string> missing_from(const Table& table) {
  std::vector<std::string> missing;
  for (const OpDef* op : OpRegistry::get().all()) {
    if (!table.find(op->name)) missing.push_back(op->name);
  }
  return missing;
}

TEST(OpChecklist, EveryOpHasEveryAspect) {
  EXPECT_EQ(missing_from(reference::kernels()), std::vector<std::string>{}) << "without a reference kernel";
  EXPECT_EQ(missing_from(tolerance::rules()), std::vector<std::string>{}) << "without a bound rule";
  EXPECT_EQ(missing_from(passes::lowerings()), std::vector<std::string>{}) << "without a lowering";
  EXPECT_EQ(missing_from(fuzz::recipes()), std::vector<std::string>{}) << "without a generator recipe";
  std::vector<std::string> no_magnitude;
  for (const OpDef* op : OpRegistry::get().all()) {
    if (!fuzz::has_magnitude_rule(op->name)) no_magnitude.push_back(op->name);
  }
  EXPECT_EQ(no_magnitude, std::vector<std::string>{}) << "without a generator magnitude rule";
  EXPECT_EQ(missing_from(exporters::relax_op_table()), std::vector<std::string>{}) << "without a TVMScript entry";
  EXPECT_EQ(missing_from(interop::emitters()), std::vector<std::string>{}) << "without an ONNX emitter";
  std::vector<std::string> no_special_values;
  for (const OpDef* op : OpRegistry::get().all()) {
    if (!special_values_of(op->name)) no_special_values.push_back(op->name);
  }
  EXPECT_EQ(no_special_values, std::vector<std::string>{}) << "without a special-values rule (docs/ops.md)";
}

// The tables refuse what the registry does not have: an unknown op, an op registered under
// another family than its own, an op registered twice.
TEST(OpChecklist, ATableRefusesUnknownMisfiledAndDuplicateOps) {
  OpTable<int> table("test aspect");
  EXPECT_THROW(table.add("frobnicate", 1), InternalError);
  table.begin_family("reduction");
  EXPECT_THROW(table.add("exp", 1), InternalError);
  table.add("sum", 1);
  EXPECT_THROW(table.add("sum", 2), InternalError);
  ASSERT_NE(table.find("sum"), nullptr);
  EXPECT_EQ(*table.find("sum"), 1);
  EXPECT_EQ(table.find("mean"), nullptr);
}

// Each special-values rule names only registered ops, and no op twice.
TEST(OpChecklist, SpecialValueRulesNameEachOpOnce) {
  std::set<std::string> seen;
  for (const auto& rule : special_value_rules()) {
    for (const auto& op : rule.ops) {
      EXPECT_NE(OpRegistry::get().find(op), nullptr) << op;
      EXPECT_TRUE(seen.insert(op).second) << op << " is in two rules";
    }
  }
}

}  // namespace
}  // namespace difftest
