// How tensors travel between the harness and an external compiler's worker (kit/model_files.h): a case's
// feeds as byte ranges of one file, its outputs as byte ranges of another, read back and checked
// against the program's types and shapes.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "backends/kit/model_files.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/tensor/constant.h"
#include "oracle/check/case.h"

namespace difftest::backends {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  TempDir() : path(fs::temp_directory_path() / fmt::format("ort_tensor_files.{}", ::getpid())) {
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  fs::path path;
};

std::string file_bytes(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

std::string raw(const Tensor& t) { return std::string(reinterpret_cast<const char*>(t.data()), t.nbytes()); }

TEST(WorkerFiles, ACasesFeedsAreOneFileOfTheirBytesInTheGraphsInputOrder) {
  const Program p = parse_program(R"(program @two(n: 1..8) {
  %x: f32[n, 3] = param
  %i: i64[4] = param
  %y: f32[n, 3] = exp(%x)
  return %y, %i
}
)",
                                  "two.ir");
  const WorkerModel model = export_onnx_model(p);
  const oracle::Case c = oracle::make_case(p, {{"n", 2}}, oracle::CaseOptions{});
  const TempDir dir;
  const nlohmann::json feeds = write_feeds(model, p, c, dir.path, "c0_in.bin");
  const std::string file = file_bytes(dir.path / "c0_in.bin");
  const auto fed = feeds_of(model, p, c);
  ASSERT_EQ(feeds.size(), fed.size());
  std::string expected;
  for (size_t i = 0; i < fed.size(); ++i) {
    EXPECT_EQ(feeds[i].at("name"), fed[i].first);
    EXPECT_EQ(feeds[i].at("file"), "c0_in.bin");
    EXPECT_EQ(feeds[i].at("offset").get<size_t>(), expected.size()) << i;
    EXPECT_EQ(feeds[i].at("bytes").get<size_t>(), fed[i].second.nbytes()) << i;
    expected += raw(fed[i].second);
  }
  EXPECT_EQ(file, expected);
  EXPECT_EQ(file.substr(0, 24), raw(c.inputs.at("x"))) << "x, 2 x 3 f32, first";
  EXPECT_EQ(file.substr(24, 32), raw(c.inputs.at("i"))) << "then i, 4 i64";
}

TEST(WorkerFiles, OutputsAreReadFromTheirByteRangesAndAWrongRangeIsOrtsFinding) {
  const Program p = parse_program(R"(program @two() {
  %a: f32[2] = param
  %b: i32[3] = param
  %x: f32[2] = neg(%a)
  %y: i32[3] = neg(%b)
  return %x, %y
}
)",
                                  "two.ir");
  const float x[2] = {1.5f, -2.25f};
  const int32_t y[3] = {7, -8, 9};
  std::string blob(reinterpret_cast<const char*>(y), sizeof y);  // y first: the offsets say where
  blob.append(reinterpret_cast<const char*>(x), sizeof x);
  const TempDir dir;
  std::ofstream(dir.path / "c0_out.bin", std::ios::binary) << blob;
  nlohmann::json answer = {
      {"run_ms", 0.5},
      {"differs", nullptr},
      {"outputs",
       {{{"name", "x"}, {"type", "float32"}, {"dims", {2}}, {"file", "c0_out.bin"}, {"offset", 12}, {"bytes", 8}},
        {{"name", "y"}, {"type", "int32"}, {"dims", {3}}, {"file", "c0_out.bin"}, {"offset", 0}, {"bytes", 12}}}}};
  const oracle::CompiledRuns::Run run = read_run(export_onnx_model(p), p, {}, answer, dir.path, "ONNX Runtime");
  ASSERT_EQ(run.outputs.size(), 2u);
  EXPECT_EQ(run.outputs[0].get(0), 1.5);
  EXPECT_EQ(run.outputs[0].get(1), -2.25);
  EXPECT_EQ(run.outputs[1].get(0), 7);
  EXPECT_EQ(run.outputs[1].get(1), -8);
  EXPECT_EQ(run.outputs[1].get(2), 9);
  EXPECT_EQ(run.nondeterminism, "");

  answer["outputs"][0]["offset"] = 16;  // past the end of x: 4 bytes left, 8 wanted
  try {
    read_run(export_onnx_model(p), p, {}, answer, dir.path, "ONNX Runtime");
    FAIL() << "a range past the end of the file was read";
  } catch (const WrongAnswer& e) {
    EXPECT_STREQ(e.what(), "ONNX Runtime's output 0 has 4 bytes, not 8");
  }
}

