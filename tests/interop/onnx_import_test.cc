// ONNX import and the node-test runner: models built here with the ONNX protobuf API, so each
// test states the model and what difftest must make of it; the expected values are written
// out, not computed by the importer or the reference.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "compiler/ir/printer.h"
#include "interop/onnx/conformance.h"
#include "interop/onnx/import.h"
#include "reference/reference.h"

namespace difftest::interop {
namespace {

namespace fs = std::filesystem;

void add_input(::onnx::GraphProto& g, const std::string& name, int32_t dtype, const std::vector<std::string>& dims) {
  auto* in = g.add_input();
  in->set_name(name);
  auto* tt = in->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(dtype);
  for (const auto& d : dims) {
    auto* dim = tt->mutable_shape()->add_dim();
    if (std::isdigit(static_cast<unsigned char>(d[0]))) {
      dim->set_dim_value(std::stoll(d));
    } else {
      dim->set_dim_param(d);
    }
  }
}

::onnx::NodeProto* add_node(::onnx::GraphProto& g, const std::string& op, const std::vector<std::string>& in,
                            const std::vector<std::string>& out) {
  auto* n = g.add_node();
  n->set_op_type(op);
  for (const auto& i : in) n->add_input(i);
  for (const auto& o : out) n->add_output(o);
  return n;
}

::onnx::ModelProto model_of(int opset) {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  m.mutable_graph()->set_name("m");
  return m;
}

// y = Softmax(x @ w + b) over a symbolic batch: the program keeps the dim symbolic, takes the
// initializers as constants, and computes what the formula gives.
TEST(OnnxImport, AMatMulSoftmaxModelBecomesTheProgramItComputes) {
  ::onnx::ModelProto m = model_of(13);
  auto& g = *m.mutable_graph();
  add_input(g, "x", ::onnx::TensorProto::FLOAT, {"batch", "2"});
  *g.add_initializer() = tensor_to_proto(Tensor::from_doubles(DType::f32, {2, 2}, {1, 0, 0, 2}), "w");
  *g.add_initializer() = tensor_to_proto(Tensor::from_doubles(DType::f32, {2}, {0, 1}), "b");
  add_node(g, "MatMul", {"x", "w"}, {"xw"});
  add_node(g, "Add", {"xw", "b"}, {"z"});
  add_node(g, "Softmax", {"z"}, {"y"});
  g.add_output()->set_name("y");
  ImportOptions options;
  options.dims["batch"] = {1, 64};
  const Program p = import_model(m, options, "m.onnx");
  ASSERT_EQ(p.dims().size(), 1u);
  EXPECT_EQ(p.dims()[0].name, "batch");
  EXPECT_EQ(p.outputs()[0].type().str(), "f32[batch, 2]");
  // x = [[1, 1]]: z = [1, 3], softmax = [1, e^2] / (1 + e^2).
  const std::map<std::string, Tensor> inputs = {{"x", Tensor::from_doubles(DType::f32, {1, 2}, {1, 1})}};
  const Tensor y = reference::evaluate(p, {{"batch", 1}}, inputs, reference::Mode::F64).outputs[0];
  EXPECT_NEAR(y.get(0), 0.11920292202211755, 1e-6);
  EXPECT_NEAR(y.get(1), 0.8807970779778823, 1e-6);
}

// ORT's MatMulNBits read as its definition. One block of 16 codes 0..15 (byte j holds codes 2j
// and 2j + 1, low nibble first), scale 0.5, a row of ones as A: y = 0.5 * sum(i - zp) over
// i = 0..15, which is 0.5 * (120 - 16 * 8) = -4 with the default zero point 8 and
// 0.5 * (120 - 16 * 7) = 4 with an explicit zero point 7 (packed in a byte's low nibble).
TEST(OnnxImport, MatMulNBitsDecodesItsNibblesZeroPointsAndScales) {
  for (const bool explicit_zero_point : {false, true}) {
    ::onnx::ModelProto m = model_of(17);
    auto* contrib = m.add_opset_import();
    contrib->set_domain(kMicrosoftDomain);
    contrib->set_version(1);
    auto& g = *m.mutable_graph();
    add_input(g, "a", ::onnx::TensorProto::FLOAT, {"1", "16"});
    std::vector<int64_t> bytes;
    for (int64_t j = 0; j < 8; ++j) bytes.push_back(2 * j + 16 * (2 * j + 1));
    *g.add_initializer() = tensor_to_proto(Tensor::from_ints(DType::u8, {1, 1, 8}, bytes), "b");
    *g.add_initializer() = tensor_to_proto(Tensor::from_doubles(DType::f32, {1}, {0.5}), "scales");
    std::vector<std::string> inputs = {"a", "b", "scales"};
    if (explicit_zero_point) {
      *g.add_initializer() = tensor_to_proto(Tensor::from_ints(DType::u8, {1}, {7}), "zp");
      inputs.push_back("zp");
    }
    auto* node = add_node(g, "MatMulNBits", inputs, {"y"});
    node->set_domain(kMicrosoftDomain);
    for (const auto& [name, value] :
         std::vector<std::pair<std::string, int64_t>>{{"K", 16}, {"N", 1}, {"bits", 4}, {"block_size", 16}}) {
      auto* attr = node->add_attribute();
      attr->set_name(name);
      attr->set_type(::onnx::AttributeProto::INT);
      attr->set_i(value);
    }
    g.add_output()->set_name("y");
    const Program p = import_model(m, {}, "nbits.onnx");
    EXPECT_EQ(p.outputs()[0].type().str(), "f32[1, 1]");
    const std::map<std::string, Tensor> in = {
        {"a", Tensor::from_doubles(DType::f32, {1, 16}, std::vector<double>(16, 1))}};
    const Tensor y = reference::evaluate(p, {}, in, reference::Mode::F64).outputs[0];
    EXPECT_EQ(y.get(0), explicit_zero_point ? 4.0 : -4.0);
  }
}

// What the importer cannot take is named: the node, its op type, the opset, the attribute.
TEST(OnnxImport, UnsupportedOpsAttributesAndDimsAreNamed) {
  ::onnx::ModelProto m = model_of(13);
  auto& g = *m.mutable_graph();
  add_input(g, "x", ::onnx::TensorProto::FLOAT, {"2", "3"});
  add_node(g, "Relu", {"x"}, {"r"})->set_name("first");
  add_node(g, "Loop", {"r"}, {"y"})->set_name("second");
  g.add_output()->set_name("y");
  try {
    import_model(m, {}, "m.onnx");
    FAIL() << "Loop was imported";
  } catch (const Unsupported& e) {
    EXPECT_EQ(e.reason(), "op Loop");
    EXPECT_NE(e.message().find("m.onnx: node 1 'second' (Loop, opset 13)"), std::string::npos) << e.message();
  }
  ::onnx::ModelProto a = model_of(13);
  add_input(*a.mutable_graph(), "x", ::onnx::TensorProto::FLOAT, {"2", "3"});
  auto* arg = add_node(*a.mutable_graph(), "ArgMax", {"x"}, {"y"})->add_attribute();
  arg->set_name("frobnicate");
  arg->set_type(::onnx::AttributeProto::INT);
  a.mutable_graph()->add_output()->set_name("y");
  try {
    import_model(a, {}, "a.onnx");
    FAIL() << "an unknown attribute was taken";
  } catch (const Unsupported& e) {
    EXPECT_EQ(e.reason(), "attribute ArgMax.frobnicate");
  }
  ::onnx::ModelProto d = model_of(13);
  add_input(*d.mutable_graph(), "x", ::onnx::TensorProto::FLOAT, {"n"});
  add_node(*d.mutable_graph(), "Relu", {"x"}, {"y"});
  d.mutable_graph()->add_output()->set_name("y");
  try {
    import_model(d, {}, "d.onnx");
    FAIL() << "a dim without a range was taken";
  } catch (const UserError& e) {
    EXPECT_NE(e.message().find("--dim n=LO..HI"), std::string::npos) << e.message();
  }
}

// Softmax before opset 13 coerces its input to 2-D at `axis`: over the last two dims here.
TEST(OnnxImport, OldSoftmaxNormalizesOverEverythingFromItsAxis) {
  ::onnx::ModelProto m = model_of(11);
  auto& g = *m.mutable_graph();
  add_input(g, "x", ::onnx::TensorProto::DOUBLE, {"1", "2", "2"});
  add_node(g, "Softmax", {"x"}, {"y"});
  g.add_output()->set_name("y");
  const Program p = import_model(m, {}, "m.onnx");
  const std::map<std::string, Tensor> inputs = {{"x", Tensor::from_doubles(DType::f64, {1, 2, 2}, {0, 0, 0, 0})}};
  const Tensor y = reference::evaluate(p, {}, inputs, reference::Mode::Native).outputs[0];
  for (int64_t i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(y.get(i), 0.25);
}

TEST(OnnxTensors, TypedFieldsAndRawDataReadTheSame) {
  ::onnx::TensorProto typed;
  typed.set_data_type(::onnx::TensorProto::INT32);
  typed.add_dims(3);
  for (const int v : {-1, 0, 7}) typed.add_int32_data(v);
  const Tensor t = tensor_from_proto(typed, "t");
  EXPECT_EQ(t.to_ints(), (std::vector<int64_t>{-1, 0, 7}));
  const Tensor back = tensor_from_proto(tensor_to_proto(t, "t"), "t");
  EXPECT_TRUE(back.same_bytes(t));
  typed.add_int32_data(9);
  EXPECT_THROW(tensor_from_proto(typed, "t"), UserError);  // 4 values for 3 elements
  ::onnx::TensorProto text;
  text.set_data_type(::onnx::TensorProto::STRING);
  EXPECT_THROW(tensor_from_proto(text, "t"), Unsupported);
}

// A node test whose expected output is changed fails, one that is left alone passes: the runner
// compares, it does not just import.
TEST(OnnxConformance, AChangedExpectedOutputFails) {
  const fs::path source = fs::path(kDefaultNodeTestDir) / "test_add";
  if (!fs::exists(source)) GTEST_SKIP() << "libonnx-testdata is not installed";
  const fs::path root = fs::path(::testing::TempDir()) / "onnx_node_tests";
  fs::remove_all(root);
  fs::create_directories(root);
  fs::copy(source, root / "test_add", fs::copy_options::recursive);
  fs::copy(source, root / "test_add_changed", fs::copy_options::recursive);
  const fs::path out = root / "test_add_changed" / "test_data_set_0" / "output_0.pb";
  Tensor y = tensor_from_proto(read_tensor_proto(out.string()), "output_0.pb");
  y.set(5, y.get(5) * 1.01 + 0.01);
  {
    std::ofstream f(out, std::ios::binary | std::ios::trunc);
    tensor_to_proto(y, "z").SerializeToOstream(&f);
  }
  const ConformanceReport r = run_conformance(root.string());
  ASSERT_EQ(r.results.size(), 2u);
  EXPECT_EQ(r.results[0].outcome, NodeTestOutcome::Passed) << r.results[0].reason;
  EXPECT_EQ(r.results[1].outcome, NodeTestOutcome::Failed);
  EXPECT_NE(r.results[1].reason.find("beyond the bounds"), std::string::npos) << r.results[1].reason;
  EXPECT_EQ(expectation_changes(r, "test_add passed\ntest_add_changed passed\n"),
            (std::vector<std::string>{"- test_add_changed passed", "+ test_add_changed failed"}));
}

}  // namespace
}  // namespace difftest::interop
