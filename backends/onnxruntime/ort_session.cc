#include "backends/onnxruntime/ort_session.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>

#include "backends/kit/model_files.h"
#include "backends/kit/worker_requests.h"
#include "backends/onnxruntime/ort_kernels.h"
#include "compiler/support/diagnostics.h"
#include "oracle/isolate/worker_process.h"

#ifndef DIFFTEST_ORT_DEFAULT_DIR
#define DIFFTEST_ORT_DEFAULT_DIR ""
#endif

namespace difftest::backends {

using oracle::Case;
using oracle::ChildOutcome;
using oracle::IsolationLimits;
using oracle::Variant;
using oracle::WorkerAnswer;

namespace fs = std::filesystem;

const std::vector<std::string>& ort_levels() {
  static const std::vector<std::string> levels = {"disabled", "basic", "extended", "layout", "all"};
  return levels;
}

Variant ort_level_variant(const std::string& level, const std::string& where, std::vector<std::string> disabled) {
  if (std::find(ort_levels().begin(), ort_levels().end(), level) == ort_levels().end()) {
    throw UserError(ErrorKind::Usage, fmt::format("{}: ONNX Runtime has no optimization level '{}' (levels: {})",
                                                  where, level, fmt::join(ort_levels(), ", ")));
  }
  Variant v{oracle::VariantKind::Named, level, {}};
  v.settings = {{"level", level}, {"disabled", std::move(disabled)}};
  return v;
}

std::string ort_level_of(const Variant& v) { return v.settings.value("level", std::string("all")); }

std::vector<std::string> ort_disabled_of(const Variant& v) {
  return v.settings.value("disabled", std::vector<std::string>{});
}

OrtInstall ort_install() {
  OrtInstall in;
  const char* dir = std::getenv("DIFFTEST_ORT_DIR");
  in.dir = dir && *dir ? dir : DIFFTEST_ORT_DEFAULT_DIR;
  const char* node = std::getenv("DIFFTEST_NODE");
  in.node = node && *node ? node : "node";
  const fs::path package = fs::path(in.dir) / "node_modules" / "onnxruntime-node" / "package.json";
  std::ifstream f(package);
  if (f) {
    try {
      in.version = nlohmann::json::parse(f).value("version", "");
    } catch (const nlohmann::json::exception&) {
      in.version = "";
    }
  }
  if (in.dir.empty()) {
    in.missing = "no onnxruntime-node directory is configured (set DIFFTEST_ORT_DIR)";
  } else if (!fs::exists(fs::path(in.dir) / "ort_worker.js")) {
    in.missing = fmt::format("{} has no ort_worker.js (scripts/setup.sh configures the build and installs it)", in.dir);
  } else if (in.version.empty()) {
    in.missing = fmt::format("onnxruntime-node is not installed in {} (scripts/setup.sh installs it)", in.dir);
  } else if (!runnable(in.node)) {
    in.missing = fmt::format("Node.js ('{}') is not installed or not on PATH (scripts/setup.sh installs nodejs; "
                             "DIFFTEST_NODE names another binary)",
                             in.node);
  }
  return in;
}

namespace {

// ORT has no kernel for the type of a node of the exported model (its CPU provider and bf16,
// most ops): not a finding. The exporter leaves its nodes unnamed; a node a transformer made
// (named after it, '/QuickGeluFusion/') without a kernel is the transformer's finding.
bool is_missing_kernel(const std::string& error) {
  const bool missing = error.find("Could not find an implementation") != std::string::npos ||
                       error.find("NOT_IMPLEMENTED") != std::string::npos;
  return missing && error.find("node with name ''") != std::string::npos;
}

// The one worker of this process, and the models of the programs it was last given.
class OrtWorker {
 public:
  // Prepared here, the program's model is not exported again when it is checked.
  bool has_model(const Program& p) {
    std::lock_guard<std::mutex> lock(mutex_);
    const PreparedModel& prepared = models_.prepare(p, ModelFormat::Onnx);
    return prepared.unsupported.empty() && ort_missing_kernel(*prepared.model.typed).empty();
  }

  ChildOutcome run(const Program& p, const Variant& variant, const std::vector<const Case*>& cases,
                   const IsolationLimits& limits) {
    std::lock_guard<std::mutex> lock(mutex_);
    const OrtInstall install = ort_install();
    if (!install.missing.empty()) return unsupported_outcome("ONNX Runtime cannot run here: " + install.missing);
    const PreparedModel& prepared = models_.prepare(p, ModelFormat::Onnx);
    if (!prepared.unsupported.empty()) return unsupported_outcome(prepared.unsupported);
    const WorkerAnswer answer = send(install, p, prepared, variant, cases, limits, Logging::Transformers);
    return outcome_of_answer(answer, prepared, p, cases, reading());
  }

