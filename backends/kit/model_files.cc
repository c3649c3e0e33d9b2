#include "backends/kit/model_files.h"

#include <fmt/format.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/printer.h"
#include "compiler/tensor/constant.h"
#include "compiler/tensor/npy.h"
#include "exporters/tvmscript/tvmscript.h"
#include "interop/onnx/export.h"
#include "interop/onnx/import.h"

namespace difftest::backends {

namespace fs = std::filesystem;

std::string worker_type_name(DType t) {
  switch (t) {
    case DType::f64:
      return "float64";
    case DType::f32:
      return "float32";
    case DType::f16:
      return "float16";
    case DType::i64:
      return "int64";
    case DType::i32:
      return "int32";
    case DType::i8:
      return "int8";
    case DType::u8:
      return "uint8";
    case DType::u32:
      return "uint32";
    case DType::boolean:
      return "bool";
    case DType::bf16:
      return "bfloat16";
  }
  throw InternalError(fmt::format("no worker tensor type for {}", dtype_name(t)));
}

std::string model_format_name(ModelFormat f) {
  switch (f) {
    case ModelFormat::Onnx:
      return "onnx";
    case ModelFormat::Text:
      return "ir";
    case ModelFormat::TvmScript:
      return "tvmscript";
  }
  throw InternalError("unknown model format");
}

std::optional<ModelFormat> parse_model_format(const std::string& name) {
  for (ModelFormat f : {ModelFormat::Onnx, ModelFormat::Text, ModelFormat::TvmScript}) {
    if (name == model_format_name(f)) return f;
  }
  return std::nullopt;
}

std::string model_file_name(ModelFormat format) {
  switch (format) {
    case ModelFormat::Onnx:
      return "model.onnx";
    case ModelFormat::Text:
      return "program.ir";
    case ModelFormat::TvmScript:
      return "program.py";
  }
  throw InternalError("unknown model format");
}

WorkerModel export_text_model(const Program& p) {
  WorkerModel model;
  model.format = ModelFormat::Text;
  model.bytes = print(p);
  const std::vector<Value> params = p.params();
  for (size_t i = 0; i < params.size(); ++i) {
    model.inputs.push_back({params[i].name(), static_cast<int>(i), -1, "", params[i].type().dtype});
  }
  return model;
}

WorkerModel export_tvmscript_model(const Program& p) {
  if (const std::string why = exporters::tvm_unsupported_form(p); !why.empty()) {
    throw interop::Unsupported("TVMScript export", why);
  }
  const exporters::TvmScriptModule module = exporters::export_tvmscript_module(p);
  WorkerModel model;
  model.format = ModelFormat::TvmScript;
  model.bytes = module.text;
  const std::vector<Value> params = p.params();
  std::map<const ValueNode*, int> constants;
  for (size_t i = 0; i < p.bindings().size(); ++i) {
    const Binding& b = p.bindings()[i];
    if (b.kind() == BindingKind::Const) constants.emplace(b.result().get(), static_cast<int>(i));
  }
  for (const Value& v : module.inputs) {
    WorkerModel::Input input{v.name(), -1, -1, "", v.type().dtype};
    const auto param = std::find_if(params.begin(), params.end(), [&](const Value& x) { return x.get() == v.get(); });
    if (param != params.end()) {
      input.param = static_cast<int>(param - params.begin());
    } else {
      DT_CHECK(constants.count(v.get()), "a TVMScript module's input is neither a param nor a constant: " + v.name());
      input.constant = constants.at(v.get());
    }
    model.inputs.push_back(std::move(input));
  }
  return model;
}

WorkerModel export_model(const Program& p, ModelFormat format) {
  switch (format) {
    case ModelFormat::Onnx:
      return export_onnx_model(p);
    case ModelFormat::Text:
      return export_text_model(p);
    case ModelFormat::TvmScript:
      return export_tvmscript_model(p);
  }
  throw InternalError("unknown model format");
}

WorkerModel export_onnx_model(const Program& p) {
  interop::ExportOptions options;
  // The program's hash picks the decompositions' forms, so every program shows ORT's matchers
  // one of the forms exporters write, the same one each time.
  options.form_seed = program_hash(p);
  options.bf16_edges_as_f32 = true;
  const ::onnx::ModelProto m = interop::export_program(p, options);
  // ORT loads a model only if ONNX's type inference accepts it; the exporter writes some ops in
  // dtypes their schemas do not list (bf16 Sin), which is the export's limit, not ORT's finding.
  auto typed = std::make_shared<::onnx::ModelProto>(m);
  try {
    ::onnx::shape_inference::InferShapes(*typed, ::onnx::OpSchemaRegistry::Instance(),
                                         ::onnx::ShapeInferenceOptions(/*check_type=*/true, /*error_mode=*/1));
  } catch (const std::exception& e) {
    throw interop::Unsupported("ONNX type inference",
                               fmt::format("its ONNX form breaks ONNX's type constraints: {}", e.what()));
  }
  WorkerModel model;
  DT_CHECK(m.SerializeToString(&model.bytes), "an exported model did not serialize");
  model.typed = std::move(typed);
  std::set<std::string> extents;
  for (const auto& prop : m.metadata_props()) {
    if (prop.key() != interop::kExtentInputsKey) continue;
    std::string list = prop.value();
    for (size_t at = 0; at <= list.size();) {
      const size_t comma = std::min(list.find(',', at), list.size());
      extents.insert(list.substr(at, comma - at));
      at = comma + 1;
    }
  }
  const std::vector<Value> params = p.params();
  int next_param = 0;
  for (const auto& in : m.graph().input()) {
    WorkerModel::Input input;
    input.name = in.name();
    if (extents.count(in.name())) {
      input.dim = in.type().tensor_type().shape().dim(0).dim_param();
      input.dtype = DType::u8;
    } else {
      DT_CHECK(next_param < static_cast<int>(params.size()), "an exported model has more inputs than params");
      input.param = next_param++;
      const DType dtype = params[static_cast<size_t>(input.param)].type().dtype;
      input.dtype = model.edge_dtype(dtype);
    }
    model.inputs.push_back(std::move(input));
  }
  DT_CHECK(next_param == static_cast<int>(params.size()), "an exported model has fewer inputs than params");
  return model;
}

std::vector<std::pair<std::string, Tensor>> feeds_of(const WorkerModel& model, const Program& p, const oracle::Case& c) {
  const std::vector<Value> params = p.params();
  std::vector<std::pair<std::string, Tensor>> out;
  for (const WorkerModel::Input& input : model.inputs) {
    if (input.constant >= 0) {
      const Binding& b = p.bindings().at(static_cast<size_t>(input.constant));
      DT_CHECK(b.kind() == BindingKind::Const && b.result().name() == input.name,
               "a model's constant input is not the program's constant " + input.name);
      const TensorType& t = b.result().type();
      std::vector<int64_t> shape;
      for (const sym::Expr& d : t.shape) shape.push_back(sym::eval(d, c.env));
      out.emplace_back(input.name, materialize_constant(b.constant(), t.dtype, shape));
    } else if (input.param < 0) {
      // Only its length matters: the graph reads the dim from its shape.
      out.emplace_back(input.name, Tensor(DType::u8, {c.env.at(input.dim)}));
    } else {
      const Tensor& given = c.inputs.at(params[static_cast<size_t>(input.param)].name());
      out.emplace_back(input.name, given.dtype() == input.dtype
                                       ? given
                                       : Tensor::from_doubles(input.dtype, given.shape(), given.to_doubles()));
    }
  }
  return out;
}

nlohmann::json write_feeds(const WorkerModel& model, const Program& p, const oracle::Case& c, const fs::path& dir,
                           const std::string& file) {
  nlohmann::json feeds = nlohmann::json::array();
  std::string blob;
  const auto tensors = feeds_of(model, p, c);
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& fed = tensors[i].second;
    const WorkerModel::Input& input = model.inputs[i];
    feeds.push_back({{"name", input.name},
                     {"type", worker_type_name(input.dtype)},
                     {"dims", fed.shape()},
                     {"file", file},
                     {"offset", blob.size()},
                     {"bytes", fed.nbytes()}});
    blob.append(reinterpret_cast<const char*>(fed.data()), fed.nbytes());
  }
  write_file_atomic((dir / file).string(), blob);
  return feeds;
}

