#include "oracle/check/wire.h"

#include <gtest/gtest.h>

#include "compiler/support/diagnostics.h"

namespace difftest::oracle {
namespace {

TEST(Wire, TensorsOfEveryDtypeSurviveARoundTrip) {
  std::vector<Tensor> ts;
  int k = 0;
  for (DType t : kAllDTypes) {
    Tensor x(t, {2, 3});
    for (int64_t i = 0; i < x.numel(); ++i) x.set(i, static_cast<double>((k++ * 37) % 11) - 5);
    ts.push_back(x);
  }
  ts.push_back(Tensor(DType::f32, {}));
  ts.push_back(Tensor(DType::f16, {0, 4}));
  const auto back = decode_tensors(encode_tensors(ts));
  ASSERT_EQ(back.size(), ts.size());
  for (size_t i = 0; i < ts.size(); ++i) EXPECT_TRUE(back[i].same_bytes(ts[i])) << i;
}

TEST(Wire, TruncatedOrPaddedStreamsAreRefused) {
  const std::string s = encode_tensors({Tensor(DType::i32, {4})});
  EXPECT_THROW(decode_tensors(s.substr(0, s.size() - 1)), InternalError);
  EXPECT_THROW(decode_tensors(s + "x"), InternalError);
}

TEST(Wire, ACompilesRunsSurviveARoundTrip) {
  CompiledRuns runs;
  runs.compile_ms = 12.5;
  runs.kernels = 7;
  for (int i = 0; i < 2; ++i) {
    Tensor t(DType::f32, {2, 2});
    for (int64_t k = 0; k < 4; ++k) t.set(k, static_cast<double>(i * 10 + k));
    runs.runs.push_back({0.25 * (i + 1), {t, Tensor(DType::i32, {3})}, ""});
  }
  runs.exercised = {"pass:FuseOps", "pass:LegalizeOps"};
  const std::string s = encode_compiled_runs(runs);
  const CompiledRuns back = decode_compiled_runs(s);
  EXPECT_EQ(back.exercised, runs.exercised);
  EXPECT_EQ(back.compile_ms, 12.5);
  EXPECT_EQ(back.kernels, 7u);
  ASSERT_EQ(back.runs.size(), 2u);
  EXPECT_EQ(back.runs[1].run_ms, 0.5);
  ASSERT_EQ(back.runs[1].outputs.size(), 2u);
  EXPECT_TRUE(back.runs[1].outputs[0].same_bytes(runs.runs[1].outputs[0]));
  EXPECT_THROW(decode_compiled_runs(s.substr(0, s.size() - 1)), InternalError);
  EXPECT_THROW(decode_compiled_runs(s + "x"), InternalError);
}

TEST(Wire, StagesSurviveARoundTripAndBadOnesAreRefused) {
  for (const Stage& stage : {Stage::reference(), Stage::compile(), Stage::compile("FuseOps"), Stage::codegen(),
                             Stage::run({}), Stage::run({{"m", 3}, {"n", -7}}), Stage::compare()}) {
    EXPECT_EQ(decode_stage(encode_stage(stage)), stage) << stage.describe();
  }
  EXPECT_EQ(decode_stage(""), Stage::compile()) << "a child that died before its first stage was compiling";
  const std::string s = encode_stage(Stage::run({{"n", 3}}));
  EXPECT_THROW(decode_stage(s.substr(0, s.size() - 1)), InternalError);
  EXPECT_THROW(decode_stage(s + "x"), InternalError);
  EXPECT_THROW(decode_stage(std::string(1, '\x09') + s.substr(1)), InternalError) << "no stage kind 9";
}

}  // namespace
}  // namespace difftest::oracle
