// Codegen of parallel, vectorized and unrolled loops (a separate file from codegen_test.cc to
// keep both under 600 lines). Expected values come from plain C++ arithmetic or from the same
// kernel with serial loops, never from the loop kind under test alone.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "compiler/codegen/codegen.h"
#include "compiler/codegen/jit.h"
#include "compiler/sym/sym_prove.h"
#include "compiler/sym/sym_simplify.h"
#include "compiler/loop/parser.h"
#include "compiler/loop/visitor.h"
#include "compiler/passes/loop_simplify.h"
#include "compiler/runtime/thread_pool.h"
#include "compiler/tensor/float_format.h"
#include "compiler/tensor/tensor.h"
#include "fuzz/generator.h"
#include "tests/support/jit_util.h"
#include "tests/support/pass_testing.h"
#include "tests/support/rc_choices.h"

namespace difftest::codegen {
namespace {

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

// Y has one element more than the loop writes: the sentinel shows no chunk runs past the end.
constexpr const char* kAffine = R"(func @affine(X: i64[n], Y: i64[(n + 1)]) dims(n) {
  for (i, 0, n) KIND {
    alloc t: i64[1] local {
      t[0] = (X[i] * 3)
      Y[i] = (t[0] + (i * i))
    }
  }
}
)";

TEST(CodegenLoopKinds, ParallelLoopMatchesSerialArithmeticForEverySize) {
  EXPECT_GE(runtime::parallel_threads(), 1);
  for (const std::string kind : {"serial", "parallel"}) {
    for (int64_t n : {0, 1, 7, 1000}) {
      for (int level : {0, 2}) {
        SCOPED_TRACE(fmt::format("{} n={} level {}", kind, n, level));
        std::vector<int64_t> xs(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) xs[static_cast<size_t>(i)] = 5 * i - 17;
        Tensor x = Tensor::from_ints(DType::i64, {n}, xs);
        Tensor y = Tensor::from_ints(DType::i64, {n + 1}, std::vector<int64_t>(static_cast<size_t>(n + 1), -99));
        testing::run_kernel(replace_all(kAffine, "KIND", kind), "affine", {&x, &y}, {n}, level);
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(y.get_int(i), (5 * i - 17) * 3 + i * i) << "at " << i;
        EXPECT_EQ(y.get_int(n), -99) << "wrote past the loop's end";
      }
    }
  }
}

TEST(CodegenLoopKinds, NestedParallelLoopsRunEveryIterationOnce) {
  // Inner parallel loops run serially inside a worker; each (i, j) must still run exactly once:
  // Y starts at 1 and every iteration adds its own value, so a duplicate or a miss shows.
  const std::string text = R"(func @nest(Y: i64[m, n]) dims(m, n) {
  for (i, 0, m) parallel {
    for (j, 0, n) parallel {
      Y[((i * n) + j)] = (Y[((i * n) + j)] + ((i * 1000) + j))
    }
  }
}
)";
  for (int level : {0, 2}) {
    for (auto [m, n] : {std::pair<int64_t, int64_t>{0, 5}, {3, 0}, {1, 1}, {13, 37}, {64, 3}}) {
      Tensor y = Tensor::from_ints(DType::i64, {m, n}, std::vector<int64_t>(static_cast<size_t>(m * n), 1));
      testing::run_kernel(text, "nest", {&y}, {m, n}, level);
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) ASSERT_EQ(y.get_int(i * n + j), 1 + i * 1000 + j) << i << ", " << j;
      }
    }
  }
}

TEST(CodegenLoopKinds, ParallelLoopUsesEnclosingLoopVariablesAndScratch) {
  // The outlined body reads an enclosing serial loop variable, a dim and a buffer allocated
  // outside it (each iteration writes its own slots of that scratch).
  const std::string text = R"(func @outer(X: f32[m, n], Y: f32[m, n]) dims(m, n) {
  for (i, 0, m) serial {
    alloc s: f32[n] global {
      for (j, 0, n) parallel {
        s[j] = (X[((i * n) + j)] * 2.0:f32)
      }
      for (j, 0, n) parallel {
        Y[((i * n) + j)] = (s[j] + cast<f32>(i))
      }
    }
  }
}
)";
  const int64_t m = 5, n = 301;
  std::vector<double> xs;
  for (int64_t k = 0; k < m * n; ++k) xs.push_back(static_cast<double>(k % 97) * 0.25);
  for (int level : {0, 3}) {
    Tensor x = Tensor::from_doubles(DType::f32, {m, n}, xs), y(DType::f32, {m, n});
    testing::run_kernel(text, "outer", {&x, &y}, {m, n}, level);
    for (int64_t k = 0; k < m * n; ++k) ASSERT_EQ(y.get(k), xs[static_cast<size_t>(k)] * 2 + static_cast<double>(k / n)) << k;
  }
}

