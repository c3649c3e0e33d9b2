// A compiler under test that is not the builtin one plugs into the same path: its variants are
// compiled and run in isolated children, compared with the same cases, and signed like the
// builtin's. The test compiler runs the reference interpreter in native mode (a correct
// compiler), once with one output element off by one, once crashing in a stage of its own.
#include "oracle/check/compiler.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "compiler/ir/parser.h"
#include "oracle/check/check.h"
#include "oracle/check/wire.h"
#include "reference/reference.h"

namespace difftest::oracle {
namespace {

Variant test_variant(const std::string& name) { return Variant{VariantKind::Named, pipeline::Pipeline{name, {}, 0}}; }

class ReferenceAsCompiler final : public CompilerUnderTest {
 public:
  std::string identity() const override { return "the reference as a compiler 1.0"; }
  std::vector<Variant> variants(const Program&, const CheckOptions&) const override {
    return {test_variant("exact"), test_variant("off-by-one"), test_variant("crashes")};
  }
  std::optional<Variant> specialized(const Variant&) const override { return std::nullopt; }
  CompiledRuns compile_and_run(const Program& p, const Variant& variant, const std::vector<const Case*>& cases,
                               Progress& progress) const override {
    progress.stage(encode_stage(Stage::compile("Fuse")));
    if (variant.name() == "crashes") std::abort();
    CompiledRuns out;
    for (const Case* c : cases) {
      progress.stage(encode_stage(Stage::run(c->env)));
      CompiledRuns::Run run;
      run.outputs = reference::evaluate(p, c->env, c->inputs, reference::Mode::Native).outputs;
      if (variant.name() == "off-by-one") run.outputs[0].set(0, run.outputs[0].get(0) + 1);
      out.runs.push_back(std::move(run));
    }
    return out;
  }
};

// Elementwise only: the reference's matrix kernels (OpenBLAS threads) do not run in a forked child.
const char* kElementwiseProgram = R"(program @ew(n: 1..8) {
  %a: f32[n, 4] = param
  %b: f32[n, 4] = param
  %y: f32[n, 4] = add(%a, %b)
  %z: f32[n, 4] = tanh(%y)
  return %z
}
)";

TEST(CompilerUnderTest, AnotherCompilerIsCheckedAndSignedByTheSamePath) {
  const ReferenceAsCompiler compiler;
  CheckOptions o;
  o.compiler = &compiler;
  o.pipelines = {};
  o.random_bindings = 0;
  o.limits.cpu_seconds = 30;
  const Verdict v = check_program(parse_program(kElementwiseProgram, "ew.ir"), o);
  int exact = 0, off = 0, crashed = 0;
  for (const auto& var : v.variants) {
    const std::string name = var.variant.name();
    if (name == "exact") {
      ++exact;
      EXPECT_EQ(var.kind, VerdictKind::Ok) << var.message;
    } else if (name == "off-by-one") {
      ++off;
      EXPECT_EQ(var.kind, VerdictKind::Mismatch) << var.message;
      EXPECT_EQ(var.signature().str(), "mismatch|off-by-one|compare|output of tanh");
      EXPECT_EQ(var.index, (std::vector<int64_t>{0, 0}));
    } else if (name == "crashes") {
      ++crashed;
      EXPECT_EQ(var.kind, VerdictKind::CompileCrash) << var.message;
      EXPECT_EQ(var.stage, Stage::compile("Fuse"));
      EXPECT_EQ(var.signature().str().rfind("compile_crash|crashes|Fuse|killed by signal N", 0), 0u)
          << var.signature().str();
    }
  }
  const int bindings = static_cast<int>(default_bindings(parse_program(kElementwiseProgram, "ew.ir"), 0).size());
  EXPECT_EQ(exact, bindings);
  EXPECT_EQ(off, bindings);
  EXPECT_EQ(crashed, 1) << "a compile that crashes is one verdict, whatever the bindings";
  EXPECT_EQ(v.overall(), VerdictKind::Mismatch);
}

}  // namespace
}  // namespace difftest::oracle