oracle::CompiledRuns::Run read_run(const WorkerModel& model, const Program& p, const sym::Env& binding,
                                   const nlohmann::json& answer, const fs::path& dir, const std::string& who) {
  oracle::CompiledRuns::Run run;
  run.run_ms = answer.value("run_ms", 0.0);
  if (const auto differs = answer.value("differs", nlohmann::json()); !differs.is_null()) {
    run.nondeterminism =
        fmt::format("two runs of the same {} compile on the same inputs differ in output {} at byte {}", who,
                    differs.value("output", std::string("?")), differs.value("byte", 0));
  }
  // The worker writes a case's outputs into one file, one after another.
  std::map<std::string, std::string> files;
  const auto read_once = [&](const std::string& name) -> const std::string& {
    auto [it, fresh] = files.try_emplace(name);
    if (fresh) {
      std::ifstream f(dir / name, std::ios::binary);
      it->second.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    }
    return it->second;
  };
  const auto& outputs = answer.at("outputs");
  if (outputs.size() != p.outputs().size()) {
    throw WrongAnswer(
        fmt::format("{} answered {} outputs where the program has {}", who, outputs.size(), p.outputs().size()));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const TensorType& type = p.outputs()[i].type();
    std::vector<int64_t> shape;
    for (const auto& d : type.shape) shape.push_back(sym::eval(d, binding));
    const DType edge = model.edge_dtype(type.dtype);
    const std::string got_type = outputs[i].value("type", std::string());
    const auto got_dims = outputs[i].value("dims", std::vector<int64_t>{});
    if (got_type != worker_type_name(edge) || got_dims != shape) {
      throw WrongAnswer(fmt::format("{}'s output {} is {}{} where the program's is {}{}", who, i, got_type,
                                    nlohmann::json(got_dims).dump(), dtype_name(edge), nlohmann::json(shape).dump()));
    }
    const std::string& file = read_once(outputs[i].value("file", std::string()));
    const size_t offset = std::min(outputs[i].value("offset", size_t{0}), file.size());
    const size_t size = std::min(outputs[i].value("bytes", file.size() - offset), file.size() - offset);
    Tensor at_edge(edge, shape);
    if (size != at_edge.nbytes()) {
      throw WrongAnswer(fmt::format("{}'s output {} has {} bytes, not {}", who, i, size, at_edge.nbytes()));
    }
    if (size > 0) std::memcpy(at_edge.data(), file.data() + offset, size);
    run.outputs.push_back(edge == type.dtype ? std::move(at_edge)
                                             : Tensor::from_doubles(type.dtype, shape, at_edge.to_doubles()));
  }
  return run;
}

}  // namespace difftest::backends