constexpr const char* kNarrowChain = R"(func @chain(X: {0}[n], Y: {0}[n], Z: {0}[n], A: {0}[n], B: {0}[n]) dims(n) {{
  for (i, 0, n) KIND {{
    A[i] = (((X[i] * Y[i]) + Z[i]) - (X[i] / Y[i]))
    B[i] = sqrt(((X[i] + Y[i]) + Z[i]))
  }}
}}
)";

// Bit for bit, except that any NaN equals any NaN: of two NaN operands x86 returns the first's
// payload, and LLVM may commute a product in one loop and not the other (x * y with both NaN:
// the serial loop gave x's, the AVX2 vector loop y's).
::testing::AssertionResult same_bits_nans_aside(const Tensor& got, const Tensor& want) {
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double g = got.get(i), w = want.get(i);
    if (std::isnan(g) && std::isnan(w)) continue;
    if (!(g == w && std::signbit(g) == std::signbit(w))) {
      return ::testing::AssertionFailure() << "element " << i << ": " << g << ", want " << w;
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(CodegenLoopKinds, VectorizedNarrowFloatLoopsAreBitwiseEqualToSerial) {
  for (DType t : {DType::f16, DType::bf16}) {
    const int64_t n = 4099;  // not a multiple of any vector width: the remainder loop runs too
    std::mt19937 rng(7);
    std::vector<uint16_t> bits[3];
    for (auto& b : bits) {
      for (int64_t i = 0; i < n; ++i) b.push_back(static_cast<uint16_t>(rng()));
    }
    auto tensor = [&](const std::vector<uint16_t>& b) {
      Tensor out(t, {n});
      std::memcpy(out.data(), b.data(), b.size() * 2);
      return out;
    };
    const std::string text = fmt::format(kNarrowChain, dtype_name(t));
    for (int level : {0, 2, 3}) {
      SCOPED_TRACE(fmt::format("{} level {}", dtype_name(t), level));
      Tensor x = tensor(bits[0]), y = tensor(bits[1]), z = tensor(bits[2]);
      Tensor a_serial(t, {n}), b_serial(t, {n}), a_vec(t, {n}), b_vec(t, {n});
      testing::run_kernel(replace_all(text, "KIND", "serial"), "chain", {&x, &y, &z, &a_serial, &b_serial}, {n}, level);
      testing::run_kernel(replace_all(text, "KIND", "vectorized"), "chain", {&x, &y, &z, &a_vec, &b_vec}, {n}, level);
      EXPECT_TRUE(same_bits_nans_aside(a_vec, a_serial));
      EXPECT_TRUE(same_bits_nans_aside(b_vec, b_serial));
      // And the serial result is the per-operation rounding, checked on a few elements.
      for (int64_t i = 0; i < 50; ++i) {
        auto r = [t](double v) { return round_to_float_dtype(v, t); };
        const double xv = x.get(i), yv = y.get(i), zv = z.get(i);
        const double want = r(r(r(xv * yv) + zv) - r(xv / yv));
        const double got = a_serial.get(i);
        EXPECT_TRUE((std::isnan(want) && std::isnan(got)) || (want == got && std::signbit(want) == std::signbit(got)))
            << i << ": got " << got << ", want " << want;
      }
    }
  }
}

TEST(CodegenLoopKinds, LoopHintsAreEmittedForVectorizedAndUnrolledLoops) {
  // 80 lanes are more than codegen's own vector form takes (vector_loop.h): LLVM gets the hint.
  const std::string text = R"(func @hints(X: f32[80], Y: f32[80]) dims() {
  for (i, 0, 80) vectorized {
    Y[i] = (X[i] + 1.0:f32)
  }
  for (i, 0, 4) unrolled {
    Y[i] = (Y[i] * 2.0:f32)
  }
  for (i, 0, 4) serial {
    Y[i] = (Y[i] * 2.0:f32)
  }
  for (i, 0, 16) vectorized {
    Y[0] = (Y[0] + X[i])
  }
}
)";
  const std::string ir = emit_llvm_text(loop::parse_module(text, "hints.loop"), "t_");
  EXPECT_NE(ir.find("llvm.loop.vectorize.enable"), std::string::npos) << ir;
  EXPECT_NE(ir.find("llvm.loop.vectorize.width\", i32 8"), std::string::npos) << ir;
  EXPECT_NE(ir.find("llvm.loop.unroll.full"), std::string::npos) << ir;
  size_t loops = 0;
  for (size_t at = ir.find("!llvm.loop"); at != std::string::npos; at = ir.find("!llvm.loop", at + 1)) ++loops;
  EXPECT_EQ(loops, 2u) << "the serial loop and the vectorized reduction carry no hint (a forced vectorization "
                          "may reorder a float reduction)";
  for (int level : {0, 3}) {
    std::vector<double> xs;
    for (int i = 0; i < 80; ++i) xs.push_back(i * 0.5);
    Tensor x = Tensor::from_doubles(DType::f32, {80}, xs), y(DType::f32, {80});
    testing::run_kernel(text, "hints", {&x, &y}, {}, level);
    double sum = 4;  // Y[0] after the first three loops: (0 * 0.5 + 1) * 4, then + X[i] in order
    for (int i = 0; i < 16; ++i) sum += i * 0.5;
    EXPECT_EQ(y.get(0), sum);
    for (int i = 1; i < 80; ++i) EXPECT_EQ(y.get(i), (i * 0.5 + 1) * (i < 4 ? 4 : 1)) << i;
  }
}

