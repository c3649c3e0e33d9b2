// The coverage classification (fuzz/coverage.h) on hand-written calls: the classes each must
// get, written out here, not computed by the code under test.
#include "fuzz/coverage.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "compiler/ir/printer.h"
#include "fuzz/generator.h"
#include "tests/support/ir_util.h"

namespace difftest {
namespace {

using Strings = std::vector<std::string>;

bool has(const Strings& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

const char* kProgram = R"(program @classes(n: 1..8, m: 2..4) {
  %a: f32[n, 1] = param
  %b: f32[1, 4] = param
  %c: f32[n, 4] = param
  %both: f32[n, 4] = sub(%a, %b)
  %one: f32[n, 4] = add(%c, %b)
  %x: f32[2, n, 4] = param
  %w: f32[4, 3] = param
  %lhs: f32[2, n, 3] = matmul(%x, %w)
  %v: f32[1, 4, 3] = param
  %bcast: f32[2, n, 3] = matmul(%x, %v, transpose_a=false)
  %s: f32[2, n] = sum(%x, axes=[-1])
  %r: f32[4, 2, n] = permute_dims(%x, axes=[2, 0, 1])
  %t: f32[2 * n, 2] = reshape(%c, shape=[2 * n, 2])
  %q: f32[1, m, 4, 8] = param
  %k: f32[1, m, 2, 8] = param
  %att: f32[1, m, 4, 8] = attention(%q, %k, %k, window=3, softcap=0.5)
  %h: f16[n, 4] = cast(%c, dtype=f16)
  return %both, %one, %lhs, %bcast, %s, %r, %t, %att, %h
}
)";

const Binding& call(const Program& p, const std::string& result) {
  for (const auto& b : p.bindings()) {
    if (b.is_call() && b.results().front().name() == result) return b;
  }
  throw std::logic_error("no call " + result);
}

TEST(Coverage, ShapeClassesOfBroadcastingAndMatmulBatches) {
  const Program p = testing::verified_program(kProgram, "coverage.ir");
  EXPECT_EQ(coverage::shape_classes(call(p, "both")), (Strings{"broadcast-both", "symbolic"}));
  EXPECT_EQ(coverage::shape_classes(call(p, "one")), (Strings{"broadcast-one", "symbolic"}));
  EXPECT_TRUE(has(coverage::shape_classes(call(p, "lhs")), "batch:lhs"));
  EXPECT_TRUE(has(coverage::shape_classes(call(p, "bcast")), "batch:broadcast"));
  EXPECT_TRUE(has(coverage::shape_classes(call(p, "r")), "rank=3"));
  EXPECT_EQ(coverage::shape_classes(call(p, "t")), (Strings{"derived", "same-rank"}));
  EXPECT_EQ(coverage::shape_classes(call(p, "att")), (Strings{"heads:gqa", "symbolic", "unit"}));
}

TEST(Coverage, AttributeClasses) {
  const Program p = testing::verified_program(kProgram, "coverage.ir");
  EXPECT_EQ(coverage::attribute_classes(call(p, "both")), (Strings{"-"}));
  EXPECT_TRUE(has(coverage::attribute_classes(call(p, "s")), "axes:negative"));
  EXPECT_TRUE(has(coverage::attribute_classes(call(p, "s")), "keepdims=false"));
  EXPECT_TRUE(has(coverage::attribute_classes(call(p, "bcast")), "transpose_a=false"));
  const auto att = coverage::attribute_classes(call(p, "att"));
  EXPECT_TRUE(has(att, "window>1"));
  EXPECT_TRUE(has(att, "softcap(0,1)"));
  EXPECT_TRUE(has(att, "sink=0"));
  EXPECT_FALSE(has(att, "acc:absent"));  // an absent optional attribute is no class
  EXPECT_EQ(coverage::attribute_classes(call(p, "h")), (Strings{"dtype=f16"}));
}

TEST(Coverage, CellsAreOpDtypeAttributeAndShapeClass) {
  const Program p = testing::verified_program(kProgram, "coverage.ir");
  EXPECT_EQ(coverage::call_cells(call(p, "both")), (Strings{"sub|f32|-|broadcast-both", "sub|f32|-|symbolic"}));
  coverage::Counts c;
  c.add_program(p);
  EXPECT_EQ(c.programs, 1);
  EXPECT_EQ(c.calls, 9);
  EXPECT_EQ(c.ops.at("matmul"), 2);
  EXPECT_EQ(c.shape_classes.at("matmul|batch:lhs"), 1);
  EXPECT_EQ(c.result_dtypes.at("cast|f16"), 1);
  coverage::Counts twice = c;
  twice.merge(c);
  EXPECT_EQ(twice.calls, 18);
  EXPECT_EQ(twice.cells.at("sub|f32|-|broadcast-both"), 2);
}

TEST(Coverage, ValueClasses) {
  EXPECT_EQ(coverage::value_classes(0.0, DType::f32), (Strings{"zero"}));
  EXPECT_EQ(coverage::value_classes(-0.0, DType::f32), (Strings{"negative-zero"}));
  EXPECT_EQ(coverage::value_classes(1e-40, DType::f32), (Strings{"subnormal"}));
  EXPECT_EQ(coverage::value_classes(1e-6, DType::f16), (Strings{"subnormal"}));  // below 2^-14
  EXPECT_EQ(coverage::value_classes(1e-6, DType::f32), (Strings{"tiny"}));
  EXPECT_EQ(coverage::value_classes(-2.5, DType::f32), (Strings{"unit", "tie"}));
  EXPECT_EQ(coverage::value_classes(100, DType::f32), (Strings{"large"}));
  EXPECT_EQ(coverage::value_classes(1e6, DType::f32), (Strings{"huge"}));
  EXPECT_EQ(coverage::value_classes(NAN, DType::f32), (Strings{"nan"}));
  EXPECT_EQ(coverage::value_classes(-INFINITY, DType::f32), (Strings{"inf"}));
}

// The picks that made nothing are counted when asked, and counting changes no program.
TEST(Coverage, DropsAreCountedWithoutChangingPrograms) {
  GenerationDrops drops;
  GeneratorOptions counted;
  counted.drops = &drops;
  for (uint64_t seed = 0; seed < 50; ++seed) {
    EXPECT_EQ(print(generate_program(seed, counted)), print(generate_program(seed))) << seed;
  }
  int64_t by_op = 0;
  for (const auto& [op, n] : drops.by_op) by_op += n;
  EXPECT_GT(by_op, 0);
  EXPECT_FALSE(drops.by_reason.empty());
}

}  // namespace
}  // namespace difftest
