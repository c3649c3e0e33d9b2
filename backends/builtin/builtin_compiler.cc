#include "backends/builtin/builtin_compiler.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>

#include "backends/builtin/random_orders.h"
#include "compiler/faults/faults.h"
#include "compiler/support/diagnostics.h"
#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/pass_manager.h"
#include "compiler/tensor/npy.h"
#include "exporters/tvmscript/tvmscript.h"
#include "oracle/check/check.h"
#include "oracle/check/expected_results.h"
#include "oracle/check/wire.h"
#include "oracle/isolate/clock.h"

namespace difftest::backends {

using oracle::Case;
using oracle::CheckOptions;
using oracle::CompiledRuns;
using oracle::CompilerUnderTest;
using oracle::PlantedFaults;
using oracle::Progress;
using oracle::Stage;
using oracle::StepRole;
using oracle::Variant;
using oracle::VariantKind;
using oracle::VariantVerdict;

namespace {

constexpr const char* kSpecializedName = "-specialized";
constexpr const char* kOrderPrefix = "order";
// Every check generates machine code at LLVM's fast level (codegen/jit.h): the machine passes
// are LLVM's, not the compiler under test.
constexpr codegen::MachineCode kCheckedMachineCode = codegen::MachineCode::Fast;

class BuiltinCompiler final : public CompilerUnderTest, public PlantedFaults {
 public:
  BuiltinCompiler(const target::Target& target, FaultSet faults) : target_(target), faults_(std::move(faults)) {}

  std::string identity() const override {
    return fmt::format("difftest {} (embedded compiler, LLVM 14 JIT)", oracle::kDifftestVersion);
  }

  std::string name() const override { return "builtin"; }
  const PlantedFaults* planted_faults() const override { return this; }

  std::vector<std::string> known() const override {
    std::vector<std::string> names;
    for (const auto& f : faults::all_faults()) names.push_back(f.name);
    return names;
  }
  std::vector<std::string> enabled() const override { return faults_.names(); }
  const CompilerUnderTest& with(const std::vector<std::string>& names) const override {
    std::vector<std::string> on = faults_.names();
    on.insert(on.end(), names.begin(), names.end());
    return builtin_compiler(BuiltinOptions{&target_, on});
  }
  const CompilerUnderTest& without(const std::vector<std::string>& names) const override {
    if (names.empty()) return builtin_compiler(BuiltinOptions{&target_, {}});
    std::vector<std::string> kept;
    for (const auto& name : faults_.names()) {
      if (std::find(names.begin(), names.end(), name) == names.end()) kept.push_back(name);
    }
    return builtin_compiler(BuiltinOptions{&target_, kept});
  }

  std::vector<std::string> step_list(const std::string& text, const std::string& where) const override {
    return pipeline::parse_pass_list(text, where);
  }

  std::vector<Variant> variants(const Program& p, const CheckOptions& options) const override {
    std::vector<Variant> out;
    for (const auto& name : options.levels) out.push_back(named(name, "--opt"));
    out.insert(out.end(), options.custom.begin(), options.custom.end());
    for (const auto& order : random_pass_orders(p, options.random_orders)) {
      out.push_back(builtin_variant(VariantKind::RandomOrder, order));
    }
    return out;
  }

  std::optional<Variant> specialized(const Variant& symbolic) const override {
    Variant v = symbolic;
    v.kind = VariantKind::Specialized;
    v.label += kSpecializedName;
    v.steps.insert(v.steps.begin(), "SpecializeShapes");
    return v;
  }

  Variant named(const std::string& name, const std::string& where) const override {
    try {
      return builtin_variant(VariantKind::Named, pipeline::find_pipeline(name));
    } catch (const UserError& e) {
      throw UserError(ErrorKind::Usage, fmt::format("{}: the variant names {}", where, e.message()));
    }
  }