TEST(CodegenLoopKinds, ParallelLoopIsOutlinedAndCallsTheRuntime) {
  const std::string text = R"(func @par(Y: i64[n]) dims(n) {
  for (i, 0, n) parallel {
    Y[i] = i
  }
}
)";
  const std::string ir = emit_llvm_text(loop::parse_module(text, "par.loop"), "t_");
  EXPECT_NE(ir.find("define internal void @t_par.parallel.i(i8*"), std::string::npos) << ir;
  EXPECT_NE(ir.find("call void @difftest_parallel_for("), std::string::npos) << ir;
}

// ------------------------------------------------------------ generated programs, marked
// A test-only schedule: outermost loops become parallel when every iteration provably touches
// its own block [S*i, S*(i+1)) of every buffer the loop writes (one stride S per buffer, the
// offset within the block monotone in each inner variable and bounded by S); serial innermost
// loops become vectorized (a hint: LLVM checks legality itself).

struct Access {
  std::string buffer;
  loop::Expr index;
};

struct Footprint : loop::Visitor {
  std::vector<Access> stores, loads;
  std::set<std::string> private_buffers;  // allocated inside the loop: one per iteration
  std::vector<std::pair<std::string, std::pair<loop::Expr, loop::Expr>>> loops;  // var, (min, extent)
  void visit_for(const loop::Stmt& s) override {
    loops.push_back({s.node().var.node().name, {s.node().min, s.node().extent}});
    loop::Visitor::visit_for(s);
  }
  void visit_store(const loop::Stmt& s) override {
    stores.push_back({s.node().buffer.name(), s.node().index});
    loop::Visitor::visit_store(s);
  }
  void visit_load(const loop::Expr& e) override {
    loads.push_back({e.node().buffer.name(), e.node().operands[0]});
    loop::Visitor::visit_load(e);
  }
  void visit_allocate(const loop::Stmt& s) override {
    private_buffers.insert(s.node().buffer.name());
    loop::Visitor::visit_allocate(s);
  }
};

bool proven(sym::Cmp c, const sym::Expr& a, const sym::Expr& b, const sym::Ranges& r) {
  return sym::prove(c, a, b, r) == sym::Truth::True;
}

// The stride S of `index` in `var` when iteration var touches only [S*var, S*(var+1)).
std::optional<sym::Expr> block_stride(const loop::Expr& index, const std::string& var, const Footprint& fp,
                                      const sym::Ranges& ranges) {
  const auto idx = passes::to_sym(index);
  if (!idx) return std::nullopt;
  auto at = [&](const sym::Expr& e, const std::string& v, const sym::Expr& value) {
    return sym::simplify(sym::substitute(e, std::map<std::string, sym::Expr>{{v, value}}), ranges);
  };
  const sym::Expr stride = sym::simplify(at(*idx, var, 1) - at(*idx, var, 0), ranges);
  sym::Expr r = at(*idx, var, 0);
  if (!(sym::simplify(*idx - (stride * sym::Expr::var(var) + r), ranges) == sym::Expr(0))) return std::nullopt;
  sym::Expr lo = r, hi = r;
  for (const auto& [v, bounds] : fp.loops) {
    const auto mn = passes::to_sym(bounds.first), ext = passes::to_sym(bounds.second);
    if (!mn || !ext || !(*mn == sym::Expr(0))) return std::nullopt;
    if (sym::contains_var(stride, v)) return std::nullopt;
    const sym::Expr step = sym::simplify(at(r, v, sym::Expr::var(v) + 1) - r, ranges);
    for (const auto& inner : fp.loops) {
      if (sym::contains_var(step, inner.first)) return std::nullopt;
    }
    if (!proven(sym::Cmp::GE, step, 0, ranges)) return std::nullopt;
    lo = at(lo, v, 0);
    hi = at(hi, v, *ext - 1);
  }
  if (!proven(sym::Cmp::GE, lo, 0, ranges) || !proven(sym::Cmp::LT, hi, stride, ranges)) return std::nullopt;
  return stride;
}

