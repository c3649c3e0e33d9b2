// Executor: binding the dims from the inputs' shapes. Every bad input (a missing param, a wrong
// rank or dtype, a dim outside its range, params that disagree on a dim or on a derived dim)
// gives a UserError whose message names the param, axis and dim — never a crash or a run on
// inconsistent shapes. Plus the positive paths: a consistent binding runs, and a dim no input
// determines can be given explicitly.
#include "compiler/runtime/executor.h"

#include <gtest/gtest.h>

#include <initializer_list>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/verifier.h"
#include "compiler/pipeline/compile.h"
#include "tests/support/ir_util.h"

namespace difftest {
namespace {

// n is bound by %x axis 0 (the first occurrence); %y must agree, %z carries the derived 2*n,
// and m is bound only by %w.
const char* kProgram = R"(program @bind(n: 2..32, m: 1..8) {
  %x: f32[n, 4] = param
  %y: f32[n, 4] = param
  %z: f32[2*n] = param
  %w: i32[m] = param
  %s: f32[n, 4] = add(%x, %y)
  %d: f32[2*n] = add(%z, %z)
  %v: i32[m] = add(%w, %w)
  return %s, %d, %v
}
)";

const runtime::Executable& executable() {
  static const runtime::Executable exe =
      pipeline::compile(testing::verified_program(kProgram, "bind.ir"), pipeline::find_pipeline("O0"));
  return exe;
}

Tensor ramp(DType t, std::vector<int64_t> shape, double start = 0) {
  std::vector<double> v(static_cast<size_t>(shape_numel(shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + static_cast<double>(i);
  return Tensor::from_doubles(t, std::move(shape), v);
}

// Inputs consistent with n and m.
std::map<std::string, Tensor> inputs(int64_t n, int64_t m) {
  return {{"x", ramp(DType::f32, {n, 4})},
          {"y", ramp(DType::f32, {n, 4}, 100)},
          {"z", ramp(DType::f32, {2 * n})},
          {"w", ramp(DType::i32, {m}, -3)}};
}

// Both bind_dims and run must refuse `in` with a UserError of `kind` whose message contains
// every one of `parts`.
void expect_refused(const std::map<std::string, Tensor>& in, ErrorKind kind, std::initializer_list<const char*> parts,
                    const sym::Env& given = {}) {
  for (const bool through_run : {false, true}) {
    SCOPED_TRACE(through_run ? "Executable::run" : "bind_dims");
    try {
      if (through_run) {
        executable().run(in, given);
      } else {
        runtime::bind_dims(executable().program(), in, given);
      }
      ADD_FAILURE() << "accepted";
    } catch (const UserError& e) {
      EXPECT_EQ(error_kind_name(e.kind()), std::string(error_kind_name(kind))) << e.what();
      for (const char* p : parts) EXPECT_NE(e.message().find(p), std::string::npos) << "'" << p << "' not in: " << e.what();
    }
  }
}

TEST(Executor, ConsistentInputsRun) {
  const auto in = inputs(5, 3);
  sym::Env dims;
  const std::vector<Tensor> out = executable().run(in, {}, &dims);
  EXPECT_EQ(dims, (sym::Env{{"n", 5}, {"m", 3}}));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{5, 4}));
  EXPECT_EQ(out[1].shape(), (std::vector<int64_t>{10}));
  EXPECT_EQ(out[2].shape(), (std::vector<int64_t>{3}));
  for (int64_t i = 0; i < 20; ++i) EXPECT_EQ(out[0].get(i), static_cast<double>(i + i + 100));
  for (int64_t i = 0; i < 10; ++i) EXPECT_EQ(out[1].get(i), static_cast<double>(2 * i));
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(out[2].get_int(i), 2 * (i - 3));
}

TEST(Executor, MissingParamIsNamed) {
  auto in = inputs(5, 3);
  in.erase("y");
  expect_refused(in, ErrorKind::Usage, {"%y"});
}

TEST(Executor, WrongRankIsNamed) {
  auto in = inputs(5, 3);
  in["x"] = ramp(DType::f32, {5, 4, 1});
  expect_refused(in, ErrorKind::Shape, {"%x", "rank 3", "2"});
  in["x"] = ramp(DType::f32, {20});
  expect_refused(in, ErrorKind::Shape, {"%x", "rank 1"});
}

TEST(Executor, WrongDtypeIsNamed) {
  auto in = inputs(5, 3);
  in["w"] = ramp(DType::i64, {3});
  expect_refused(in, ErrorKind::TypeMismatch, {"%w", "i64", "i32"});
  in = inputs(5, 3);
  in["z"] = ramp(DType::f16, {10});
  expect_refused(in, ErrorKind::TypeMismatch, {"%z", "f16", "f32"});
}

TEST(Executor, DimOutsideItsRangeIsNamed) {
  expect_refused(inputs(1, 3), ErrorKind::Shape, {"n=1", "%x axis 0", "2..32"});
  expect_refused(inputs(33, 3), ErrorKind::Shape, {"n=33", "2..32"});
  expect_refused(inputs(4, 9), ErrorKind::Shape, {"m=9", "%w axis 0", "1..8"});
  auto empty = inputs(4, 3);
  empty["w"] = Tensor(DType::i32, {0});
  expect_refused(empty, ErrorKind::Shape, {"m=0", "%w axis 0"});
}

TEST(Executor, ParamsDisagreeingOnADimAreNamed) {
  auto in = inputs(5, 3);
  in["y"] = ramp(DType::f32, {6, 4});
  expect_refused(in, ErrorKind::Shape, {"%y axis 0", "extent 6", "n", "5", "%x axis 0"});
  in = inputs(5, 3);
  in["y"] = ramp(DType::f32, {5, 3});  // a constant axis
  expect_refused(in, ErrorKind::Shape, {"%y axis 1", "extent 3"});
}

TEST(Executor, DerivedDimInconsistentWithItsDimIsNamed) {
  auto in = inputs(5, 3);
  in["z"] = ramp(DType::f32, {11});
  expect_refused(in, ErrorKind::Shape, {"%z axis 0", "extent 11", "2*n", "10"});
  in["z"] = ramp(DType::f32, {5});
  expect_refused(in, ErrorKind::Shape, {"%z axis 0", "extent 5"});
}

TEST(Executor, GivenDimsAreCheckedLikeInputShapes) {
  // A given dim takes precedence over the shapes, which must then agree with it.
  expect_refused(inputs(5, 3), ErrorKind::Shape, {"%x axis 0", "extent 5", "--bind"}, {{"n", 6}});
  expect_refused(inputs(5, 3), ErrorKind::Shape, {"n=40", "--bind", "2..32"}, {{"n", 40}});
  sym::Env dims;
  executable().run(inputs(5, 3), {{"n", 5}}, &dims);
  EXPECT_EQ(dims.at("n"), 5);
}

// Here no param shape contains n itself: only 2*n occurs, and k occurs in no param at all.
const char* kGivenOnly = R"(program @given(n: 1..16, k: 1..37) {
  %z: f32[2*n] = param
  %d: f32[2*n] = add(%z, %z)
  %r: f32[k] = arange(end=k, dtype=f32)
  return %d, %r
}
)";

