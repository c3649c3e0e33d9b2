// The property tests draw programs from RapidCheck (tests/support/rc_choices.h) through the same
// generator as the seeded campaigns. This measures whether that choice source reaches the same
// breadth: it draws programs in a property, counts their classes (fuzz/coverage.h) beside the
// same number of seeded programs, prints both distributions, and fails when a breadth class the
// seeded generator reaches is never reached under RapidCheck, or when an op's share differs by
// more than half of the seeded share plus two points.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cmath>

#include "fuzz/coverage.h"
#include "fuzz/generator.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

constexpr int kPrograms = 400;

double share(const coverage::Counts& c, const std::string& op) {
  const auto it = c.ops.find(op);
  return it == c.ops.end() ? 0 : static_cast<double>(it->second) / static_cast<double>(c.calls);
}

int64_t count(const std::map<std::string, int64_t>& m, const std::string& key) {
  const auto it = m.find(key);
  return it == m.end() ? 0 : it->second;
}

TEST(RapidCheckBreadth, PropertiesReachTheSeededGeneratorsDistribution) {
  coverage::Counts rc_counts, seeded;
  rc::detail::TestParams params;
  params.maxSuccess = kPrograms;
  params.maxSize = 100;
  params.seed = 45;  // a fixed draw: the measurement and its verdict repeat
  const auto result = rc::detail::checkTestable(
      [&] {
        testing::RcChoices c;
        rc_counts.add_program(generate_program(c));
      },
      rc::detail::TestMetadata{}, params);
  ASSERT_TRUE(result.template is<rc::detail::SuccessResult>());
  for (uint64_t seed = 0; seed < kPrograms; ++seed) seeded.add_program(generate_program(seed));
  ASSERT_EQ(rc_counts.programs, kPrograms);

  double distance = 0;  // total variation distance between the op distributions
  for (const auto& [op, w] : default_op_weights()) distance += std::fabs(share(rc_counts, op) - share(seeded, op));
  distance /= 2;
  fmt::print("{} programs each: RapidCheck {} calls, {} cells; seeded {} calls, {} cells; op distributions "
             "differ by {:.3f} (total variation)\n",
             kPrograms, rc_counts.calls, rc_counts.cells.size(), seeded.calls, seeded.cells.size(), distance);
  for (const auto& [op, w] : default_op_weights()) {
    const double r = share(rc_counts, op), s = share(seeded, op);
    EXPECT_LE(std::fabs(r - s), s / 2 + 0.02) << op << ": RapidCheck " << r << ", seeded " << s;
  }
  for (const auto& cls : {"add|broadcast-both", "matmul|batch:rhs", "matmul|batch:broadcast", "reshape|same-rank",
                          "attention|heads:gqa", "permute_dims|rank=4"}) {
    fmt::print("  {:<24} RapidCheck {:>4}  seeded {:>4}\n", cls, count(rc_counts.shape_classes, cls),
               count(seeded.shape_classes, cls));
    if (count(seeded.shape_classes, cls) > 0) {
      EXPECT_GT(count(rc_counts.shape_classes, cls), 0) << cls;
    }
  }
  for (const auto& cls : {"sum|axes:negative", "attention|softcap>1", "attention|window>1", "dequantize|dtype=f64"}) {
    fmt::print("  {:<24} RapidCheck {:>4}  seeded {:>4}\n", cls, count(rc_counts.attribute_classes, cls),
               count(seeded.attribute_classes, cls));
    if (count(seeded.attribute_classes, cls) > 0) {
      EXPECT_GT(count(rc_counts.attribute_classes, cls), 0) << cls;
    }
  }
}

}  // namespace
}  // namespace difftest
