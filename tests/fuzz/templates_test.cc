// Model templates: valid, deterministic, finite under every standard binding, agreeing with
// the reference at O0, and faithful to the models they are named after.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/ops/op.h"
#include "fuzz/templates.h"
#include "oracle/check/check.h"
#include "reference/inputs.h"
#include "reference/reference.h"
#include "reference/summary.h"
#include "tests/support/builtin.h"

namespace difftest {
namespace {

Program build(const std::string& name, uint64_t seed, int size_shift = 4) {
  PcgChoices choices(seed);
  TemplateOptions options;
  options.size_shift = size_shift;
  return make_template(name, choices, options);
}

const Binding& producer(const Program& p, const std::string& value) {
  for (const auto& b : p.bindings()) {
    for (const auto& r : b.results()) {
      if (r.name() == value) return b;
    }
  }
  throw std::runtime_error("no value %" + value + " in\n" + print(p));
}

std::vector<const Binding*> calls_of(const Program& p, const std::string& op) {
  std::vector<const Binding*> out;
  for (const auto& b : p.bindings()) {
    if (b.is_call() && b.op().name == op) out.push_back(&b);
  }
  return out;
}

std::vector<int64_t> static_dims(const TensorType& t) {
  std::vector<int64_t> out;
  for (const auto& d : t.shape) out.push_back(d.is_const() ? d.value() : -1);
  return out;
}

constexpr uint64_t kSeeds = 6;

// DIFFTEST_TEMPLATE_SEEDS=N widens the per-seed checks for a longer soak.
uint64_t check_seeds() {
  const char* s = std::getenv("DIFFTEST_TEMPLATE_SEEDS");
  return s ? std::strtoull(s, nullptr, 10) : kSeeds;
}

class TemplateSeed : public ::testing::TestWithParam<std::tuple<std::string, uint64_t>> {};

TEST_P(TemplateSeed, VerifiesRoundTripsStaysFiniteAndAgreesAtO0) {
  const auto& [name, seed] = GetParam();
  const Program p = build(name, seed);
  const std::string text = print(p);
  ASSERT_NO_THROW(verify(p)) << text;
  EXPECT_EQ(print(parse_program(text)), text);

  for (const auto& env : reference::standard_bindings(p)) {
    const auto inputs = reference::generate_inputs(p, env, 0);
    for (reference::Mode mode : {reference::Mode::F64, reference::Mode::Native}) {
      const reference::Evaluation ev = reference::evaluate(p, env, inputs, mode);
      for (const auto& b : p.bindings()) {
        for (const auto& r : b.results()) {
          auto it = ev.values.find(r.get());
          if (!is_float(r.type().dtype) || it == ev.values.end()) continue;
          for (int64_t i = 0; i < it->second.numel(); ++i) {
            ASSERT_TRUE(std::isfinite(it->second.get(i)))
                << "%" << r.name() << "[" << i << "] under " << reference::binding_str(env) << " in "
                << reference::mode_name(mode) << " mode\n"
                << text;
          }
        }
      }
    }
  }

  oracle::CheckOptions options = testing::builtin_checks();
  options.limits.cpu_seconds = 60;  // nothing hangs here: a slow machine must not make a timeout
  const oracle::Verdict v = oracle::check_program(p, options);
  const oracle::VariantVerdict* bad = nullptr;
  for (const auto& variant : v.variants) {
    if (!bad && variant.kind != oracle::VerdictKind::Ok && variant.kind != oracle::VerdictKind::Unchecked) {
      bad = &variant;
    }
  }
  // `unchecked` (an output the rules cannot bound, such as a one-element instance norm at t=1)
  // is no disagreement; every other kind but ok is.
  EXPECT_TRUE(v.overall() == oracle::VerdictKind::Ok || v.overall() == oracle::VerdictKind::Unchecked)
      << oracle::verdict_kind_name(v.overall()) << " "
      << (bad ? reference::binding_str(bad->binding) + " " + bad->stage.name() + ": " + bad->message : std::string())
      << "\n"
      << text;
}

INSTANTIATE_TEST_SUITE_P(Templates, TemplateSeed,
                         ::testing::Combine(::testing::ValuesIn(template_names()),
                                            ::testing::Range<uint64_t>(0, check_seeds())),
                         [](const ::testing::TestParamInfo<TemplateSeed::ParamType>& info) {
                           std::string n = std::get<0>(info.param);
                           for (char& ch : n) ch = ch == '-' ? '_' : ch;
                           return n + "_seed" + std::to_string(std::get<1>(info.param));
                         });

TEST(Templates, NamesInOrder) {
  EXPECT_EQ(template_names(), (std::vector<std::string>{"gemma3-layer", "mistral-swa", "kokoro-conv"}));
}

TEST(Templates, UnknownNameIsAUsageErrorListingTheTemplates) {
  PcgChoices choices(0);
  try {
    make_template("llama-layer", choices);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    for (const auto& n : template_names()) EXPECT_NE(e.message().find(n), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("llama-layer"), std::string::npos) << e.message();
  }
  TemplateOptions bad;
  bad.size_shift = -1;
  EXPECT_THROW(make_template("gemma3-layer", choices, bad), UserError);
}

TEST(Templates, EverySizeShiftVerifies) {
  for (const auto& name : template_names()) {
    for (int shift = 0; shift <= 12; ++shift) {
      for (uint64_t seed = 0; seed < 3; ++seed) {
        EXPECT_NO_THROW(verify(build(name, seed, shift))) << name << " shift " << shift << " seed " << seed;
      }
    }
  }
}

TEST(Templates, SameChoicesSameBytes) {
  for (const auto& name : template_names()) {
    std::set<std::string> distinct;
    for (uint64_t seed = 0; seed < kSeeds; ++seed) {
      const std::string text = print(build(name, seed));
      EXPECT_EQ(text, print(build(name, seed))) << name << " seed " << seed;
      distinct.insert(text);
    }
    EXPECT_GT(distinct.size(), 2u) << name << " hardly depends on its choices";
  }
}

// p<digits>, c<digits> or <digits>.  (Not std::regex: it trips GCC 12's
// -Wmaybe-uninitialized under -fsanitize=address.)
bool is_generator_name(const std::string& name) {
  const size_t digits_from = (!name.empty() && (name[0] == 'p' || name[0] == 'c')) ? 1 : 0;
  if (name.size() <= digits_from) return false;
  return std::all_of(name.begin() + digits_from, name.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

// A generator keeps adding ops after a template, with its own p<i>, c<i>, <i> names and m, k,
// s dims.
TEST(Templates, NamesStayClearOfTheGenerators) {
  for (const auto& name : template_names()) {
    for (uint64_t seed = 0; seed < kSeeds; ++seed) {
      const Program p = build(name, seed);
      for (const auto& b : p.bindings()) {
        for (const auto& r : b.results()) {
          EXPECT_FALSE(is_generator_name(r.name())) << name << ": %" << r.name();
        }
      }
      for (const auto& d : p.dims()) {
        EXPECT_TRUE(d.name == "n" || d.name == "t" || d.name == "kv") << name << ": " << d.name;
      }
    }
  }
}

TEST(Templates, GemmaHasLocalAndGlobalLayersWithTheirRope) {
  int local = 0, global = 0;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    const Program p = build("gemma3-layer", seed);
    const int layer = std::stoi(p.name().substr(std::string("gemma3_layer").size()));
    ASSERT_TRUE(layer >= 0 && layer < 18) << p.name();
    const bool is_global = (layer + 1) % 6 == 0;
    (is_global ? global : local) += 1;
    const Attrs& attn = producer(p, "attn").attrs();
    EXPECT_EQ(attn.get_int("window"), is_global ? 0 : 512 >> 4) << p.name();
    EXPECT_TRUE(attn.get_bool("causal"));
    const auto ropes = calls_of(p, "rope");
    ASSERT_EQ(ropes.size(), 2u);
    for (const Binding* r : ropes) EXPECT_EQ(r->attrs().get_float("theta"), is_global ? 1e6 : 1e4) << p.name();
    // The window must cut in somewhere in n's range.
    EXPECT_GT(p.ranges().at("n").hi, 512 >> 4);
  }
  EXPECT_GT(local, 0);
  EXPECT_GT(global, 0);
}

TEST(Templates, GemmaAtFullSizeHasGemma3_270mShapes) {
  bool saw_local = false, saw_global = false;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    const Program p = build("gemma3-layer", seed, 0);
    ASSERT_NO_THROW(verify(p)) << p.name();
    EXPECT_EQ(static_dims(producer(p, "x").result().type()), (std::vector<int64_t>{1, -1, 640}));

    const Binding& attn = producer(p, "attn");
    const auto q = static_dims(attn.args()[0].type()), k = static_dims(attn.args()[1].type());
    EXPECT_EQ(q[2], 4) << "query heads";
    EXPECT_EQ(q[3], 256) << "head_dim";
    EXPECT_EQ(k[2], 1) << "kv heads";
    EXPECT_EQ(k[3], 256);
    EXPECT_EQ(attn.attrs().get_float("scale"), 1.0 / 16);
    const int64_t window = attn.attrs().get_int("window");
    EXPECT_TRUE(window == 0 || window == 512) << window;
    (window == 0 ? saw_global : saw_local) = true;

    const std::map<std::string, std::vector<int64_t>> weights = {
        {"wq", {1024, 640}},    {"wk", {256, 640}},     {"wv", {256, 640}},    {"wo", {640, 1024}},
        {"w_gate", {2048, 640}}, {"w_up", {2048, 640}}, {"w_down", {640, 2048}}};
    for (const auto& [w, shape] : weights) {
      const Binding& deq = producer(p, w);
      EXPECT_EQ(deq.op().name, "dequantize");
      EXPECT_EQ(static_dims(deq.result().type()), shape) << w;
      EXPECT_EQ(deq.attrs().get_string("format"), "q4f16_1");
      EXPECT_EQ(deq.attrs().get_int("group"), 32) << w;
      EXPECT_EQ(static_dims(deq.args()[0].type()), (std::vector<int64_t>{shape[0], shape[1] / 8})) << w;
      EXPECT_EQ(static_dims(deq.args()[1].type()), (std::vector<int64_t>{shape[0], shape[1] / 32})) << w;
    }
    const auto norms = calls_of(p, "rms_norm");
    EXPECT_EQ(norms.size(), 6u) << "input, q, k, post-attention, pre-MLP and post-MLP norms";
    for (const Binding* b : norms) {
      EXPECT_EQ(b->attrs().get_float("weight_offset"), 1.0);
      EXPECT_EQ(b->attrs().get_float("eps"), 1e-6);
    }
    EXPECT_EQ(static_dims(producer(p, "q_norm").args()[1].type()), (std::vector<int64_t>{256}));
    EXPECT_EQ(static_dims(producer(p, "k_norm").args()[1].type()), (std::vector<int64_t>{256}));
    EXPECT_EQ(producer(p, "gate_gelu").attrs().get_string("approximate"), "tanh");
    EXPECT_EQ(producer(p, "gate_gelu").args()[0].name(), "gate");
  }
  EXPECT_TRUE(saw_local);
  EXPECT_TRUE(saw_global);
}

}  // namespace
}  // namespace difftest
