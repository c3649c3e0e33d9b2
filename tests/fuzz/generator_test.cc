// The program generator: deterministic to the byte, always valid, and broad.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/support/hash.h"
#include "compiler/ir/verifier.h"
#include "compiler/ops/op.h"
#include "compiler/sym/sym_prove.h"
#include "fuzz/generator.h"

namespace difftest {
namespace {

// tests/fuzz/generated_hashes.txt holds fnv1a64(print(generate_program(seed))) for seeds
// 0..99, one "seed hash" per line. They pin the generator's output on every machine: a change
// to the generator that alters programs must update the file on purpose (the failure message
// prints the new lines).
TEST(Generator, ProgramTextsMatchTheCheckedInHashes) {
  std::ifstream in(std::string(DIFFTEST_SOURCE_DIR) + "/tests/fuzz/generated_hashes.txt");
  ASSERT_TRUE(in.good()) << "missing tests/fuzz/generated_hashes.txt";
  std::map<uint64_t, std::string> expected;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    uint64_t seed = 0;
    std::string hash;
    fields >> seed >> hash;
    expected[seed] = hash;
  }
  ASSERT_EQ(expected.size(), 100u);
  std::string actual;
  int differing = 0;
  for (uint64_t seed = 0; seed < 100; ++seed) {
    const std::string hash = fmt::format("{:016x}", program_hash(generate_program(seed)));
    actual += fmt::format("{} {}\n", seed, hash);
    differing += expected[seed] != hash;
  }
  EXPECT_EQ(differing, 0) << "generated programs changed; if intended, the new file body is:\n" << actual;
}

TEST(Generator, SameSeedSameBytesInOneProcess) {
  for (uint64_t seed = 0; seed < 50; ++seed) {
    EXPECT_EQ(print(generate_program(seed)), print(generate_program(seed))) << seed;
  }
  EXPECT_NE(print(generate_program(1)), print(generate_program(2)));
}

TEST(Generator, ProgramsRoundTripThroughTheTextForm) {
  for (uint64_t seed = 0; seed < 200; ++seed) {
    const std::string text = print(generate_program(seed));
    EXPECT_EQ(print(parse_program(text, "gen.ir")), text) << "seed " << seed;
  }
}

TEST(Generator, CoversEveryOpAndDtypeOver2000Seeds) {
  std::map<std::string, int> ops;
  std::map<DType, int> dtypes;
  int with_dims = 0, templates = 0;
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    const Program p = generate_program(seed);
    ASSERT_NO_THROW(verify(p)) << print(p);
    with_dims += !p.dims().empty();
    bool from_template = false;
    for (const auto& b : p.bindings()) {
      if (b.is_call()) ++ops[b.op().name];
      for (const auto& r : b.results()) {
        ++dtypes[r.type().dtype];
        from_template = from_template || r.name() == "x";
      }
    }
    templates += from_template;
  }
  std::string counts;
  for (const OpDef* op : OpRegistry::get().all()) {
    counts += fmt::format("{}={} ", op->name, ops[op->name]);
    EXPECT_GT(ops[op->name], 0) << op->name << " never generated";
  }
  for (DType dt : kAllDTypes) {
    counts += fmt::format("{}={} ", dtype_name(dt), dtypes[dt]);
    EXPECT_GT(dtypes[dt], 0) << dtype_name(dt) << " never generated";
  }
  std::printf("op and dtype counts over 2000 seeds: %s\nprograms with dim variables: %d, from templates: %d\n",
              counts.c_str(), with_dims, templates);
  EXPECT_GT(with_dims, 1900);
}

// An f16/bf16 reduction or product is generated three ways: in its own dtype (no `acc`: the narrow
// accumulation LLM kernels without an f32 accumulator do), in f32 and in f64.
TEST(Generator, NarrowFloatsAccumulateInTheirOwnDtypeAndWider) {
  const std::set<std::string> accumulating = {"sum", "mean", "matmul", "linear"};
  std::map<std::pair<DType, std::string>, int> by_acc;
  for (uint64_t seed = 0; seed < 1000; ++seed) {
    const Program p = generate_program(seed);
    for (const auto& b : p.bindings()) {
      if (!b.is_call() || !accumulating.count(b.op().name)) continue;
      const DType dt = b.args().front().type().dtype;
      if (dt != DType::f16 && dt != DType::bf16) continue;
      const std::optional<DType> acc = b.attrs().get_opt_dtype("acc");
      ++by_acc[{dt, acc ? dtype_name(*acc) : "none"}];
    }
  }
  for (DType dt : {DType::f16, DType::bf16}) {
    for (const std::string acc : {"none", "f32", "f64"}) {
      EXPECT_GT((by_acc[{dt, acc}]), 0) << dtype_name(dt) << " operands with acc " << acc << " never generated";
    }
  }
}

