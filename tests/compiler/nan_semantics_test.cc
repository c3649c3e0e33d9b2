// NaN semantics of the extreme-value ops (docs/ops.md): max and min propagate a NaN, argmax and
// argmin give the first NaN's index, as NumPy and ONNX do. The reference and every pipeline
// must agree with the values written out here; the bounded comparison cannot check them (a
// program whose reference is not finite is invalid), so this compares directly.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/pipelines.h"
#include "reference/reference.h"
#include "tests/support/ir_util.h"

namespace difftest {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

constexpr const char* kExtremes = R"(program @extremes() {
  %a: f32[3, 3] = param
  %mx: f32[3] = max(%a, axes=[1])
  %mn: f32[3] = min(%a, axes=[1])
  %amx: i64[3] = argmax(%a, axis=1)
  %amn: i64[3] = argmin(%a, axis=1)
  return %mx, %mn, %amx, %amn
}
)";

// Row 0 has a NaN in the middle, row 1 two NaNs around a 0, row 2 none.
const std::vector<std::vector<double>> kWant = {{kNaN, kNaN, 5}, {kNaN, kNaN, 2}, {1, 0, 1}, {1, 0, 0}};

void expect_extremes(const std::vector<Tensor>& got, const std::string& who) {
  ASSERT_EQ(got.size(), kWant.size()) << who;
  const char* names[] = {"max", "min", "argmax", "argmin"};
  for (size_t o = 0; o < kWant.size(); ++o) {
    for (size_t i = 0; i < 3; ++i) {
      const double g = got[o].get(static_cast<int64_t>(i)), w = kWant[o][i];
      EXPECT_TRUE(std::isnan(w) ? std::isnan(g) : g == w) << who << " " << names[o] << "[" << i << "] = " << g;
    }
  }
}

TEST(NanSemantics, ExtremesPropagateNaNInTheReferenceAndEveryPipeline) {
  const Program p = testing::verified_program(kExtremes, "extremes.ir");
  const std::map<std::string, Tensor> inputs = {
      {"a", Tensor::from_doubles(DType::f32, {3, 3}, {1, kNaN, 3, kNaN, 0, kNaN, 2, 5, 4})}};
  expect_extremes(reference::evaluate(p, {}, inputs, reference::Mode::F64).outputs, "reference f64");
  expect_extremes(reference::evaluate(p, {}, inputs, reference::Mode::Native).outputs, "reference native");
  for (const auto& pipeline : pipeline::pipelines()) {
    expect_extremes(pipeline::compile(p, pipeline).run(inputs), pipeline.name);
  }
}

}  // namespace
}  // namespace difftest
