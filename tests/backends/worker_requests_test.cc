// The harness's reading of a worker's answers (backends/kit/worker_requests.h): each way a
// worker can answer a run request becomes the verdict the protocol says, never difftest's crash.
#include "backends/kit/worker_requests.h"

#include <gtest/gtest.h>

#include <fstream>

#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "oracle/check/wire.h"

namespace difftest::backends {
namespace {

using oracle::ChildOutcome;
using oracle::WorkerAnswer;

const Program& program() {
  static const Program p = parse_program(R"(program @p(n: 1..8) {
  %x: f32[n] = param
  %y: f32[n] = neg(%x)
  return %y
}
)",
                                         "p.ir");
  return p;
}

struct Request {
  PreparedModel prepared{program(), print(program()), ModelFormat::Text, "worker_requests_test"};
  oracle::Case c0 = oracle::make_case(program(), {{"n", 2}}, oracle::CaseOptions{});
  oracle::Case c1 = oracle::make_case(program(), {{"n", 3}}, oracle::CaseOptions{});
  std::vector<const oracle::Case*> cases = {&c0, &c1};

  ChildOutcome answered(const std::string& line, AnswerReading reading = {"mine", {}, {}},
                        const std::string& log = "") const {
    WorkerAnswer a;
    a.line = line;
    a.log = log;
    return outcome_of_answer(a, prepared, program(), cases, reading);
  }
};

