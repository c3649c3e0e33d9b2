// Export then import gives back a program with the same results under the reference: for the
// corpus programs and generated seeds whose ops all have an ONNX form (the others are counted
// and must fail with Unsupported naming the binding, never with a wrong model). The round trip
// is judged as a compiled result would be: within the original's bounds, since its
// decompositions (gelu in parts, constants in the program's dtype) round differently.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "fuzz/generator.h"
#include "interop/onnx/export.h"
#include "interop/onnx/import.h"
#include "oracle/check/case.h"
#include "reference/inputs.h"
#include "reference/reference.h"

namespace difftest::interop {
namespace {

namespace fs = std::filesystem;

// Empty when the round trip of `p`, run in its declared dtypes, is within the bounds of `p`'s
// reference under the lower-bound binding (as a compiled result would have to be); else what
// differs.
std::string round_trip_difference(const Program& p, uint64_t form_seed) {
  const ::onnx::ModelProto model = export_program(p, {form_seed});
  std::string bytes;
  model.SerializeToString(&bytes);
  ::onnx::ModelProto read;
  if (!read.ParseFromString(bytes)) return "the model does not parse back";
  const Program q = import_model(read, {}, p.name() + ".onnx");
  if (q.outputs().size() != p.outputs().size()) return "a different number of outputs";
  sym::Env env;
  for (const auto& d : p.dims()) env[d.name] = d.range.lo;
  oracle::CaseOptions options;
  options.input_seed = 7;
  options.tolerance.mode = tolerance::BoundMode::Probabilistic;
  options.ensemble.members = 0;
  const oracle::Case c = oracle::make_case(p, env, options);
  if (c.invalid()) return "";  // nothing to compare: the reference is not finite here
  // The round trip declares only the dims its inputs have (a dim no input has cannot be
  // exported, so no op uses it).
  sym::Env q_env;
  for (const auto& d : q.dims()) q_env[d.name] = env.at(d.name);
  const auto got = reference::evaluate(q, q_env, c.inputs, reference::Mode::Native).outputs;
  const tolerance::Comparison cmp = c.compare(p, got, options.tolerance);
  for (const auto& o : cmp.outputs) {
    if (!o.passed()) {
      return fmt::format("output {}: {} elements beyond the bounds, worst got {} want {} bound {}\n{}", o.index,
                         o.failing, o.got, o.want, o.bound, print(q));
    }
  }
  return "";
}

TEST(OnnxRoundTrip, CorpusProgramsThatExportComeBackTheSame) {
  int exported = 0, unsupported = 0;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(DIFFTEST_SOURCE_DIR) / "corpus")) {
    if (entry.path().extension() != ".ir") continue;
    const Program p = parse_program_file(entry.path().string());
    try {
      EXPECT_EQ(round_trip_difference(p, 0), "") << entry.path();
      ++exported;
    } catch (const Unsupported& e) {
      EXPECT_NE(e.message().find("binding"), std::string::npos) << e.message();
      ++unsupported;
    }
  }
  std::printf("corpus: %d programs round-tripped, %d have an op without an ONNX form yet\n", exported, unsupported);
  EXPECT_GE(exported, 5);
}

TEST(OnnxRoundTrip, GeneratedProgramsThatExportComeBackTheSame) {
  int exported = 0, unsupported = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    const Program p = generate_program(seed);
    try {
      EXPECT_EQ(round_trip_difference(p, seed), "") << "seed " << seed << "\n" << print(p);
      ++exported;
    } catch (const Unsupported&) {
      ++unsupported;
    }
  }
  std::printf("seeds 0..299: %d round-tripped, %d have an op without an ONNX form yet\n", exported, unsupported);
  EXPECT_GE(exported, 20);
}

}  // namespace
}  // namespace difftest::interop
