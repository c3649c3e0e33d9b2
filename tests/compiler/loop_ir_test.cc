// Loop IR: the text form round trips (hand-written texts covering every node kind, and every
// PrimFunc LegalizeOps produces for the corpus and the O0 cases), malformed text gives a
// located UserError and never anything worse, the verifier rejects ill-formed IR built with
// the factories, and the Visitor/Mutator bases walk and rebuild as documented.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/parser.h"
#include "compiler/loop/parser.h"
#include "compiler/loop/printer.h"
#include "compiler/loop/verifier.h"
#include "compiler/loop/visitor.h"
#include "compiler/passes/legalize_ops.h"

namespace difftest::loop {
namespace {

namespace fs = std::filesystem;

// Every expression and statement kind, every loop kind and scope, every binary and compare
// operator, every dtype's immediates (with the extremes), casts, selects and intrinsics.
const char* kEveryNode = R"(func @every_node(A: f32[n, 4], B: f16[4], C: bf16[(n * 2)], I: i32[n], U: u8[3], W: u32[2], Q: i8[1], D: f64[1], L: i64[1], M: bool[n, m]) dims(n, m) {
  for (i, 0, n) serial {
    for (j, 1, (m - 1)) parallel {
      M[((i * m) + j)] = ((i < j) && (((i <= j) || (i > j)) && (((i >= j) == (i != j)) != !M[0])))
    }
    for (v, 0, 4) vectorized {
      A[((i * 4) + v)] = ((((A[v] + 1.5:f32) - -0.25:f32) * 3.0:f32) / max(min(A[0], -inf:f32), inf:f32))
    }
    for (u, -3, 2) unrolled {
      I[i] = (((((I[i] // -7:i32) % 3:i32) & 255:i32) | (1:i32 << 4:i32)) ^ (I[i] >> 1:i32))
    }
    C[(i // 2)] = cast<bf16>((cast<f32>(C[i]) + 0.5:f32))
    B[(i % 4)] = select(isnan(B[0]), nan:f16, pow(exp(B[1]), atan2(B[2], 5.9604644775390625e-08:f16)))
  }
  alloc t: f32[1] local {
    t[0] = 0.0:f32
    alloc g: f64[(n * m), 2] global {
      g[0] = (-0.0:f64 + 1e+300:f64)
      D[0] = (g[0] // 2.5:f64)
      D[0] = (g[0] % -2.5:f64)
    }
    if (t[0] == 1.0:f32) {
      t[0] = sqrt(tanh(erf(log(t[0]))))
    } else {
      t[0] = round(floor(ceil(fabs(expm1(log1p(sin(cos(t[0]))))))))
    }
  }
  if isnan(A[0]) {
    eval 0
  }
  U[0] = (255:u8 - 0:u8)
  W[1] = (4294967295:u32 * 7:u32)
  Q[0] = min(-128:i8, 127:i8)
  L[0] = (-9223372036854775808 + 9223372036854775807)
  M[0] = (true || false)
  for (e, 0, 0) serial {
  }
}
)";

const char* kModule = R"(func @scale(X: f32[n], Y: f32[n]) dims(n) {
  for (i, 0, n) serial {
    Y[i] = (X[i] * 2.0:f32)
  }
}

func @fill(Z: i64[3]) dims() {
  Z[2] = 7
}

call @scale(x, y) dims(n)
call @scale(y, x) dims(n)
call @fill(z) dims()
)";

TEST(LoopText, EveryNodeKindRoundTripsExactly) {
  const PrimFunc f = parse_func(kEveryNode, "every.loop");
  EXPECT_EQ(print(f), kEveryNode);
  ASSERT_EQ(f.params.size(), 10u);
  EXPECT_EQ(f.params[2].dtype(), DType::bf16);
  EXPECT_EQ(print(f.params[2].shape()[0]), "(n * 2)");
  ASSERT_EQ(f.dims.size(), 2u);
}

TEST(LoopText, ModuleRoundTripsExactly) {
  const Module m = parse_module(kModule, "m.loop");
  EXPECT_EQ(print(m), kModule);
  ASSERT_EQ(m.calls.size(), 3u);
  EXPECT_EQ(m.calls[1].buffers, (std::vector<std::string>{"y", "x"}));
  EXPECT_TRUE(parse_module("").funcs.empty());
}

// The target line: parsed into the module, printed back only when it is not the text default
// (avx512, the 512-bit schedules modules had before targets), so older texts keep their meaning.
TEST(LoopText, TheTargetLineRoundTripsAndDefaultsToAvx512) {
  const std::string f = "func @f(A: f32[n]) dims(n) {\n}\n\ncall @f(a) dims(n)\n";
  const Module plain = parse_module(f, "m.loop");
  EXPECT_EQ(plain.target->name, "avx512");
  EXPECT_EQ(plain.target->vector_bits, 512);
  EXPECT_EQ(print(plain), f);
  const Module avx2 = parse_module(f + "target(avx2)\n", "m.loop");
  EXPECT_EQ(avx2.target->name, "avx2");
  EXPECT_EQ(avx2.target->vector_bits, 256);
  EXPECT_EQ(avx2.target->vector_registers, 16);
  EXPECT_EQ(print(avx2), f + "target(avx2)\n");
  EXPECT_EQ(print(parse_module(f + "target(avx512)\n", "m.loop")), f);
}

TEST(LoopText, ParsedNodesHaveTheWrittenKindsAndDtypes) {
  const PrimFunc f = parse_func(R"(func @k(A: f16[2]) dims() {
  A[1] = select((A[0] < 1.0:f16), cast<f16>(3:u8), A[0])
})");
  const StmtNode& store = f.body.node();
  ASSERT_EQ(store.kind, StmtKind::Store);
  EXPECT_TRUE(store.buffer.same_as(f.params[0]));  // resolved to the declared buffer
  EXPECT_TRUE(store.index.is_int_imm(1));
  const ExprNode& sel = store.value.node();
  ASSERT_EQ(sel.kind, ExprKind::Select);
  EXPECT_EQ(sel.dtype, DType::f16);
  EXPECT_EQ(sel.operands[0].node().cmp, CmpOp::LT);
  EXPECT_EQ(sel.operands[1].kind(), ExprKind::Cast);
  EXPECT_EQ(sel.operands[1].node().operands[0].dtype(), DType::u8);
  EXPECT_EQ(sel.operands[1].node().operands[0].node().int_value, 3);
  EXPECT_EQ(sel.operands[2].kind(), ExprKind::Load);
}

TEST(LoopText, LiteralsKeepTheirExactValues) {
  const PrimFunc f = parse_func(R"(func @k(A: f16[3], B: f64[2]) dims() {
  A[0] = 5.960464477539063e-08:f16
  A[1] = 65504.0:f16
  A[2] = 0.1:f16
  B[0] = -0.0:f64
  B[1] = 1e+300:f64
})");
  auto value = [&](size_t k) { return f.body.node().body[k].node().value.node().float_value; };
  EXPECT_EQ(value(0), std::ldexp(1.0, -24));  // the smallest f16 subnormal
  EXPECT_EQ(value(1), 65504.0);
  EXPECT_EQ(value(2), 1638.0 / 16384.0);  // 0.1 rounded to f16 (hand-written text is rounded)
  EXPECT_TRUE(std::signbit(value(3)));
  EXPECT_EQ(value(4), 1e300);
}

// ------------------------------------------------------------------ LegalizeOps round trip

std::vector<fs::path> ir_files_under(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().extension() == ".ir") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Round trips every function and the whole module of each program; returns how many
// legalized. With `allow_missing_lowerings`, a program with an op that has no lowering yet is
// reported, not failed.
int round_trip_legalized(const std::vector<fs::path>& files, bool allow_missing_lowerings) {
  int legalized = 0;
  for (const auto& path : files) {
    SCOPED_TRACE(path.string());
    const Program p = parse_program_file(path.string());
    Module m;
    try {
      m = passes::legalize_ops(p, CompileContext{});
    } catch (const UserError& e) {
      if (!allow_missing_lowerings || e.kind() != ErrorKind::UnknownOp) throw;
      std::cout << "[ skipped  ] " << path.filename().string() << ": " << e.message() << "\n";
      continue;
    }
    ++legalized;
    for (const auto& f : m.funcs) {
      const std::string text = print(f);
      EXPECT_EQ(print(parse_func(text, path.string())), text);
    }
    const std::string text = print(m);
    EXPECT_EQ(print(parse_module(text, path.string())), text);
  }
  return legalized;
}

TEST(LoopText, EveryCorpusPrimFuncRoundTrips) {
  const auto files = ir_files_under(fs::path(DIFFTEST_SOURCE_DIR) / "corpus");
  ASSERT_GE(files.size(), 10u);
  EXPECT_EQ(round_trip_legalized(files, false), static_cast<int>(files.size()));
}

TEST(LoopText, EveryO0CasePrimFuncRoundTrips) {
  const auto files = ir_files_under(fs::path(DIFFTEST_SOURCE_DIR) / "tests/compiler/o0_cases");
  EXPECT_GE(round_trip_legalized(files, true), 10);
}

// ------------------------------------------------------------------------- malformed text

struct Malformed {
  const char* text;
  ErrorKind kind;
  int line, col;
  const char* message;  // a substring of the message
};

const Malformed kMalformed[] = {
    {"", ErrorKind::Syntax, 1, 1, "expected 'func', found end of input"},
    {"func @f(A: f32[4]) dims() {\n  A[0] = 1.0:f32\n", ErrorKind::Syntax, 3, 1, "found end of input"},
    {"func @f(A: f31[4]) dims() {\n}", ErrorKind::Syntax, 1, 12, "unknown dtype 'f31'"},
    {"func f(A: f32[4]) dims() {\n}", ErrorKind::Syntax, 1, 6, "a function name"},
    {"func @f(A: f32[4]) dims() {\n  A[0] = $\n}", ErrorKind::Syntax, 2, 10, "unexpected '$'"},
    {"func @f(A: f32[4]) dims() {\n  A[0] = 0.5\n}", ErrorKind::Literal, 2, 10, "needs a dtype"},
    {"func @f(A: u8[4]) dims() {\n  A[0] = 256:u8\n}", ErrorKind::Literal, 2, 10, "out of range for u8"},
    {"func @f(A: i64[4]) dims() {\n  A[0] = 9223372036854775808\n}", ErrorKind::Literal, 2, 10, "64 bits"},
    {"func @f(A: f16[4]) dims() {\n  A[0] = 65520.0:f16\n}", ErrorKind::Literal, 2, 10, "out of range for f16"},
    {"func @f(A: i32[4]) dims() {\n  A[0] = 1.5:i32\n}", ErrorKind::Literal, 2, 10, "not an integer"},
    {"func @f(A: f32[4]) dims() {\n  A[0] = 12abc\n}", ErrorKind::Syntax, 2, 12, "after a number"},
    {"func @f(A: f32[4]) dims() {\n  A[k] = 1.0:f32\n}", ErrorKind::UnknownName, 2, 5, "undefined variable 'k'"},
    {"func @f(A: f32[4]) dims() {\n  B[0] = 1.0:f32\n}", ErrorKind::UnknownName, 2, 3, "buffer 'B'"},
    {"func @f(A: f32[n]) dims() {\n}", ErrorKind::UnknownName, 1, 16, "undefined variable 'n'"},
    {"func @f(A: f32[4]) dims() {\n  A[0] = (A[1] + 1)\n}", ErrorKind::TypeMismatch, 2, 16, "(f32 and i64)"},
    {"func @f(A: i32[4]) dims() {\n  A[0] = (A[1] / 2:i32)\n}", ErrorKind::TypeMismatch, 2, 16, "use // for integers"},
    {"func @f(A: f32[4]) dims() {\n  A[0] = 1\n}", ErrorKind::TypeMismatch, 2, 10, "store of a i64 value to A (f32)"},
    {"func @f(A: f32[4]) dims() {\n  A[1.0:f32] = 1.0:f32\n}", ErrorKind::TypeMismatch, 2, 5, "index must be i64"},
    {"func @f(A: f32[4]) dims() {\n  if 1 {\n  }\n}", ErrorKind::TypeMismatch, 2, 6, "condition must be bool"},
    {"func @f(A: f32[4]) dims() {\n  A[0] = frob(A[1])\n}", ErrorKind::UnknownName, 2, 10, "unknown intrinsic 'frob'"},
    {"func @f(A: f32[4]) dims() {\n  A[0] = exp(A[1], A[2])\n}", ErrorKind::Arity, 2, 10, "exp does not take 2"},
    {"func @f(A: f32[4]) dims() {\n  A[0] = select(true, A[1])\n}", ErrorKind::Arity, 2, 10, "select takes 3"},
    {"func @f(A: i32[4]) dims() {\n  A[0] = exp(A[1])\n}", ErrorKind::TypeMismatch, 2, 14, "needs float operands"},
    {"func @f(A: f32[4]) dims() {\n  A[0] = (A[1] ? A[2])\n}", ErrorKind::Syntax, 2, 16, "unexpected '?'"},
    {"func @f(A: f32[4]) dims() {\n  A[0] = (A[1] = A[2])\n}", ErrorKind::Syntax, 2, 16, "binary operator"},
    {"func @f(A: f32[4]) dims(n) {\n  for (i, 0, n) sequential {\n  }\n}", ErrorKind::Syntax, 2, 17, "loop kind"},
    {"func @f(A: f32[4]) dims(n) {\n  for (n, 0, 4) serial {\n  }\n}", ErrorKind::DuplicateName, 2, 8, "shadows"},
    {"func @f(A: f32[4], A: f32[4]) dims() {\n}", ErrorKind::DuplicateName, 1, 20, "buffer 'A' defined twice"},
    {"func @f(A: f32[4]) dims(n, n) {\n}", ErrorKind::DuplicateName, 1, 28, "dim 'n' declared twice"},
    {"func @f(A: f32[4]) dims() {\n  alloc A: f32[1] local {\n  }\n}", ErrorKind::DuplicateName, 2, 9, "defined twice"},
    {"func @f(A: f32[4]) dims() {\n  alloc t: f32[1] shared {\n  }\n}", ErrorKind::Syntax, 2, 19, "scope"},
    {"func @f(A: f32[4]) dims() {\n}\nfunc", ErrorKind::Syntax, 3, 1, "expected end of input"},
    {"func @f(A: f32[4]) dims(true) {\n}", ErrorKind::Syntax, 1, 25, "reserved"},
    {"func @f(A: f32[4] dims() {\n}", ErrorKind::Syntax, 2, 2, "')' closing the parameter list"},
};

std::string fmt_loc(int line, int col) { return "bad.loop:" + std::to_string(line) + ":" + std::to_string(col) + ": error"; }

TEST(LoopText, MalformedTextGivesALocatedUserError) {
  for (const auto& c : kMalformed) {
    SCOPED_TRACE(c.text);
    try {
      parse_func(c.text, "bad.loop");
      ADD_FAILURE() << "accepted";
    } catch (const UserError& e) {
      EXPECT_EQ(error_kind_name(e.kind()), std::string(error_kind_name(c.kind))) << e.what();
      EXPECT_EQ(e.loc().line, c.line) << e.what();
      EXPECT_EQ(e.loc().col, c.col) << e.what();
      EXPECT_NE(std::string(e.what()).find(fmt_loc(c.line, c.col)), std::string::npos) << e.what();
      EXPECT_NE(e.message().find(c.message), std::string::npos) << e.what();
    }
  }
}

TEST(LoopText, MalformedModulesGiveLocatedUserErrors) {
  const std::string f = "func @f(A: f32[n]) dims(n) {\n}\n";
  const struct {
    std::string text;
    ErrorKind kind;
    int line, col;
  } cases[] = {
      {f + "call @g(a) dims(n)\n", ErrorKind::UnknownName, 3, 6},
      {f + "call @f(a, b) dims(n)\n", ErrorKind::Arity, 3, 6},
      {f + "call @f(a) dims()\n", ErrorKind::Arity, 3, 6},
      {f + f, ErrorKind::DuplicateName, 3, 6},
      {f + "call @f(a) dims(n)\nfunc @h(B: f32[1]) dims() {\n}\n", ErrorKind::Syntax, 4, 1},
      {f + "call @f(a) n\n", ErrorKind::Syntax, 3, 12},
      {f + "target(avx3)\n", ErrorKind::UnknownName, 3, 8},
      {f + "target avx2\n", ErrorKind::Syntax, 3, 8},
      {f + "target(avx2)\ntarget(avx2)\n", ErrorKind::Syntax, 4, 1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    try {
      parse_module(c.text, "bad.loop");
      ADD_FAILURE() << "accepted";
    } catch (const UserError& e) {
      EXPECT_EQ(e.kind(), c.kind) << e.what();
      EXPECT_EQ(e.loc().line, c.line) << e.what();
      EXPECT_EQ(e.loc().col, c.col) << e.what();
    }
  }
}

// Nesting beyond the limit is refused before the stack can run out, wherever it happens.
TEST(LoopText, DeepNestingIsALimitError) {
  const std::string head = "func @f(A: i64[4]) dims() {\n  A[0] = ";
  const int depth = 100000;
  const std::string parens = head + std::string(depth, '(') + "1" + std::string(depth, ')') + "\n}";
  const std::string nots = "func @f(A: bool[4]) dims() {\n  A[0] = " + [&] {
    std::string s;
    for (int i = 0; i < depth; ++i) s += "!";
    return s;
  }() + "true\n}";
  std::string loops = "func @f(A: i64[4]) dims() {\n";
  for (int i = 0; i < depth / 10; ++i) loops += "if true {\n";
  for (const std::string* text : {&parens, &nots, static_cast<const std::string*>(&loops)}) {
    try {
      parse_func(*text, "deep.loop");
      ADD_FAILURE() << "accepted";
    } catch (const UserError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Limit) << e.what();
      EXPECT_TRUE(e.loc().valid());
    }
  }
  // Moderate nesting is fine.
  const std::string ok = head + std::string(50, '(') + "1" + std::string(50, ')') + "\n}\n";
  EXPECT_EQ(print(parse_func(ok)), "func @f(A: i64[4]) dims() {\n  A[0] = 1\n}\n");
}

// Every prefix and many byte-level mutations of a valid text: a parse succeeds or throws a
// UserError, never an InternalError (a factory precondition the parser forgot) or a crash.
TEST(LoopText, TruncatedAndMutatedTextNeverCrashes) {
  const std::string text = kEveryNode;
  auto parse_or_user_error = [](const std::string& t) {
    try {
      parse_func(t, "m.loop");
    } catch (const UserError& e) {
      if (!e.loc().valid()) ADD_FAILURE() << "unlocated: " << e.what();
    }
  };
  for (size_t n = 0; n < text.size(); ++n) parse_or_user_error(text.substr(0, n));
  std::mt19937_64 rng(7);
  const std::string alphabet = "()[]{},:=<>!+-*/%&|^@#.0123456789eEaAnfiu_ \n";
  for (int k = 0; k < 3000; ++k) {
    std::string t = text;
    for (int edits = 0; edits < 1 + static_cast<int>(rng() % 3); ++edits) {
      const size_t at = rng() % t.size();
      switch (rng() % 3) {
        case 0: t[at] = alphabet[rng() % alphabet.size()]; break;
        case 1: t.erase(at, 1 + rng() % 8); break;
        default: t.insert(at, 1, alphabet[rng() % alphabet.size()]);
      }
    }
    parse_or_user_error(t);
  }
}

// ------------------------------------------------------------------------------- verifier

PrimFunc make_func(std::vector<Buffer> params, std::vector<Expr> dims, Stmt body) {
  return PrimFunc{"f", std::move(params), std::move(dims), std::move(body)};
}

void expect_verify_error(const PrimFunc& f, ErrorKind kind, const std::string& substring) {
  try {
    verify(f);
    ADD_FAILURE() << "verified:\n" << print(f);
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_NE(e.message().find(substring), std::string::npos) << e.what();
    EXPECT_NE(e.message().find("@f"), std::string::npos) << e.what();
  }
}

TEST(LoopVerifier, AcceptsWellFormedIr) {
  const Expr n = Expr::var("n"), i = Expr::var("i");
  const Buffer a = Buffer::make("A", DType::f32, {n});
  const Buffer t = Buffer::make("t", DType::f32, {1});
  // Two sibling allocations may reuse a name: each is out of scope after its body.
  const Stmt body = Stmt::seq({Stmt::allocate(t, Scope::Local, Stmt::store(t, 0, imm(0, DType::f32))),
                               Stmt::allocate(t, Scope::Global, Stmt::for_loop(i, 0, n, ForKind::Serial,
                                                                               Stmt::store(a, i, t[0])))});
  EXPECT_NO_THROW(verify(make_func({a}, {n}, body)));
}

TEST(LoopVerifier, RejectsAnUndefinedVariable) {
  const Expr n = Expr::var("n"), k = Expr::var("k");
  const Buffer a = Buffer::make("A", DType::f32, {n});
  expect_verify_error(make_func({a}, {n}, Stmt::store(a, k, imm(1, DType::f32))), ErrorKind::UnknownName,
                      "undefined variable: k");
  // A loop variable is out of scope after its loop.
  const Expr i = Expr::var("i");
  const Stmt loop = Stmt::for_loop(i, 0, n, ForKind::Serial, Stmt::store(a, i, imm(1, DType::f32)));
  expect_verify_error(make_func({a}, {n}, Stmt::seq({loop, Stmt::store(a, i, imm(2, DType::f32))})),
                      ErrorKind::UnknownName, "undefined variable: i");
  // A shape may only use dims.
  const Buffer b = Buffer::make("B", DType::f32, {Expr::var("m")});
  expect_verify_error(make_func({b}, {n}, Stmt::evaluate(0)), ErrorKind::UnknownName, "undefined variable: m");
}

TEST(LoopVerifier, RejectsAStoreToAMissingBuffer) {
  const Buffer a = Buffer::make("A", DType::f32, {4});
  const Buffer z = Buffer::make("Z", DType::f32, {4});
  expect_verify_error(make_func({a}, {}, Stmt::store(z, 0, imm(1, DType::f32))), ErrorKind::UnknownName, "store to Z");
  expect_verify_error(make_func({a}, {}, Stmt::store(a, 0, z[1])), ErrorKind::UnknownName, "Z[1]");
  // An allocation is out of scope after its body.
  const Stmt scoped = Stmt::seq({Stmt::allocate(z, Scope::Local, Stmt::store(z, 0, a[0])), Stmt::store(z, 1, a[0])});
  expect_verify_error(make_func({a}, {}, scoped), ErrorKind::UnknownName, "store to Z");
}

TEST(LoopVerifier, RejectsADtypeMismatchBetweenABufferAndItsUse) {
  // The factories refuse a store whose value differs from its buffer's dtype, so the mismatch
  // the verifier can see is a foreign buffer node of the same name (as after a bad rename).
  const Buffer a = Buffer::make("A", DType::f32, {4});
  EXPECT_THROW(Stmt::store(a, 0, imm(1, DType::i32)), InternalError);
  const Buffer a_as_i32 = Buffer::make("A", DType::i32, {4});
  expect_verify_error(make_func({a}, {}, Stmt::store(a_as_i32, 0, imm(1, DType::i32))), ErrorKind::TypeMismatch,
                      "buffer used with another dtype");
  const Buffer b = Buffer::make("B", DType::i32, {4});
  expect_verify_error(make_func({a, b}, {}, Stmt::store(b, 0, a_as_i32[0])), ErrorKind::TypeMismatch,
                      "buffer used with another dtype");
}

TEST(LoopVerifier, RejectsALoopVariableShadowingAnother) {
  const Expr n = Expr::var("n"), i = Expr::var("i");
  const Buffer a = Buffer::make("A", DType::i64, {n});
  const Stmt inner = Stmt::for_loop(i, 0, 2, ForKind::Serial, Stmt::store(a, i, i));
  expect_verify_error(make_func({a}, {n}, Stmt::for_loop(i, 0, n, ForKind::Serial, inner)), ErrorKind::DuplicateName,
                      "loop variable shadows another variable: i");
  expect_verify_error(make_func({a}, {n}, Stmt::for_loop(n, 0, 2, ForKind::Serial, Stmt::store(a, n, n))),
                      ErrorKind::DuplicateName, "shadows another variable: n");
}

TEST(LoopVerifier, RejectsDuplicateBuffersAndDims) {
  const Buffer a = Buffer::make("A", DType::f32, {4});
  const Buffer a2 = Buffer::make("A", DType::f32, {8});
  expect_verify_error(make_func({a, a2}, {}, Stmt::evaluate(0)), ErrorKind::DuplicateName, "buffer defined twice: A");
  expect_verify_error(make_func({a}, {}, Stmt::allocate(a2, Scope::Local, Stmt::evaluate(0))), ErrorKind::DuplicateName,
                      "buffer defined twice: A");
  const Expr n = Expr::var("n");
  expect_verify_error(make_func({a}, {n, n}, Stmt::evaluate(0)), ErrorKind::DuplicateName, "dim parameter defined twice");
  expect_verify_error(make_func({a}, {Expr(3)}, Stmt::evaluate(0)), ErrorKind::TypeMismatch, "i64 variable");
}

TEST(LoopVerifier, ChecksModuleCalls) {
  const Buffer a = Buffer::make("A", DType::f32, {4});
  Module m;
  m.funcs.push_back(make_func({a}, {}, Stmt::evaluate(0)));
  m.calls.push_back(Call{"f", {"x"}, {}});
  EXPECT_NO_THROW(verify(m));
  m.calls.push_back(Call{"f", {"x", "y"}, {}});
  EXPECT_THROW(verify(m), UserError);
  m.calls.back() = Call{"g", {"x"}, {}};
  EXPECT_THROW(verify(m), UserError);
  m.calls.pop_back();
  m.funcs.push_back(m.funcs[0]);
  EXPECT_THROW(verify(m), UserError);
}

// ------------------------------------------------------------------------ visitor, mutator

TEST(LoopVisitor, WalksVariablesAndLoadsInEvaluationOrder) {
  class Collector : public Visitor {
   public:
    std::vector<std::string> vars, loads;

   protected:
    void visit_var(const Expr& e) override { vars.push_back(e.node().name); }
    void visit_load(const Expr& e) override {
      loads.push_back(e.node().buffer.name());
      Visitor::visit_load(e);
    }
  } c;
  c.visit(parse_func(R"(func @v(A: f32[n], B: f32[4]) dims(n) {
  for (i, 1, (n - 1)) serial {
    A[i] = (A[(i - 1)] + B[(i % 4)])
  }
  if isnan(B[0]) {
    eval A[n]
  }
})"));
  EXPECT_EQ(c.vars, (std::vector<std::string>{"n", "i", "i", "i", "n"}));
  EXPECT_EQ(c.loads, (std::vector<std::string>{"A", "B", "B", "A"}));
}

TEST(LoopMutator, IdentityReturnsTheSameNodes) {
  const PrimFunc f = parse_func(kEveryNode);
  Mutator identity;
  const PrimFunc g = identity.mutate(f);
  EXPECT_TRUE(g.body.same_as(f.body));
  for (size_t i = 0; i < f.params.size(); ++i) EXPECT_TRUE(g.params[i].same_as(f.params[i]));
  const Expr& value = f.body.node().body[0].node().body[0].node().body[0].node().body[0].node().value;
  EXPECT_TRUE(identity.mutate(value).same_as(value));
  EXPECT_EQ(print(g), kEveryNode);
}

// Renames a variable everywhere, its loop binder included.
class RenameVar : public Mutator {
 public:
  RenameVar(std::string from, std::string to) : from_(std::move(from)), to_(Expr::var(to)) {}
  using Mutator::mutate;
  Expr mutate(const Expr& e) override {
    if (e.kind() == ExprKind::Var && e.node().name == from_) return to_;
    return Mutator::mutate(e);
  }
  Stmt mutate(const Stmt& s) override {
    const Stmt r = Mutator::mutate(s);
    if (r.kind() != StmtKind::For || r.node().var.node().name != from_) return r;
    const StmtNode& n = r.node();
    return Stmt::for_loop(to_, n.min, n.extent, n.for_kind, n.body[0]);
  }

 private:
  std::string from_;
  Expr to_;
};

const char* kTwoLoops = R"(func @r(A: f32[n], B: f32[n]) dims(n) {
  for (i, 0, n) serial {
    A[i] = (B[i] + 1.0:f32)
  }
  for (j, 0, n) serial {
    B[j] = A[(n - 1)]
  }
}
)";

TEST(LoopMutator, RenamingChangesOnlyTheRenamedVariable) {
  const PrimFunc f = parse_func(kTwoLoops);
  RenameVar rename("i", "k");
  const PrimFunc g = rename.mutate(f);
  EXPECT_EQ(print(g), R"(func @r(A: f32[n], B: f32[n]) dims(n) {
  for (k, 0, n) serial {
    A[k] = (B[k] + 1.0:f32)
  }
  for (j, 0, n) serial {
    B[j] = A[(n - 1)]
  }
}
)");
  EXPECT_NO_THROW(verify(g));
  EXPECT_TRUE(g.body.node().body[1].same_as(f.body.node().body[1]));  // the j loop is untouched
  // The constant part of the renamed store is shared, not copied.
  const Expr& old_sum = f.body.node().body[0].node().body[0].node().value;
  const Expr& new_sum = g.body.node().body[0].node().body[0].node().value;
  EXPECT_TRUE(new_sum.node().operands[1].same_as(old_sum.node().operands[1]));
  // Renaming a name that does not occur changes nothing.
  EXPECT_TRUE(RenameVar("q", "r").mutate(f).body.same_as(f.body));
}

TEST(LoopMutator, BufferHookRenamesParamsLoadsAndStores) {
  class RenameB : public Mutator {
   protected:
    Buffer mutate_buffer(const Buffer& b) override {
      if (b.name() != "B") return b;
      if (!renamed_.defined()) renamed_ = Buffer::make("C", b.dtype(), b.shape());
      return renamed_;
    }
    Buffer renamed_;
  } rename;
  const PrimFunc g = rename.mutate(parse_func(kTwoLoops));
  EXPECT_EQ(print(g), R"(func @r(A: f32[n], C: f32[n]) dims(n) {
  for (i, 0, n) serial {
    A[i] = (C[i] + 1.0:f32)
  }
  for (j, 0, n) serial {
    C[j] = A[(n - 1)]
  }
}
)");
  EXPECT_NO_THROW(verify(g));
}