TEST(Generator, WeightsSteerAndExcludeOps) {
  GeneratorOptions only_exp;
  for (const auto& [name, w] : default_op_weights()) only_exp.weights[name] = 0;
  only_exp.weights["exp"] = 1;
  only_exp.template_percent = 0;
  for (uint64_t seed = 0; seed < 50; ++seed) {
    const Program p = generate_program(seed, only_exp);  // bindings() refers into it
    for (const auto& b : p.bindings()) {
      if (!b.is_call()) continue;
      // Guards (tanh, abs, add, clip) may appear around exp; nothing else may.
      EXPECT_TRUE(b.op().name == "exp" || b.op().name == "tanh") << b.op().name << " in seed " << seed;
    }
  }
}

// Motifs chain their calls: a matmul's product feeds a bias add (of several broadcast shapes)
// and that an activation; a conv2d feeds an activation or a residual add; an add feeds a norm
// over the last axis and a softmax. Counted over 60 seeds, each form must appear.
TEST(Generator, MotifsChainLayersAsExportersWriteThem) {
  GeneratorOptions options;
  options.motif_percent = 100;
  options.template_percent = 0;
  std::map<std::string, int> seen;
  std::set<std::vector<int64_t>> bias_ranks;  // {rank of the product, rank of its bias}
  for (uint64_t seed = 0; seed < 60; ++seed) {
    const Program p = generate_program(seed, options);
    std::map<const ValueNode*, std::string> producer;
    for (const auto& b : p.bindings()) {
      if (!b.is_call()) continue;
      for (size_t i = 0; i < b.args().size(); ++i) {
        const auto from = producer.find(b.args()[i].get());
        if (from == producer.end()) continue;
        const std::string link = from->second + "->" + b.op().name;
        ++seen[link];
        if (link == "matmul->add") {
          bias_ranks.insert({b.args()[i].type().rank(), b.args()[1 - i].type().rank()});
        }
      }
      for (const auto& r : b.results()) producer[r.get()] = b.op().name;
    }
  }
  for (const char* link :
       {"matmul->add", "add->relu", "add->gelu", "add->silu", "conv2d->relu", "conv2d->add", "add->layer_norm",
        "add->rms_norm", "add->softmax", "dequantize->matmul", "div->matmul", "mul->matmul", "matmul->mul"}) {
    EXPECT_GE(seen[link], 1) << link;
  }
  EXPECT_GE(bias_ranks.size(), 5u) << "bias shapes of too few ranks";
}

// An op given fewer float dtypes (a compiler's kernels: ORT's CPU Conv is f32 only) is drawn
// only in those, as a single op and inside a motif, and computes in its own dtype (a wider
// `acc` would be exported as a wider Conv); the other ops keep every dtype.
TEST(Generator, OpFloatDtypesNarrowAnOpsDtypes) {
  GeneratorOptions options;
  options.motif_percent = 30;
  options.template_percent = 0;
  for (const char* conv : {"conv1d", "conv2d", "conv_transpose1d"}) {
    options.weights[conv] = 200;
    options.op_float_dtypes[conv] = {DType::f32};
  }
  std::set<DType> conv_dtypes, other_dtypes, wider_accumulators;
  int convs = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    const Program p = generate_program(seed, options);
    for (const auto& b : p.bindings()) {
      if (!b.is_call() || !is_float(b.results().front().type().dtype)) continue;
      const bool conv = b.op().name.rfind("conv", 0) == 0;
      convs += conv;
      if (conv && b.attrs().has("acc") && b.attrs().get_dtype("acc") != b.results().front().type().dtype) {
        wider_accumulators.insert(b.attrs().get_dtype("acc"));
      }
      (conv ? conv_dtypes : other_dtypes).insert(b.results().front().type().dtype);
    }
  }
  EXPECT_GE(convs, 40);
  EXPECT_EQ(conv_dtypes, std::set<DType>{DType::f32});
  EXPECT_TRUE(wider_accumulators.empty()) << "a conv computing in a wider dtype than its own";
  EXPECT_GE(other_dtypes.size(), 3u);
}

