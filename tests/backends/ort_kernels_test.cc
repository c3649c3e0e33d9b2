// ONNX Runtime's table of CPU kernels (backends/onnxruntime/ort_kernels.h), against hand-written
// programs and against the pinned package itself: a model the table refuses is one ORT answers
// "unsupported" for, and one it accepts is one ORT compiles.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include "backends/backends.h"
#include "backends/kit/model_files.h"
#include "backends/onnxruntime/ort_kernels.h"
#include "backends/onnxruntime/ort_session.h"
#include "compiler/ir/parser.h"
#include "fuzz/generator.h"
#include "oracle/check/check.h"
#include "reference/inputs.h"

namespace difftest::backends {
namespace {

std::string missing(const std::string& text) {
  const WorkerModel model = export_onnx_model(parse_program(text, "kernels.ir"));
  EXPECT_TRUE(model.typed);
  return ort_missing_kernel(*model.typed);
}

TEST(OrtKernels, ListsThePinnedPackagesVersion) {
  EXPECT_EQ(ort_kernel_table_version(), ort_install().version);
  EXPECT_EQ(ort_kernel_table_version(), "1.30.0");
}

TEST(OrtKernels, AnF32ProgramOfCommonOpsHasEveryKernel) {
  EXPECT_EQ(missing(R"(program @f32() {
  %x: f32[4, 8] = param
  %w: f32[8, 3] = param
  %y: f32[4, 3] = matmul(%x, %w)
  %z: f32[4, 3] = relu(%y)
  %s: f32[4, 3] = softmax(%z, axis=-1)
  return %s
}
)"),
            "");
}

TEST(OrtKernels, AnIntegerReluHasNoKernelInI64) {
  EXPECT_EQ(missing(R"(program @relu_i64() {
  %x: i64[5] = param
  %y: i64[5] = relu(%x)
  return %y
}
)"),
            "no CPU kernel for Relu(14) with T = int64; its kernels take T = double, float, int32, int8");
}

TEST(OrtKernels, AnF16AddRunsInF32AndABf16AddHasNoKernel) {
  EXPECT_EQ(missing(R"(program @add_f16() {
  %x: f16[3] = param
  %y: f16[3] = param
  %z: f16[3] = add(%x, %y)
  return %z
}
)"),
            "")
      << "ORT casts an f16 node without an f16 kernel to f32";
  EXPECT_EQ(missing(R"(program @erf_f64() {
  %x: f64[3] = param
  %z: f64[3] = erf(%x)
  return %z
}
)"),
            "no CPU kernel for Erf(13) with T = double; its kernels take T = float");
}

// Programs drawn without the table (the generator's default dtypes, bf16 and f16 included):
// for each, the table's answer and ORT's own at its unoptimized level agree.
TEST(OrtKernels, AgreesWithThePackageOnGeneratedPrograms) {
  ASSERT_EQ(ort_install().missing, "");
  const Backend& ort = find_backend("ort", "test");
  int refused = 0, accepted = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    const Program p = generate_program(seed);
    WorkerModel model;
    try {
      model = export_onnx_model(p);
    } catch (const std::exception&) {
      continue;  // no ONNX form: not the table's question
    }
    const std::string why = ort_missing_kernel(*model.typed);
    oracle::CheckOptions o;
    o.compiler = ort.compiler;
    o.levels = {"disabled"};
    o.random_orders = 0;
    o.random_bindings = 0;
    o.bindings = {reference::standard_bindings(p).front()};
    const oracle::Verdict v = oracle::check_program(p, o);
    EXPECT_EQ(!why.empty(), v.overall() == oracle::VerdictKind::Unsupported)
        << "seed " << seed << ": the table says '" << why << "', ORT: "
        << (v.variants.empty() ? "" : v.variants.front().message);
    (why.empty() ? accepted : refused) += 1;
  }
  EXPECT_GT(refused, 3) << "the sample should hold programs the table refuses";
  EXPECT_GT(accepted, 10);
}

}  // namespace
}  // namespace difftest::backends
