// The builtin compiler as a compiler under test (compiler.h).
#include <fmt/format.h>

#include <chrono>

#include "compiler/pipeline/compile.h"
#include "oracle/check/check.h"
#include "oracle/check/clock.h"
#include "oracle/check/compiler.h"
#include "oracle/check/strategies.h"
#include "oracle/check/wire.h"

namespace difftest::oracle {

namespace {

class BuiltinCompiler final : public CompilerUnderTest {
 public:
  std::string identity() const override {
    return fmt::format("difftest {} (embedded compiler, LLVM 14 JIT)", kDifftestVersion);
  }

  std::vector<Variant> variants(const Program& p, const CheckOptions& options) const override {
    std::vector<Variant> out;
    for (const auto& name : options.pipelines)
      out.push_back(Variant{VariantKind::Named, pipeline::find_pipeline(name)});
    for (const auto& custom : options.custom) out.push_back(custom_variant(custom));
    for (auto& order : random_pass_orders(p, options.random_orders)) {
      out.push_back(Variant{VariantKind::RandomOrder, std::move(order)});
    }
    return out;
  }

  std::optional<Variant> specialized(const Variant& symbolic) const override {
    return specialized_variant(symbolic.pipeline);
  }

  CompiledRuns compile_and_run(const Program& p, const Variant& variant, const std::vector<const Case*>& cases,
                               Progress& progress) const override {
    const pipeline::Pipeline& pipe = variant.pipeline;
    progress.stage(encode_stage(Stage::compile()));
    auto t0 = std::chrono::steady_clock::now();
    pipeline::RunOptions run_options;
    run_options.bisect_limit = pipe.bisect_limit;
    run_options.before_pass = [&](const std::string& pass) { progress.stage(encode_stage(Stage::compile(pass))); };
    pipeline::Lowered lowered = pipeline::run_passes(p, pipe.passes, run_options);
    progress.stage(encode_stage(Stage::codegen()));
    const runtime::Executable exe(std::move(lowered.graph), std::move(lowered.module),
                                  codegen::JitOptions{pipe.llvm_opt_level, pipe.fma_contraction});
    CompiledRuns out;
    out.compile_ms = ms_since(t0);
    out.kernels = exe.module().funcs.size();
    for (const Case* c : cases) {
      progress.stage(encode_stage(Stage::run(c->env)));
      t0 = std::chrono::steady_clock::now();
      CompiledRuns::Run run;
      run.outputs = exe.run(c->inputs, c->env);
      run.run_ms = ms_since(t0);
      out.runs.push_back(std::move(run));
    }
    return out;
  }
};

}  // namespace

const CompilerUnderTest& builtin_compiler() {
  static const BuiltinCompiler compiler;
  return compiler;
}

}  // namespace difftest::oracle
