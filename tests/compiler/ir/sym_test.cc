// Symbolic expressions: text round trip, evaluation and checked arithmetic.
#include <gtest/gtest.h>

#include "compiler/support/checked.h"
#include "compiler/support/diagnostics.h"
#include "compiler/sym/sym.h"
#include "compiler/sym/sym_parse.h"

namespace difftest::sym {
namespace {

TEST(Checked, FloorDivisionAndModuloFollowPython) {
  // Values from Python: (-7)//2, (-7)%2, 7//(-2), 7%(-2), (-7)//(-2), (-7)%(-2).
  EXPECT_EQ(checked::floordiv(-7, 2), -4);
  EXPECT_EQ(checked::floormod(-7, 2), 1);
  EXPECT_EQ(checked::floordiv(7, -2), -4);
  EXPECT_EQ(checked::floormod(7, -2), -1);
  EXPECT_EQ(checked::floordiv(-7, -2), 3);
  EXPECT_EQ(checked::floormod(-7, -2), -1);
  EXPECT_EQ(checked::floordiv(6, 3), 2);
  EXPECT_EQ(checked::floormod(-6, 3), 0);
}

TEST(Checked, OverflowIsAnErrorNotAWrap) {
  EXPECT_FALSE(checked::try_add(INT64_MAX, 1).has_value());
  EXPECT_FALSE(checked::try_mul(int64_t{1} << 32, int64_t{1} << 31).has_value());
  EXPECT_FALSE(checked::try_floordiv(INT64_MIN, -1).has_value());
  EXPECT_EQ(checked::try_floormod(INT64_MIN, -1), 0);
  try {
    checked::mul(int64_t{1} << 40, int64_t{1} << 40);
    FAIL() << "no overflow reported";
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Overflow);
  }
  try {
    checked::floordiv(3, 0);
    FAIL() << "no division by zero reported";
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Evaluation);
  }
}

TEST(SymText, CanonicalTextRoundTrips) {
  for (const char* text : {"n", "42", "-3", "n + m", "2*m", "m // 5 - 1", "(n + 2*p - d*(k - 1) - 1) // s + 1",
                           "min(n, m) + max(n, 4)", "a - (b - c)", "a*(b*c)", "(a // 2)*3", "a % 8", "n - -1",
                           "-1*x", "(n % 4)*(m // 2)", "a + (b + c)"}) {
    EXPECT_EQ(to_string(parse(text)), text) << text;
  }
}

TEST(SymText, ParsesPrecedenceAndAssociativityLikePython) {
  const Env env = {{"a", 17}, {"b", 5}, {"c", 3}};
  // Expected values computed by hand with Python's rules.
  EXPECT_EQ(eval(parse("a - b - c"), env), 9);
  EXPECT_EQ(eval(parse("a // b * c"), env), 9);
  EXPECT_EQ(eval(parse("a - b * c"), env), 2);
  EXPECT_EQ(eval(parse("-a // b"), env), -4);
  EXPECT_EQ(eval(parse("a % b % c"), env), 2);
  EXPECT_EQ(eval(parse("min(a, b) * max(b, c)"), env), 25);
  EXPECT_EQ(eval(parse("a%5"), env), 2);  // `%5` lexes as a value name and is split back
}

TEST(SymText, NonCanonicalSpellingPrintsCanonically) {
  EXPECT_EQ(to_string(parse("n*2")), "n*2");
  EXPECT_EQ(to_string(parse("( n )  +  m")), "n + m");
  EXPECT_EQ(to_string(parse("-(5)")), "-5");
  EXPECT_EQ(to_string(parse("-n")), "-1*n");
}

TEST(SymText, ErrorsAreLocated) {
  struct Case {
    const char* text;
    ErrorKind kind;
    int col;
  };
  const Case cases[] = {
      {"n +", ErrorKind::Syntax, 4},
      {"(n + 1", ErrorKind::Syntax, 7},
      {"min(n)", ErrorKind::Syntax, 6},
      {"n $ 2", ErrorKind::Syntax, 3},
      {"99999999999999999999", ErrorKind::Literal, 1},
      {"n m", ErrorKind::Syntax, 3},
  };
  for (const auto& c : cases) {
    try {
      parse(c.text);
      ADD_FAILURE() << "accepted: " << c.text;
    } catch (const UserError& e) {
      EXPECT_EQ(e.kind(), c.kind) << c.text << ": " << e.what();
      EXPECT_EQ(e.loc().line, 1) << c.text;
      EXPECT_EQ(e.loc().col, c.col) << c.text << ": " << e.what();
    }
  }
}

TEST(SymText, DeepNestingIsRefusedNotAStackOverflow) {
  std::string deep(100000, '(');
  deep += "n";
  try {
    parse(deep);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Limit);
  }
  std::string chain = "n";
  for (int i = 0; i < 1000; ++i) chain += " + n";
  try {
    parse(chain);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Limit);
  }
}

TEST(SymEval, UnboundVariableAndDivisionByZeroAreErrors) {
  try {
    eval(parse("n + 1"), {});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Evaluation);
  }
  try {
    eval(parse("4 // (n - 1)"), {{"n", 1}});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Evaluation);
  }
  try {
    eval(parse("n * n"), {{"n", int64_t{1} << 40}});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Overflow);
  }
}

TEST(SymExpr, StructuralEqualityHashAndSubstitution) {
  EXPECT_EQ(parse("n + 1"), parse("n + 1"));
  EXPECT_NE(parse("n + 1"), parse("1 + n"));
  EXPECT_EQ(parse("n + 1").hash(), parse("n + 1").hash());
  const Expr e = parse("n*2 + m");
  EXPECT_EQ(to_string(substitute(e, {{"n", parse("k + 1")}})), "(k + 1)*2 + m");
  const Expr unchanged = substitute(e, {{"z", Expr(3)}});
  EXPECT_TRUE(unchanged.same_as(e));
  EXPECT_EQ(vars(e), (std::set<std::string>{"m", "n"}));
}

}  // namespace
}  // namespace difftest::sym
