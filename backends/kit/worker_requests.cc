#include "backends/kit/worker_requests.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/printer.h"
#include "compiler/tensor/npy.h"
#include "oracle/check/wire.h"

namespace difftest::backends {

namespace fs = std::filesystem;
using oracle::ChildOutcome;
using oracle::Stage;
using oracle::WorkerAnswer;

bool runnable(const std::string& program) {
  if (program.find('/') != std::string::npos) return ::access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  size_t at = 0;
  while (at <= dirs.size()) {
    const size_t colon = dirs.find(':', at);
    const std::string dir = dirs.substr(at, colon == std::string::npos ? std::string::npos : colon - at);
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / program;
    if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return true;
    if (colon == std::string::npos) break;
    at = colon + 1;
  }
  return false;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string last_line(const std::string& text) {
  std::string t = text;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  const size_t nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

PreparedModel::PreparedModel(const Program& p, std::string text, ModelFormat format, const std::string& tag)
    : text(std::move(text)), format(format) {
  static std::atomic<uint64_t> next{0};
  dir = fs::temp_directory_path() / fmt::format("difftest-{}-{}-{}", tag, ::getpid(), ++next);
  fs::create_directories(dir);
  try {
    model = export_model(p, format);
    write_file_atomic(model_path().string(), model.bytes);
  } catch (const interop::Unsupported& e) {
    unsupported = fmt::format("the program has no {} form: {}", model_format_name(format), e.message());
  }
}

PreparedModel::~PreparedModel() {
  std::error_code ignored;
  fs::remove_all(dir, ignored);
}

const PreparedModel& ModelCache::prepare(const Program& p, ModelFormat format) {
  constexpr size_t kKept = 2;  // the program and its specialized form
  const std::string text = print(p);
  for (auto it = recent_.begin(); it != recent_.end(); ++it) {
    if ((*it)->text == text && (*it)->format == format) {
      recent_.splice(recent_.begin(), recent_, it);
      return *recent_.front();
    }
  }
  recent_.push_front(std::make_unique<PreparedModel>(p, text, format, tag_));
  while (recent_.size() > kKept) recent_.pop_back();
  return *recent_.front();
}

nlohmann::json run_request(uint64_t id, const PreparedModel& prepared, const Program& p,
                           const std::vector<const oracle::Case*>& cases, int repeat) {
  nlohmann::json request = {{"id", id},
                            {"op", "run"},
                            {"protocol", 1},
                            {"model", prepared.model_path().string()},
                            {"format", model_format_name(prepared.format)},
                            {"dir", prepared.dir.string()},
                            {"repeat", repeat},
                            {"cases", nlohmann::json::array()},
                            {"bindings", nlohmann::json::array()}};
  for (size_t c = 0; c < cases.size(); ++c) {
    request["cases"].push_back(
        write_feeds(prepared.model, p, *cases[c], prepared.dir, fmt::format("c{}_in.bin", c)));
    nlohmann::json binding = nlohmann::json::object();
    for (const auto& [dim, value] : cases[c]->env) binding[dim] = value;
    request["bindings"].push_back(std::move(binding));
  }
  return request;
}

Stage stage_of_marker(const std::string& marker, const std::vector<const oracle::Case*>& cases) {
  if (marker.rfind("run ", 0) == 0) {
    const size_t c = static_cast<size_t>(std::atoll(marker.c_str() + 4));
    return Stage::run(c < cases.size() ? cases[c]->env : sym::Env{});
  }
  return Stage::compile();
}

namespace {

ChildOutcome finished(ChildOutcome outcome, const oracle::CompiledRuns& runs) {
  outcome.status = ChildOutcome::Status::Ok;
  outcome.payload = oracle::encode_compiled_runs(runs);
  return outcome;
}

}  // namespace

ChildOutcome unsupported_outcome(const std::string& why) {
  oracle::CompiledRuns runs;
  runs.unsupported = why;
  return finished(ChildOutcome{}, runs);
}

ChildOutcome outcome_of_answer(const WorkerAnswer& answer, const PreparedModel& prepared, const Program& p,
                               const std::vector<const oracle::Case*>& cases, const AnswerReading& reading) {
  ChildOutcome outcome;
  outcome.cpu_seconds = answer.cpu_seconds;
  outcome.seconds = answer.wall_seconds;
  outcome.blocked = answer.blocked;
  outcome.signal = answer.signal;
  outcome.stage = oracle::encode_stage(stage_of_marker(answer.stage, cases));
  switch (answer.status) {
    case WorkerAnswer::Status::Ok:
      break;
    case WorkerAnswer::Status::NotStarted:
      return unsupported_outcome(fmt::format("the {} worker did not start: {}", reading.who, answer.line));
    case WorkerAnswer::Status::Cancelled:
      outcome.status = ChildOutcome::Status::Cancelled;
      return outcome;
    case WorkerAnswer::Status::TimedOut:
      outcome.status = ChildOutcome::Status::TimedOut;
      outcome.stage_cpu_seconds = answer.cpu_seconds;
      return outcome;
    case WorkerAnswer::Status::Died:
      outcome.status = ChildOutcome::Status::Crashed;
      outcome.message = answer.signal ? fmt::format("the {} worker was killed by signal {}", reading.who, answer.signal)
                                      : fmt::format("the {} worker exited ({}): {}", reading.who, answer.exit_code,
                                                    last_line(answer.log));
      return outcome;
  }
  const auto malformed = [&](const std::string& what) {
    outcome.status = ChildOutcome::Status::Lost;
    outcome.message = fmt::format("the {} worker's answer {}: {}", reading.who, what, answer.line.substr(0, 300));
    return outcome;
  };
  nlohmann::json reply;
  try {
    reply = nlohmann::json::parse(answer.line);
  } catch (const nlohmann::json::exception& e) {
    return malformed(fmt::format("is not JSON ({})", e.what()));
  }
  if (!reply.is_object()) return malformed("is not a JSON object");
  try {
    if (!reply.value("ok", false)) {
      const std::string error = reply.value("error", std::string("(no message)"));
      std::string stage = reply.value("stage", std::string("compile"));
      if (stage == "session") stage = "compile";
      if (stage == "inputs") stage = "run";  // reading a case's input files
      if (stage != "compile" && stage != "run") return malformed(fmt::format("names no stage it knows ('{}')", stage));
      if (reply.value("unsupported", false)) {
        return unsupported_outcome(fmt::format("{} does not implement it: {}", reading.who, first_line(error)));
      }
      if (reading.unsupported) {
        if (std::string why = reading.unsupported(stage, error); !why.empty()) return unsupported_outcome(why);
      }
      outcome.status = ChildOutcome::Status::Error;
      outcome.user_error = stage == "compile";  // a valid model refused: compile_reject
      const size_t c = reply.value("case", size_t{0});
      outcome.stage = oracle::encode_stage(
          stage == "compile" ? Stage::compile() : Stage::run(c < cases.size() ? cases[c]->env : sym::Env{}));
      outcome.message = fmt::format("{} {}: {}", reading.who, stage == "compile" ? "refused the model" : "failed to run",
                                    first_line(error));
      return outcome;
    }
    oracle::CompiledRuns runs;
    runs.compile_ms = reply.contains("compile_ms") ? reply.value("compile_ms", 0.0) : reply.value("session_ms", 0.0);
    const nlohmann::json& answers = reply.at("runs");
    if (!answers.is_array() || answers.size() != cases.size()) {
      return malformed(fmt::format("has no \"runs\" list of {} cases", cases.size()));
    }
    for (size_t c = 0; c < cases.size(); ++c) {
      try {
        runs.runs.push_back(read_run(prepared.model, p, cases[c]->env, answers[c], prepared.dir, reading.who));
      } catch (const WrongAnswer& e) {
        outcome.status = ChildOutcome::Status::Error;
        outcome.stage = oracle::encode_stage(Stage::run(cases[c]->env));
        outcome.message = e.what();
        return outcome;
      }
    }
    if (reading.exercised) runs.exercised = reading.exercised(answer.log);
    return finished(outcome, runs);
  } catch (const nlohmann::json::exception& e) {
    return malformed(fmt::format("does not follow the protocol ({})", e.what()));
  }
}

oracle::IsolationLimits request_limits(const oracle::IsolationLimits& limits, size_t cases) {
  oracle::IsolationLimits out = limits;
  if (limits.timeout_per_stage) out.cpu_seconds *= static_cast<double>(1 + cases);
  return out;
}

}  // namespace difftest::backends