TEST(WorkerRequests, ARunRequestCarriesTheModelTheCasesFilesAndBindings) {
  const Request r;
  const nlohmann::json request = run_request(7, r.prepared, program(), r.cases, 2);
  EXPECT_EQ(request.at("id"), 7);
  EXPECT_EQ(request.at("op"), "run");
  EXPECT_EQ(request.at("format"), "ir");
  EXPECT_EQ(request.at("model"), (r.prepared.dir / "program.ir").string());
  std::ifstream model(request.at("model").get<std::string>());
  const std::string text((std::istreambuf_iterator<char>(model)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("%y: f32[n] = neg(%x)"), std::string::npos) << "the model file holds the program";
  ASSERT_EQ(request.at("cases").size(), 2u);
  EXPECT_EQ(request.at("cases")[1][0].at("dims"), nlohmann::json({3}));
  EXPECT_EQ(request.at("bindings")[1], nlohmann::json({{"n", 3}}));
  EXPECT_EQ(request.at("repeat"), 2);
}

TEST(WorkerRequests, AnAnswersOutputsAreTheRunsAndEachRefusalIsItsVerdict) {
  const Request r;
  for (int c = 0; c < 2; ++c) {
    const float y[3] = {1, 2, 3};
    std::ofstream(r.prepared.dir / fmt::format("c{}_out.bin", c), std::ios::binary)
        .write(reinterpret_cast<const char*>(y), 4 * (2 + c));
  }
  const std::string run0 = R"({"outputs": [{"type": "float32", "dims": [2], "file": "c0_out.bin", "offset": 0, "bytes": 8}]})";
  const std::string run1 = R"({"outputs": [{"type": "float32", "dims": [3], "file": "c1_out.bin", "offset": 0, "bytes": 12}],
                              "differs": {"output": "y", "byte": 4}})";
  ChildOutcome ok = r.answered(R"({"id": 1, "ok": true, "compile_ms": 3.5, "runs": [)" + run0 + "," + run1 + "]}");
  ASSERT_EQ(ok.status, ChildOutcome::Status::Ok) << ok.message;
  const oracle::CompiledRuns runs = oracle::decode_compiled_runs(ok.payload);
  EXPECT_EQ(runs.compile_ms, 3.5);
  ASSERT_EQ(runs.runs.size(), 2u);
  EXPECT_EQ(runs.runs[1].outputs.at(0).get(2), 3.0);
  EXPECT_TRUE(runs.exercised.empty()) << "a reading without `exercised` reads nothing";
  EXPECT_EQ(runs.runs[0].nondeterminism, "");
  EXPECT_NE(runs.runs[1].nondeterminism.find("two runs of the same mine compile"), std::string::npos);

  // What the reading finds in the worker's log travels with the runs (coverage maps).
  const ChildOutcome logged = r.answered(
      R"({"id": 1, "ok": true, "compile_ms": 3.5, "runs": [)" + run0 + "," + run1 + "]}",
      {"mine", {}, [](const std::string& log) { return std::vector<std::string>{"seen:" + log}; }}, "fused");
  ASSERT_EQ(logged.status, ChildOutcome::Status::Ok) << logged.message;
  EXPECT_EQ(oracle::decode_compiled_runs(logged.payload).exercised, std::vector<std::string>{"seen:fused"});

  const ChildOutcome refused = r.answered(R"({"id": 1, "ok": false, "stage": "compile", "error": "bad op\nmore"})");
  EXPECT_EQ(refused.status, ChildOutcome::Status::Error);
  EXPECT_TRUE(refused.user_error) << "a refused model is compile_reject";
  EXPECT_EQ(refused.message, "mine refused the model: bad op");

  const ChildOutcome failed = r.answered(R"({"id": 1, "ok": false, "stage": "run", "case": 1, "error": "oops"})");
  EXPECT_EQ(failed.status, ChildOutcome::Status::Error);
  EXPECT_FALSE(failed.user_error);
  EXPECT_EQ(oracle::decode_stage(failed.stage).name(), oracle::Stage::run({{"n", 3}}).name());

  const ChildOutcome unsupported =
      r.answered(R"({"id": 1, "ok": false, "stage": "compile", "unsupported": true, "error": "no f16 Erf"})");
  ASSERT_EQ(unsupported.status, ChildOutcome::Status::Ok);
  EXPECT_EQ(oracle::decode_compiled_runs(unsupported.payload).unsupported, "mine does not implement it: no f16 Erf");

  const ChildOutcome by_reading = r.answered(
      R"({"ok": false, "stage": "session", "error": "no kernel"})",
      {"mine", [](const std::string& stage, const std::string& e) { return stage + " lacks: " + e; }, {}});
  EXPECT_EQ(oracle::decode_compiled_runs(by_reading.payload).unsupported, "compile lacks: no kernel");

  EXPECT_EQ(r.answered("not json").status, ChildOutcome::Status::Lost);
  EXPECT_EQ(r.answered("[1]").status, ChildOutcome::Status::Lost);
  EXPECT_EQ(r.answered(R"({"ok": true, "runs": [)" + run0 + "]}").status, ChildOutcome::Status::Lost)
      << "one run for two cases";
  EXPECT_EQ(r.answered(R"({"ok": true, "runs": [{"outputs": 5}, {}]})").status, ChildOutcome::Status::Lost);
  EXPECT_EQ(r.answered(R"({"ok": false, "stage": "linking"})").status, ChildOutcome::Status::Lost);
  const ChildOutcome wrong = r.answered(
      R"({"ok": true, "runs": [{"outputs": [{"type": "int32", "dims": [2], "file": "c0_out.bin", "offset": 0, "bytes": 8}]}, {"outputs": []}]})");
  EXPECT_EQ(wrong.status, ChildOutcome::Status::Error);
  EXPECT_EQ(wrong.message, "mine's output 0 is int32[2] where the program's is f32[2]");
}

TEST(WorkerRequests, AProgramIsPreparedOnceAndItsDirectoryGoesWithIt) {
  std::filesystem::path first_dir;
  {
    ModelCache cache("worker_requests_test");
    const PreparedModel& a = cache.prepare(program(), ModelFormat::Onnx);
    first_dir = a.dir;
    EXPECT_EQ(&cache.prepare(program(), ModelFormat::Onnx), &a) << "the same program is not exported again";
    EXPECT_NE(&cache.prepare(program(), ModelFormat::Text), &a) << "another format is another model";
    EXPECT_TRUE(std::filesystem::exists(a.model_path()));
  }
  EXPECT_FALSE(std::filesystem::exists(first_dir));
}

}  // namespace
}  // namespace difftest::backends