  Variant recorded(const std::string& name, std::vector<std::string> steps, const nlohmann::json& record,
                   const std::string& where) const override {
    for (const auto& pass : steps) {
      try {
        pipeline::find_pass(pass);
      } catch (const UserError& e) {
        throw UserError(ErrorKind::Syntax, fmt::format("{}: a recorded variant {}", where, e.message()));
      }
    }
    pipeline::Pipeline pipe{name, std::move(steps), 0};
    try {
      pipe.llvm_opt_level = std::max(0, record.value("llvm_opt_level", 0));
      pipe.fma_contraction = record.value("fma_contraction", false);
    } catch (const nlohmann::json::exception& e) {
      throw UserError(ErrorKind::Syntax,
                      fmt::format("{}: a recorded variant has a field of the wrong kind: {}", where, e.what()));
    }
    const bool order = name.rfind(kOrderPrefix, 0) == 0;
    return builtin_variant(order ? VariantKind::RandomOrder : VariantKind::Custom, pipe);
  }

  CompiledRuns compile_and_run(const Program& p, const Variant& variant, const std::vector<const Case*>& cases,
                               Progress& progress) const override {
    const pipeline::Pipeline pipe = builtin_pipeline(variant);
    progress.stage(oracle::encode_stage(Stage::compile()));
    auto t0 = std::chrono::steady_clock::now();
    // The compile's context, built once here in the oracle's child: this compiler's target and
    // faults, and the variant's bisection limit.
    pipeline::RunOptions run_options;
    run_options.context.target = &target_;
    run_options.context.faults = faults_;
    run_options.context.bisect_limit = pipe.bisect_limit;
    run_options.before_pass = [&](const std::string& pass) {
      progress.stage(oracle::encode_stage(Stage::compile(pass)));
    };
    run_options.codegen_steps = pipeline::codegen_steps(pipe, *run_options.context.target);
    pipeline::Lowered lowered = pipeline::run_passes(p, pipe.passes, run_options);
    progress.stage(oracle::encode_stage(Stage::codegen()));
    codegen::JitOptions jit{pipe.llvm_opt_level, pipeline::contracts(lowered), kCheckedMachineCode};
    jit.faults = run_options.context.faults;
    const runtime::Executable exe(std::move(lowered.graph), std::move(lowered.module), jit);
    CompiledRuns out;
    out.compile_ms = oracle::ms_since(t0);
    out.kernels = exe.module().funcs.size();
    for (const auto& pass : lowered.changed) out.exercised.push_back("pass:" + pass);
    for (const Case* c : cases) {
      progress.stage(oracle::encode_stage(Stage::run(c->env)));
      t0 = std::chrono::steady_clock::now();
      CompiledRuns::Run run;
      run.outputs = exe.run(c->inputs, c->env);
      run.run_ms = oracle::ms_since(t0);
      out.runs.push_back(std::move(run));
    }
    return out;
  }

  StepRole step_role(const std::string& step) const override {
    switch (pipeline::find_pass(step).kind) {
      case pipeline::PassKind::Lowering:
        return StepRole::Required;
      case pipeline::PassKind::Graph:
        return StepRole::Graph;
      case pipeline::PassKind::Loop:
        break;
      case pipeline::PassKind::Codegen:
        return pipeline::find_pass(step).required ? StepRole::Required : StepRole::Other;
    }
    return StepRole::Other;
  }

  // The pass list, then the codegen steps the variant's settings apply on this target.
  std::vector<std::string> numbered_steps(const Variant& variant) const override {
    std::vector<std::string> steps = variant.steps;
    for (auto& step : pipeline::codegen_steps(builtin_pipeline(variant), target_)) {
      steps.push_back(std::move(step));
    }
    return steps;
  }

  // Only the graph passes: lowering here, in the harness's own process, let a pass that crashes
  // (legalize-null-deref's) take `difftest reduce` and the detection benchmark down with it.
  std::optional<Program> program_after(const Program& p, const Variant& variant, int applications) const override {
    pipeline::RunOptions run;
    run.context.target = &target_;
    run.context.faults = faults_;
    run.context.bisect_limit = applications;
    run.graph_only = true;
    return pipeline::run_passes(p, variant.steps, run).graph;
  }

  std::string fixed_culprit(const Stage& failed_in) const override {
    return failed_in.kind == Stage::Kind::Codegen ? "codegen" : "LegalizeOps";
  }

