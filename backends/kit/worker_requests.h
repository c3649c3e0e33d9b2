// The harness's half of the worker protocol (docs/backends.md, "The worker protocol"), shared
// by every external compiler: the program's model prepared once and kept while the checks of
// that program last, a `run` request of one variant on every case, and the answer read back as
// what an isolated child would have returned (crash, hang, refusal and wrong answers included).
#pragma once

#include <filesystem>
#include <functional>
#include <list>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/kit/model_files.h"
#include "oracle/isolate/isolate.h"
#include "oracle/isolate/worker_process.h"

namespace difftest::backends {

// Whether `program` runs here: a path to an executable file, or a name found on PATH.
bool runnable(const std::string& program);
std::string first_line(const std::string& text);
std::string last_line(const std::string& text);

// A program's model, written once into a directory of its own where each request's case files
// and answers go too; the directory is removed with it.
struct PreparedModel {
  // `text` is print(p), which identifies it.
  PreparedModel(const Program& p, std::string text, ModelFormat format, const std::string& tag);
  ~PreparedModel();
  PreparedModel(const PreparedModel&) = delete;
  PreparedModel& operator=(const PreparedModel&) = delete;

  std::string text;  // the program's IR text: what identifies it
  ModelFormat format;
  std::filesystem::path dir;
  WorkerModel model;        // valid when `unsupported` is empty
  std::string unsupported;  // the program has no model in this format (why)
  std::filesystem::path model_path() const { return dir / model.file_name(); }
};

// The models of the last few programs (a check alternates between the program and its
// specialized form): a program is exported, and ONNX's shape inference run on it, once
// whatever the number of variants and bisection probes.
class ModelCache {
 public:
  explicit ModelCache(std::string tag) : tag_(std::move(tag)) {}
  const PreparedModel& prepare(const Program& p, ModelFormat format);

 private:
  std::string tag_;
  std::list<std::unique_ptr<PreparedModel>> recent_;  // most recent first
};

// A `run` request for `prepared` on `cases`: its case files written into the model's directory,
// the fields every worker reads (id, op, protocol, model, format, dir, cases, bindings, repeat).
// The caller adds the variant's own fields (level, disable, limit, steps).
nlohmann::json run_request(uint64_t id, const PreparedModel& prepared, const Program& p,
                           const std::vector<const oracle::Case*>& cases, int repeat);

// How to read one compiler's answers.
struct AnswerReading {
  std::string who;  // the compiler, in messages: "ONNX Runtime"
  // "" or, for a refusal that is no finding (no kernel for a dtype the program uses), why the
  // program is `unsupported`. `stage` is the answer's ("compile" or "run").
  std::function<std::string(const std::string& stage, const std::string& error)> unsupported;
  // What the request exercised, for coverage maps (CompiledRuns::exercised), read from the
  // worker's log: ORT's transformers that changed the graph. Unset: nothing.
  std::function<std::vector<std::string>(const std::string& log)> exercised;
};

// The stage of a "@@stage" marker: "compile" (or "session"), or "run C" for case C.
oracle::Stage stage_of_marker(const std::string& marker, const std::vector<const oracle::Case*>& cases);

// What an isolated child would have returned for `answer` to a run request of `prepared` on
// `cases`: the runs (encoded as check/wire.h does), `unsupported`, or the worker's refusal,
// failure, crash, hang or malformed answer as the outcome's status.
oracle::ChildOutcome outcome_of_answer(const oracle::WorkerAnswer& answer, const PreparedModel& prepared,
                                       const Program& p, const std::vector<const oracle::Case*>& cases,
                                       const AnswerReading& reading);
// The outcome of a check whose program could not be handed over (no model, worker missing).
oracle::ChildOutcome unsupported_outcome(const std::string& why);

// The worker's CPU budget for one request: the check's budget is per stage (the compile and each
// case's run).
oracle::IsolationLimits request_limits(const oracle::IsolationLimits& limits, size_t cases);

}  // namespace difftest::backends