bool parallel_safe(const loop::StmtNode& n, const std::vector<loop::Expr>& dims) {
  if (!n.min.is_int_imm(0)) return false;
  sym::Ranges ranges;
  for (const auto& d : dims) ranges[d.node().name] = sym::Range{0, kMaxDimVarValue};
  Footprint fp;
  fp.visit(n.body[0]);
  std::map<std::string, sym::Expr> strides;
  std::set<std::string> written;
  for (const auto& s : fp.stores) written.insert(s.buffer);
  std::vector<Access> checked = fp.stores;
  for (const auto& l : fp.loads) {
    if (written.count(l.buffer)) checked.push_back(l);
  }
  for (const auto& a : checked) {
    if (fp.private_buffers.count(a.buffer)) continue;
    const auto stride = block_stride(a.index, n.var.node().name, fp, ranges);
    if (!stride) return false;
    const auto [it, fresh] = strides.emplace(a.buffer, *stride);
    if (!fresh && !(it->second == *stride)) return false;
  }
  return true;
}

class MarkLoops : public loop::Mutator {
 public:
  explicit MarkLoops(const std::vector<loop::Expr>& dims) : dims_(dims) {}
  int parallel = 0;
  using loop::Mutator::mutate;
  loop::Stmt mutate(const loop::Stmt& s) override {
    if (!s.defined() || s.kind() != loop::StmtKind::For) return mutate_children(s);
    const loop::StmtNode& n = s.node();
    const bool outermost = depth_ == 0;
    ++depth_;
    const loop::Stmt body = mutate(n.body[0]);
    --depth_;
    struct HasLoop : loop::Visitor {
      bool found = false;
      void visit_for(const loop::Stmt&) override { found = true; }
    } inner;
    inner.visit(n.body[0]);
    loop::ForKind kind = n.for_kind;
    if (outermost && parallel_safe(n, dims_)) {
      kind = loop::ForKind::Parallel;
      ++parallel;
    } else if (!inner.found && kind == loop::ForKind::Serial) {
      kind = loop::ForKind::Vectorized;
    }
    return loop::Stmt::for_loop(n.var, n.min, n.extent, kind, body);
  }

 private:
  const std::vector<loop::Expr>& dims_;
  int depth_ = 0;
};

RC_GTEST_PROP(CodegenLoopKinds, ParallelAndVectorizedGeneratedProgramsAgreeWithSerialAndReference, ()) {
  testing::RcChoices choices;
  GeneratorOptions options;
  options.max_ops = 4;
  const Program p = generate_program(choices, options);
  const pipeline::Lowered serial = pipeline::run_passes(p, {"LegalizeOps"});
  loop::Module marked = serial.module;
  int parallel = 0;
  for (auto& f : marked.funcs) {
    MarkLoops mark(f.dims);
    f.body = mark.mutate(f.body);
    parallel += mark.parallel;
  }
  RC_CLASSIFY(parallel > 0, "some loop parallel");
  const runtime::Executable plain(serial.graph, serial.module, JitOptions{2});
  const runtime::Executable scheduled(serial.graph, marked, JitOptions{2});
  const tolerance::Options opt = testing::probabilistic();
  for (const sym::Env& env : reference::standard_bindings(p)) {
    const auto inputs = reference::generate_inputs(p, env, 1);
    const auto want = plain.run(inputs, env);
    const auto got = scheduled.run(inputs, env);
    RC_ASSERT(got.size() == want.size());
    for (size_t k = 0; k < got.size(); ++k) {
      if (!got[k].same_bytes(want[k])) RC_FAIL(fmt::format("output {} differs from serial code under {}:\n{}", k,
                                                           reference::binding_str(env), loop::print(marked)));
    }
    const auto bounds = tolerance::bound_program(p, env, inputs, opt);
    if (bounds.invalid) continue;
    const auto c = tolerance::compare_outputs(p, bounds, got, opt);
    if (!c.passed()) RC_FAIL(testing::describe_failures(c) + print(p));
  }
}

}  // namespace
}  // namespace difftest::codegen
