// repro_tvmscript.py judges TVM by itself: its driver, run by the system Python (numpy) against a
// stand-in TVM (fake_tvm/) that returns outputs the test chooses, passes the failing inputs to
// main byte for byte, passes results within the allowance, fails one element beyond it (naming
// the element), fails a NaN, and exits 1 only when the failing config's level is wrong. The
// stand-in stays for what real TVM cannot show (an answer beyond the allowance by a chosen
// amount, a NaN); the reproducers themselves run on the pinned TVM in cli.tvm_reproducers and
// cli.tvm_backend.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "compiler/ir/parser.h"
#include "compiler/tensor/npy.h"
#include "exporters/tvmscript/tvmscript.h"
#include "oracle/check/expected_results.h"
#include "tests/support/run_command.h"

namespace difftest::exporters {
namespace {

namespace fs = std::filesystem;

using Ran = testing::CommandResult;

Ran run_python(const std::string& command) { return testing::run_command(command); }

bool have_numpy() { return run_python("/usr/bin/python3 -c 'import numpy' 2>&1").exit_code == 0; }

const char* kProgram = R"(
program @judged() {
  %x: f32[2, 3] = param
  %h: f16[4] = param
  %k: i32[3] = param
  %y: f32[2, 3] = mul(%x, %x)
  %z: f16[4] = add(%h, %h)
  %w: i32[3] = add(%k, %k)
  return %y, %z, %w
}
)";

class TvmScriptDriver : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_numpy()) GTEST_SKIP() << "no numpy for /usr/bin/python3";
    dir_ = fs::temp_directory_path() / ("difftest_tvm_driver_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "outputs");
    fs::create_directories(dir_ / "args");
    program_ = parse_program(kProgram);
    oracle::CheckOptions options;
    options.ensemble.members = 0;
    case_ = oracle::make_case(program_, {}, options.cases());
    TvmScriptOptions tvm;
    tvm.failing_config = "O2";
    tvm.expected = oracle::expected_results(program_, case_, oracle::VerdictKind::Mismatch, options);
    allowed_y_ = tvm.expected->outputs[0].allowed;
    std::ofstream(dir_ / "repro_tvmscript.py") << export_tvmscript(program_, tvm);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // The right outputs, computed here from the case's inputs: x*x rounded once to f32, h+h and
  // k+k (exact), all written as f64 so the driver sees exactly these values.
  std::vector<std::vector<double>> right_outputs() const {
    std::vector<double> y, z, w;
    const Tensor &x = case_.inputs.at("x"), &h = case_.inputs.at("h"), &k = case_.inputs.at("k");
    for (int64_t i = 0; i < x.numel(); ++i) y.push_back(static_cast<float>(x.get(i) * x.get(i)));
    for (int64_t i = 0; i < h.numel(); ++i) z.push_back(2 * h.get(i));
    for (int64_t i = 0; i < k.numel(); ++i) w.push_back(2 * k.get(i));
    return {y, z, w};
  }

  // Output files for `prefix` ("" every level, "O2_" one level).
  void write_outputs(const std::vector<std::vector<double>>& outs, const std::string& prefix = "") const {
    const std::vector<std::vector<int64_t>> shapes = {{2, 3}, {4}, {3}};
    for (size_t i = 0; i < outs.size(); ++i) {
      write_npy((dir_ / "outputs" / (prefix + std::to_string(i) + ".npy")).string(),
                Tensor::from_doubles(DType::f64, shapes[i], outs[i]));
    }
  }

  Ran run_repro() const {
    return run_python(
        fmt::format("cd {0} && PYTHONPATH={1} FAKE_TVM_OUTPUTS={0}/outputs FAKE_TVM_ARGS={0}/args "
                    "/usr/bin/python3 repro_tvmscript.py 2>&1",
                    dir_.string(), std::string(DIFFTEST_SOURCE_DIR) + "/tests/exporters/fake_tvm"));
  }

  fs::path dir_;
  Program program_;
  oracle::Case case_;
  std::vector<double> allowed_y_;
};

TEST_F(TvmScriptDriver, TheFailingInputsReachMainByteForByte) {
  write_outputs(right_outputs());
  const Ran r = run_repro();
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const char* names[] = {"x", "h", "k"};
  for (int i = 0; i < 3; ++i) {
    const Tensor got = read_npy((dir_ / "args" / fmt::format("arg{}.npy", i)).string());
    EXPECT_TRUE(got.same_bytes(case_.inputs.at(names[i]))) << names[i] << ": " << got.type_str();
  }
}

TEST_F(TvmScriptDriver, RightResultsPassAtEveryLevel) {
  write_outputs(right_outputs());
  const Ran r = run_repro();
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (int level = 0; level < 4; ++level) {
    EXPECT_NE(r.output.find(fmt::format("PASS opt_level={}", level)), std::string::npos) << r.output;
  }
}

TEST_F(TvmScriptDriver, AResultWithinTheAllowancePassesAndOneBeyondItFails) {
  auto outs = right_outputs();
  ASSERT_GT(allowed_y_[4], 0);
  outs[0][4] += 0.5 * allowed_y_[4];
  write_outputs(outs);
  outs[0][4] += 1.0 * allowed_y_[4];  // 1.5 allowances off
  write_outputs(outs, "O2_");
  const Ran r = run_repro();
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("PASS opt_level=1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("FAIL opt_level=2: 1 of 6 elements of %y differ from the reference by more than allowed; "
                          "worst at [1, 1]"),
            std::string::npos)
      << r.output;
}

TEST_F(TvmScriptDriver, OnlyTheFailingLevelDecidesTheExitCode) {
  auto outs = right_outputs();
  write_outputs(outs);
  outs[2][0] += 1;  // an integer off by one at level 0 only
  write_outputs(outs, "O0_");
  const Ran r = run_repro();
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("FAIL opt_level=0: 1 of 3 elements of %w"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("PASS opt_level=2"), std::string::npos) << r.output;
}

TEST_F(TvmScriptDriver, ANaNIsNeverWithinTheAllowance) {
  auto outs = right_outputs();
  outs[1][3] = std::nan("");
  write_outputs(outs);
  const Ran r = run_repro();
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("FAIL opt_level=2: 1 of 4 elements of %z"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace difftest::exporters