  std::string environment(const Variant& variant) const override {
    const pipeline::Pipeline pipe = builtin_pipeline(variant);
    static_assert(kCheckedMachineCode == codegen::MachineCode::Fast, "the line below names the machine code");
    return fmt::format(
        "difftest {} (embedded compiler, LLVM 14 JIT: IR passes at -O{}{}, machine code at LLVM's fast level, "
        "target {})",
        oracle::kDifftestVersion, pipe.llvm_opt_level, pipe.fma_contraction ? ", FMA contraction" : "", target());
  }

  std::string replay_flags(const Variant& variant) const override {
    const pipeline::Pipeline pipe = builtin_pipeline(variant);
    return fmt::format("--passes {} --passes-llvm {}{}", fmt::join(pipe.passes, ","), pipe.llvm_opt_level,
                       pipe.fma_contraction ? " --passes-fma" : "");
  }

  std::string target() const override { return target_.name; }

  void write_reproducer(const std::string& dir, const Program& p, const sym::Env& binding,
                        const VariantVerdict& failure, const CheckOptions& options) const override {
    exporters::TvmScriptOptions tvm;
    tvm.failing_config = failure.variant.tested.name();
    tvm.passing_config = "O0";
    tvm.binding = binding;
    const Case c = oracle::make_case(p, binding, options.cases());
    if (!c.invalid()) tvm.expected = oracle::expected_results(p, c, failure.kind, options);
    write_file_atomic((std::filesystem::path(dir) / "repro_tvmscript.py").string(),
                      exporters::export_tvmscript(p, tvm));
  }

  std::string reproducer_files() const override {
    return "`repro_tvmscript.py` holds the program as a TVM Relax module and, with the failing inputs, the reference "
           "values and the allowance embedded, says by itself whether TVM computes it right at each opt_level "
           "(whether TVM shares the bug)";
  }

 private:
  const target::Target& target_;
  const FaultSet faults_;
};

}  // namespace

Variant builtin_variant(VariantKind kind, const pipeline::Pipeline& pipe) {
  return Variant{kind,
                 pipe.name,
                 pipe.passes,
                 {{"llvm_opt_level", pipe.llvm_opt_level}, {"fma_contraction", pipe.fma_contraction}},
                 pipe.bisect_limit};
}

pipeline::Pipeline builtin_pipeline(const Variant& v) {
  pipeline::Pipeline pipe{v.label, v.steps, v.settings.value("llvm_opt_level", 0)};
  pipe.fma_contraction = v.settings.value("fma_contraction", false);
  pipe.bisect_limit = v.limit;
  return pipe;
}

Variant variant_of_pipeline(const pipeline::Pipeline& pipe) {
  for (const auto& named : pipeline::pipelines()) {
    if (named.name == pipe.name && named.passes == pipe.passes && named.llvm_opt_level == pipe.llvm_opt_level &&
        named.fma_contraction == pipe.fma_contraction) {
      return builtin_variant(VariantKind::Named, pipe);
    }
  }
  const bool order = pipe.name.rfind(kOrderPrefix, 0) == 0;
  return builtin_variant(order ? VariantKind::RandomOrder : VariantKind::Custom, pipe);
}

const CompilerUnderTest& builtin_compiler(const BuiltinOptions& options) {
  FaultSet faults = FaultSet::of(options.faults);
  const std::string key = fmt::format("{} {}", options.target->name, fmt::join(faults.names(), ","));
  // Built on the harness's main thread (a command, the gate, a campaign worker, which is a forked
  // child) and never by the threads of a kernel's thread pool: no fork happens while another
  // thread holds this lock, so no child inherits it held.
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<const BuiltinCompiler>> built;
  const std::lock_guard<std::mutex> lock(mutex);
  auto& compiler = built[key];
  if (!compiler) compiler = std::make_unique<const BuiltinCompiler>(*options.target, std::move(faults));
  return *compiler;
}

const CompilerUnderTest& builtin_compiler() {
  static const CompilerUnderTest& clean = builtin_compiler(BuiltinOptions{});
  return clean;
}

}  // namespace difftest::backends