TEST(Generator, WeightFlagsAreParsedStrictly) {
  EXPECT_EQ(parse_op_weights("exp=0,matmul=40", "--weights"), (std::map<std::string, uint32_t>{{"exp", 0}, {"matmul", 40}}));
  for (const char* bad : {"exp", "exp=", "exp=-1", "nosuchop=3", "exp=3x"}) {
    EXPECT_THROW(parse_op_weights(bad, "--weights"), UserError) << bad;
  }
}

// max_elements bounds every tensor at its dims' upper bounds, the program's outputs among them:
// with one or two ops most calls are dropped as too large, and a program whose every call was
// dropped still returns a tensor within the limit (the reference refuses anything bigger).
TEST(Generator, EveryTensorFitsMaxElementsAtTheDimsUpperBounds) {
  GeneratorOptions tiny;
  tiny.max_ops = 2;
  tiny.max_elements = 64;
  tiny.template_percent = 0;
  tiny.weights = {{"sum", 200}, {"mean", 200}, {"max", 200}, {"min", 200}};
  int fallback_outputs = 0;
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    const Program p = generate_program(seed, tiny);
    bool any_call = false;
    for (const auto& b : p.bindings()) {
      any_call |= b.is_call();
      for (const auto& v : b.results()) {
        double numel = 1;
        for (const auto& d : v.type().shape) {
          const sym::Interval range = sym::bounds(d, p.ranges());
          ASSERT_TRUE(range.hi_finite()) << "seed " << seed << "\n" << print(p);
          numel *= static_cast<double>(range.hi);
        }
        EXPECT_LE(numel, 64.0) << "%" << v.name() << ", seed " << seed << "\n" << print(p);
      }
    }
    fallback_outputs += !any_call;
  }
  EXPECT_GT(fallback_outputs, 0) << "no seed exercised the program whose every call was dropped";
}

}  // namespace
}  // namespace difftest

namespace difftest {
namespace {

bool calls_op(const Program& p, const std::string& op) {
  for (const Binding& b : p.bindings()) {
    if (b.is_call() && b.op().name == op) return true;
  }
  return false;
}

// A compiler under test that declares what it runs gets only such programs, the same ones
// every time; one that declares nothing gets the seed's own program (the checked-in hashes).
TEST(Generator, DrawsAgainUntilTheCompilerDeclaresItRunsTheProgram) {
  GeneratorOptions takes_only_f32;
  takes_only_f32.float_dtypes = {DType::f32};  // as a backend that declares dtypes draws
  takes_only_f32.dtypes = {DType::f32, DType::boolean, DType::i32, DType::i64, DType::i8, DType::u8};
  takes_only_f32.can_take = [](const Program& p) { return !calls_op(p, "floor_mod"); };
  int redrawn = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    const Program p = generate_program(seed, takes_only_f32);
    ASSERT_TRUE(uses_only_dtypes(p, takes_only_f32.dtypes)) << "seed " << seed << "\n" << print(p);
    for (DType t : p.dtypes_computed()) EXPECT_FALSE(t == DType::f16 || t == DType::u32 || t == DType::f64);
    EXPECT_FALSE(calls_op(p, "floor_mod")) << "seed " << seed;
    EXPECT_EQ(print(generate_program(seed, takes_only_f32)), print(p)) << "not deterministic, seed " << seed;
    const Program own = generate_program(seed);
    redrawn += print(own) != print(p);
    PcgChoices stream(seed);
    EXPECT_EQ(print(generate_program(stream, GeneratorOptions{})), print(own)) << "the first draw is the seed's";
  }
  EXPECT_GT(redrawn, 100) << "f32-only programs are other programs than the seed's own";
}

}  // namespace
}  // namespace difftest