TEST(WorkerFiles, TheTextFormKeepsBf16AtTheEdgesAndFeedsParamsByName) {
  const Program p = parse_program(R"(program @h(n: 1..8) {
  %x: bf16[n] = param
  %y: bf16[n] = neg(%x)
  return %y
}
)",
                                  "h.ir");
  const WorkerModel model = export_text_model(p);
  EXPECT_EQ(model.file_name(), "program.ir");
  EXPECT_NE(model.bytes.find("%y: bf16[n] = neg(%x)"), std::string::npos) << model.bytes;
  ASSERT_EQ(model.inputs.size(), 1u);
  EXPECT_EQ(model.inputs[0].name, "x");
  EXPECT_EQ(model.inputs[0].dtype, DType::bf16);
  EXPECT_EQ(worker_type_name(model.inputs[0].dtype), "bfloat16");
  EXPECT_EQ(export_onnx_model(p).inputs[0].dtype, DType::f32) << "ONNX feeds bf16 as f32";

  const uint16_t minus_one_and_a_half = 0xBFC0;  // bf16 -1.5
  const TempDir dir;
  std::ofstream(dir.path / "c0_out.bin", std::ios::binary)
      << std::string(reinterpret_cast<const char*>(&minus_one_and_a_half), 2);
  nlohmann::json answer = {
      {"outputs", {{{"name", "y"}, {"type", "bfloat16"}, {"dims", {1}}, {"file", "c0_out.bin"}, {"offset", 0}, {"bytes", 2}}}}};
  const oracle::CompiledRuns::Run run = read_run(model, p, {{"n", 1}}, answer, dir.path, "stand-in");
  ASSERT_EQ(run.outputs.size(), 1u);
  EXPECT_EQ(run.outputs[0].dtype(), DType::bf16);
  EXPECT_EQ(run.outputs[0].get(0), -1.5);
  answer["outputs"][0]["type"] = "float32";
  try {
    read_run(model, p, {{"n", 1}}, answer, dir.path, "stand-in");
    FAIL() << "an f32 answer of a bf16 output of the text form was taken";
  } catch (const WrongAnswer& e) {
    EXPECT_STREQ(e.what(), "stand-in's output 0 is float32[1] where the program's is bf16[1]");
  }
}


TEST(WorkerFiles, TheTvmScriptFormFeedsParamsThenConstantsMaterializedUnderTheBinding) {
  const Program p = parse_program(R"(program @c(n: 1..8) {
  %x: f32[n, 2] = param
  %w: f32[n, 2] = const uniform(-1, 1, seed=7)
  %k: i32[2] = const [3, 4]
  %y: f32[n, 2] = mul(%x, %w)
  return %y, %k
}
)",
                                  "c.ir");
  const WorkerModel model = export_tvmscript_model(p);
  EXPECT_EQ(model.file_name(), "program.py");
  EXPECT_EQ(parse_model_format("tvmscript"), ModelFormat::TvmScript);
  EXPECT_EQ(model_format_name(ModelFormat::TvmScript), "tvmscript");
  EXPECT_NE(model.bytes.find("class Module:"), std::string::npos) << model.bytes;
  EXPECT_NE(model.bytes.find("SHAPE_DIMS = []"), std::string::npos) << "n is bound by x's annotation";
  // The small literal is written inline (R.const); the generated one is main's next parameter.
  ASSERT_EQ(model.inputs.size(), 2u);
  EXPECT_EQ(model.inputs[0].name, "x");
  EXPECT_EQ(model.inputs[0].param, 0);
  EXPECT_EQ(model.inputs[1].name, "w");
  EXPECT_EQ(model.inputs[1].param, -1);
  ASSERT_EQ(model.inputs[1].constant, 1) << "the binding of %w";
  EXPECT_NE(model.bytes.find("def main(x: R.Tensor((\"n\", 2), \"float32\"), w: R.Tensor((\"n\", 2), \"float32\"))"),
            std::string::npos)
      << model.bytes;
  const oracle::Case c = oracle::make_case(p, {{"n", 3}}, oracle::CaseOptions{});
  const auto fed = feeds_of(model, p, c);
  ASSERT_EQ(fed.size(), 2u);
  EXPECT_EQ(fed[1].second.shape(), (std::vector<int64_t>{3, 2})) << "the constant at the case's n";
  const Tensor want = materialize_constant(p.bindings()[1].constant(), DType::f32, {3, 2});
  EXPECT_EQ(raw(fed[1].second), raw(want));
  // A cached model serves every program of its text (ModelCache): the program it was exported
  // from may be gone when another parse of the same text is fed.
  const WorkerModel kept = [&] {
    const Program gone = parse_program(print(p), "gone.ir");
    return export_tvmscript_model(gone);
  }();
  const Program again = parse_program(print(p), "again.ir");
  const oracle::Case c_again = oracle::make_case(again, {{"n", 3}}, oracle::CaseOptions{});
  EXPECT_EQ(raw(feeds_of(kept, again, c_again)[1].second), raw(want));
  for (int64_t i = 0; i < 6; ++i) {
    EXPECT_GE(fed[1].second.get(i), -1.0);
    EXPECT_LT(fed[1].second.get(i), 1.0);
  }
}

TEST(WorkerFiles, TheTvmScriptFormPassesDimsNoTensorBindsAsAShape) {
  const Program p = parse_program(R"(program @d(n: 1..8) {
  %x: f32[2*n] = param
  %y: f32[2*n] = neg(%x)
  return %y
}
)",
                                  "d.ir");
  const WorkerModel model = export_tvmscript_model(p);
  EXPECT_NE(model.bytes.find("SHAPE_DIMS = [\"n\"]"), std::string::npos) << model.bytes;
  EXPECT_NE(model.bytes.find("R.Shape([\"n\"])"), std::string::npos) << model.bytes;
  ASSERT_EQ(model.inputs.size(), 1u);
}

}  // namespace
}  // namespace difftest::backends