  OrtSessionLog session_log(const Program& p, const Variant& variant, const Case& c,
                            const IsolationLimits& limits) {
    std::lock_guard<std::mutex> lock(mutex_);
    OrtSessionLog log;
    const OrtInstall install = ort_install();
    if (!install.missing.empty()) {
      log.error = "ONNX Runtime cannot run here: " + install.missing;
      return log;
    }
    const PreparedModel& prepared = models_.prepare(p, ModelFormat::Onnx);
    if (!prepared.unsupported.empty()) {
      log.error = prepared.unsupported;
      return log;
    }
    const WorkerAnswer answer = send(install, p, prepared, variant, {&c}, limits, Logging::TransformersAndModel);
    if (answer.status != WorkerAnswer::Status::Ok) {
      log.error = fmt::format("the worker did not answer ({})", last_line(answer.log));
      return log;
    }
    parse_transformer_log(answer.log, log);
    std::ifstream f(prepared.dir / "optimized.onnx", std::ios::binary);
    log.optimized_model.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    log.ok = true;
    return log;
  }

 private:
  // ORT logs every transformer it applies (the coverage map's `transformer:NAME`, the culprit
  // search's list); a session log also saves the optimized model as optimized.onnx in the
  // model's directory and runs once (a check runs twice, to see nondeterminism).
  enum class Logging { Transformers, TransformersAndModel };

  WorkerAnswer send(const OrtInstall& install, const Program& p, const PreparedModel& prepared, const Variant& variant,
                    const std::vector<const Case*>& cases, const IsolationLimits& limits, Logging logging) {
    const bool model = logging == Logging::TransformersAndModel;
    nlohmann::json request = run_request(++requests_, prepared, p, cases, model ? 1 : 2);
    request["level"] = ort_level_of(variant);
    request["disable"] = ort_disabled_of(variant);
    request["log"] = true;
    request["optimized"] = model ? nlohmann::json((prepared.dir / "optimized.onnx").string()) : nullptr;
    return worker(install).request(request.dump(), request_limits(limits, cases.size()));
  }

  static AnswerReading reading() {
    return {"ONNX Runtime",
            [](const std::string& stage, const std::string& error) {
              return stage == "compile" && is_missing_kernel(error) ? "ONNX Runtime has no kernel for it: " + first_line(error)
                                                                    : std::string();
            },
            [](const std::string& log) {
              OrtSessionLog parsed;
              parse_transformer_log(log, parsed);
              std::vector<std::string> out;
              for (const auto& name : parsed.modified) out.push_back("transformer:" + name);
              return out;
            }};
  }

  // The worker of `install`, started again when the install moved (DIFFTEST_ORT_DIR, DIFFTEST_NODE).
  oracle::WorkerProcess& worker(const OrtInstall& install) {
    std::vector<std::string> argv = {install.node, (fs::path(install.dir) / "ort_worker.js").string(),
                                     (fs::path(install.dir) / "node_modules").string()};
    if (!worker_ || argv != worker_argv_) {
      worker_ = std::make_unique<oracle::WorkerProcess>(argv);
      worker_argv_ = std::move(argv);
    }
    return *worker_;
  }

  std::mutex mutex_;
  std::unique_ptr<oracle::WorkerProcess> worker_;
  std::vector<std::string> worker_argv_;
  uint64_t requests_ = 0;
  ModelCache models_{"ort"};
};

OrtWorker& the_worker() {
  static OrtWorker worker;
  return worker;
}

}  // namespace

bool ort_has_model(const Program& p) { return the_worker().has_model(p); }

ChildOutcome ort_run(const Program& p, const Variant& variant, const std::vector<const Case*>& cases,
                     const IsolationLimits& limits) {
  return the_worker().run(p, variant, cases, limits);
}

OrtSessionLog ort_session_log(const Program& p, const Variant& variant, const Case& c, const IsolationLimits& limits) {
  return the_worker().session_log(p, variant, c, limits);
}

void parse_transformer_log(const std::string& log, OrtSessionLog& out) {
  // ORT (graph_transformer.cc) logs "GraphTransformer <name> modified: <0|1> with status: ..."
  // after each application of a transformer, in every step of every level.
  const std::string head = "GraphTransformer ", tail = " modified: ";
  for (size_t at = 0; (at = log.find(head, at)) != std::string::npos;) {
    const size_t name_end = log.find(tail, at);
    const size_t line_end = log.find('\n', at);
    if (name_end == std::string::npos || name_end > line_end) {
      at += head.size();
      continue;
    }
    const std::string name = log.substr(at + head.size(), name_end - at - head.size());
    const bool modified = log.compare(name_end + tail.size(), 1, "1") == 0;
    const auto add = [&](std::vector<std::string>& list) {
      if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
    };
    add(out.applied);
    if (modified) add(out.modified);
    at = name_end;
  }
}

}  // namespace difftest::backends
