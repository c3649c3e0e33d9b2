#include "oracle/check/wire.h"

#include <gtest/gtest.h>

#include "compiler/ir/diagnostics.h"

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
