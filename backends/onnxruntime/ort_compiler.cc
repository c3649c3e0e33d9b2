#include "backends/onnxruntime/ort_compiler.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "backends/kit/levels.h"
#include "backends/kit/model_files.h"
#include "backends/onnxruntime/ort_culprit.h"
#include "backends/onnxruntime/ort_report.h"
#include "backends/onnxruntime/ort_session.h"
#include "compiler/support/diagnostics.h"
#include "compiler/tensor/npy.h"

namespace difftest::backends {

using oracle::Case;
using oracle::ChildOutcome;
using oracle::IsolationLimits;
using oracle::Stage;
using oracle::Variant;

namespace fs = std::filesystem;

namespace {

class OrtCompiler final : public LevelCompiler {
 public:
  std::string name() const override { return "ort"; }
  std::optional<oracle::Variant> baseline() const override { return named("disabled", "the baseline"); }

  std::string identity() const override {
    const OrtInstall in = ort_install();
    return fmt::format("ONNX Runtime {} (onnxruntime-node, CPU execution provider, single-threaded)",
                       in.version.empty() ? "(not installed)" : in.version);
  }

  Variant named(const std::string& name, const std::string& where) const override {
    return ort_level_variant(name, where);
  }

  Variant recorded(const std::string& name, std::vector<std::string> steps, const nlohmann::json& record,
                   const std::string& where) const override {
    bool specialized = false;
    Variant v = named(level_of_recorded_name(name, specialized), where);
    v.label = name;
    v.steps = std::move(steps);
    try {
      v.settings["disabled"] = record.value("disabled", std::vector<std::string>{});
    } catch (const nlohmann::json::exception& e) {
      throw UserError(ErrorKind::Syntax, fmt::format("{}: a recorded variant's \"disabled\": {}", where, e.what()));
    }
    return v;
  }

  ChildOutcome run_in_own_process(const Program& p, const Variant& variant, const std::vector<const Case*>& cases,
                                  const IsolationLimits& limits) const override {
    return ort_run(p, variant, cases, limits);
  }

  oracle::StepRole step_role(const std::string&) const override { return oracle::StepRole::Other; }
  std::optional<Program> program_after(const Program&, const Variant&, int) const override { return std::nullopt; }
  std::optional<oracle::Culprit> own_culprit_search(const Program& p, const oracle::FailingRun& failing,
                                                    const oracle::CheckOptions& base,
                                                    const oracle::BisectProgress& on_call) const override {
    return find_culprit_transformers(p, failing, base, on_call);
  }
  std::string fixed_culprit(const Stage& failed_in) const override {
    return failed_in.compiling() ? "ONNX Runtime's session set-up (no transformer)" : "ONNX Runtime's CPU kernels";
  }

  std::string environment(const Variant& variant) const override {
    const auto disabled = ort_disabled_of(variant);
    return fmt::format("{}, graphOptimizationLevel '{}'{}", identity(), ort_level_of(variant),
                       disabled.empty() ? "" : fmt::format(", disabled: {}", fmt::join(disabled, ";")));
  }

  std::string replay_flags(const Variant& variant) const override {
    return fmt::format("--backend ort --opt {}", ort_level_of(variant));
  }

  void write_reproducer(const std::string& dir, const Program& p, const sym::Env&, const oracle::VariantVerdict&,
                        const oracle::CheckOptions&) const override {
    write_file_atomic((fs::path(dir) / "model.onnx").string(), export_onnx_model(p).bytes);
  }

  std::string reproducer_files() const override {
    return "`model.onnx` is the model ONNX Runtime ran; `repro.py` and `repro.js` check it by themselves";
  }

  void write_report(const std::string& dir, const oracle::ReductionReport& report,
                    const oracle::CheckOptions& options) const override {
    write_ort_report(dir, report, options);
  }
};

}  // namespace

const oracle::CompilerUnderTest& ort_compiler() {
  static const OrtCompiler compiler;
  return compiler;
}

}  // namespace difftest::backends