// Folds i64 `imm + imm`, `imm * imm`, `x + 0` and `x * 1`.
class FoldConstants : public Mutator {
 public:
  using Mutator::mutate;
  Expr mutate(const Expr& e) override {
    const Expr r = Mutator::mutate(e);
    if (r.kind() != ExprKind::Binary || r.dtype() != DType::i64) return r;
    const ExprNode& n = r.node();
    const Expr &a = n.operands[0], &b = n.operands[1];
    const bool both = a.kind() == ExprKind::IntImm && b.kind() == ExprKind::IntImm;
    if (n.bin == BinOp::Add) {
      if (both) return Expr(a.node().int_value + b.node().int_value);
      if (b.is_int_imm(0)) return a;
    }
    if (n.bin == BinOp::Mul) {
      if (both) return Expr(a.node().int_value * b.node().int_value);
      if (b.is_int_imm(1)) return a;
    }
    return r;
  }
};

TEST(LoopMutator, ConstantFoldingChangesOnlyFoldableSubtrees) {
  const PrimFunc f = parse_func(R"(func @c(A: i64[n], B: f32[2]) dims(n) {
  for (i, 0, (2 * 3)) serial {
    A[(i + (4 * 0))] = ((i * 1) + (2 + 3))
  }
  A[0] = (n + 1)
  B[1] = (B[0] + 0.0:f32)
})");
  FoldConstants fold;
  const PrimFunc g = fold.mutate(f);
  EXPECT_EQ(print(g), R"(func @c(A: i64[n], B: f32[2]) dims(n) {
  for (i, 0, 6) serial {
    A[i] = (i + 5)
  }
  A[0] = (n + 1)
  B[1] = (B[0] + 0.0:f32)
}
)");
  EXPECT_TRUE(g.body.node().body[1].same_as(f.body.node().body[1]));
  EXPECT_TRUE(g.body.node().body[2].same_as(f.body.node().body[2]));  // floats are not folded
  EXPECT_TRUE(fold.mutate(g).body.same_as(g.body));  // nothing left to fold
}

}  // namespace
}  // namespace difftest::loop
