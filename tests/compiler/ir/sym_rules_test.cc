// Every rewrite rule of sym_rules.def, checked on its own: it preserves the value of the
// expression (random instances, random bindings in range) and it fires at least once (no
// dead rules). Deterministic: the instances come from a fixed PCG32 stream.
#include <gtest/gtest.h>

#include "compiler/support/diagnostics.h"
#include "compiler/sym/sym_simplify.h"
#include "tests/support/sym_gen.h"

namespace difftest::sym {
namespace {

using difftest::testing::random_env;
using difftest::testing::random_expr;
using difftest::testing::test_ranges;

Expr instantiate(const Expr& pattern, ChoiceSource& c, std::map<std::string, Expr>& chosen) {
  return substitute(pattern, [&](const std::string& name) -> std::optional<Expr> {
    auto it = chosen.find(name);
    if (it != chosen.end()) return it->second;
    Expr e;
    if (name.size() >= 2 && name[0] == 'c' && std::isdigit(static_cast<unsigned char>(name[1]))) {
      e = Expr(c.pick(std::vector<int64_t>{-8, -4, -3, -2, -1, 1, 2, 3, 4, 6, 8, 16}));
    } else {
      e = random_expr(c, 2);
    }
    chosen[name] = e;
    return e;
  });
}

TEST(SymRules, EveryRuleParsesAndHasAReason) {
  ASSERT_GE(rewrite_rules().size(), 20u);
  for (const auto& r : rewrite_rules()) {
    EXPECT_TRUE(r.lhs.defined()) << r.lhs_text;
    EXPECT_TRUE(r.rhs.defined()) << r.rhs_text;
    EXPECT_FALSE(r.why.empty()) << r.lhs_text;
  }
}

TEST(SymRules, EveryRulePreservesValueAndFires) {
  const Ranges ranges = test_ranges();
  PcgChoices c(20261122);
  for (const auto& rule : rewrite_rules()) {
    int fired = 0;
    for (int trial = 0; trial < 4000 && fired < 50; ++trial) {
      std::map<std::string, Expr> chosen;
      const Expr instance = instantiate(rule.lhs, c, chosen);
      const auto rewritten = apply_rule(rule, instance, ranges);
      if (!rewritten) continue;
      ++fired;
      for (int k = 0; k < 20; ++k) {
        const Env env = random_env(c, ranges);
        int64_t want;
        try {
          want = eval(instance, env);
        } catch (const UserError&) {
          continue;
        }
        int64_t got = 0;
        try {
          got = eval(*rewritten, env);
        } catch (const UserError& e) {
          ADD_FAILURE() << rule.lhs_text << " -> " << rule.rhs_text << ": " << to_string(instance) << " became "
                        << to_string(*rewritten) << ", which fails: " << e.what();
          continue;
        }
        ASSERT_EQ(got, want) << rule.lhs_text << " -> " << rule.rhs_text << " on " << to_string(instance) << " = "
                             << to_string(*rewritten);
      }
    }
    EXPECT_GT(fired, 0) << "rule never fired: " << rule.lhs_text << " -> " << rule.rhs_text;
  }
}

}  // namespace
}  // namespace difftest::sym