TEST(Executor, DimDeterminedOnlyByGivenWorks) {
  const runtime::Executable exe =
      pipeline::compile(testing::verified_program(kGivenOnly, "bind.ir"), pipeline::find_pipeline("O0"));
  const std::map<std::string, Tensor> in = {{"z", ramp(DType::f32, {8})}};
  sym::Env dims;
  const std::vector<Tensor> out = exe.run(in, {{"n", 4}, {"k", 13}}, &dims);
  EXPECT_EQ(dims, (sym::Env{{"n", 4}, {"k", 13}}));
  ASSERT_EQ(out.size(), 2u);
  ASSERT_EQ(out[1].shape(), (std::vector<int64_t>{13}));
  for (int64_t i = 0; i < 13; ++i) EXPECT_EQ(out[1].get(i), static_cast<double>(i));
  for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(out[0].get(i), static_cast<double>(2 * i));

  // Without k (or n) the binding is refused, naming the dim.
  for (const sym::Env& given : {sym::Env{{"n", 4}}, sym::Env{{"k", 13}}}) {
    try {
      exe.run(in, given);
      ADD_FAILURE() << "ran without every dim";
    } catch (const UserError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Usage) << e.what();
      const std::string missing = given.count("k") ? "dim n" : "dim k";
      EXPECT_NE(e.message().find(missing), std::string::npos) << e.what();
    }
  }
  // A given n that the shape of %z contradicts.
  try {
    exe.run(in, {{"n", 5}, {"k", 13}});
    ADD_FAILURE() << "ran with %z inconsistent with n";
  } catch (const UserError& e) {
    EXPECT_NE(e.message().find("%z axis 0"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace difftest
