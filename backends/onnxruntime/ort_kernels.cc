#include "backends/onnxruntime/ort_kernels.h"

#include <fmt/format.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "compiler/support/diagnostics.h"

namespace difftest::backends {

extern const char* const kOrtCpuKernels;  // cpu_kernels.cc, written by CMake

namespace {

struct Kernel {
  int since = 0, until = 0;
  std::map<std::string, std::set<std::string>> constraints;  // name -> the types it accepts
};

struct Table {
  std::string version;
  std::map<std::pair<std::string, std::string>, std::vector<Kernel>> kernels;  // (domain, op)
};

std::vector<std::string> split(const std::string& s, char at) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, at);) out.push_back(part);
  return out;
}

Table read_table() {
  Table t;
  std::stringstream in(kOrtCpuKernels);
  int line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    if (line.empty()) continue;
    if (line[0] == '#') {
      // "# onnxruntime 1.30.0, CPUExecutionProvider: ..."
      const std::vector<std::string> words = split(line, ' ');
      if (words.size() > 2 && t.version.empty()) t.version = words[2].substr(0, words[2].find(','));
      continue;
    }
    std::vector<std::string> fields = split(line, '\t');
    if (fields.size() == 4 && line.back() == '\t') fields.emplace_back();  // a kernel without type constraints
    DT_CHECK(fields.size() == 5, fmt::format("cpu_kernels.tsv line {}: {} fields, not 5", line_number, fields.size()));
    Kernel k;
    k.since = std::stoi(fields[2]);
    k.until = static_cast<int>(std::min<long long>(std::stoll(fields[3]), 1 << 30));
    for (const std::string& constraint : split(fields[4], ';')) {
      const size_t eq = constraint.find('=');
      DT_CHECK(eq != std::string::npos, fmt::format("cpu_kernels.tsv line {}: constraint without '='", line_number));
      for (const std::string& type : split(constraint.substr(eq + 1), ',')) {
        k.constraints[constraint.substr(0, eq)].insert(type);
      }
    }
    t.kernels[{fields[0], fields[1]}].push_back(std::move(k));
  }
  return t;
}

const Table& table() {
  static const Table t = read_table();
  return t;
}

// ONNX's spelling of an element type as ORT's kernel definitions write it inside tensor(...).
std::string type_name(int elem_type) {
  std::string name = ::onnx::TensorProto_DataType_Name(static_cast<::onnx::TensorProto_DataType>(elem_type));
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return name;
}

std::map<std::string, std::string> value_types(const ::onnx::GraphProto& g) {
  std::map<std::string, std::string> types;
  auto add = [&](const ::onnx::ValueInfoProto& v) {
    if (v.type().has_tensor_type() && v.type().tensor_type().elem_type() != 0) {
      types[v.name()] = type_name(v.type().tensor_type().elem_type());
    }
  };
  for (const auto& v : g.input()) add(v);
  for (const auto& v : g.output()) add(v);
  for (const auto& v : g.value_info()) add(v);
  for (const auto& init : g.initializer()) types[init.name()] = type_name(init.data_type());
  return types;
}

// The arguments of `node` bound to each type constraint of its schema: formal parameter i takes
// argument i, a variadic last parameter every argument from there on; absent optional ones none.
std::map<std::string, std::vector<std::string>> bound_arguments(const ::onnx::NodeProto& node,
                                                                 const ::onnx::OpSchema& schema) {
  std::map<std::string, std::vector<std::string>> bound;
  auto bind = [&](const auto& args, const std::vector<::onnx::OpSchema::FormalParameter>& formals) {
    for (int i = 0; i < args.size() && !formals.empty(); ++i) {
      const size_t formal = std::min(static_cast<size_t>(i), formals.size() - 1);
      if (formal < static_cast<size_t>(i) && formals[formal].GetOption() != ::onnx::OpSchema::Variadic) break;
      if (!args[i].empty()) bound[formals[formal].GetTypeStr()].push_back(args[i]);
    }
  };
  bind(node.input(), schema.inputs());
  bind(node.output(), schema.outputs());
  return bound;
}

// Why no kernel of `candidates` takes the node's arguments as `types` gives them ("" when one does).
std::string refusal(const std::vector<const Kernel*>& candidates,
                    const std::map<std::string, std::vector<std::string>>& bound,
                    const std::map<std::string, std::string>& types, bool half_as_float) {
  std::string refused;
  for (const Kernel* k : candidates) {
    refused.clear();
    for (const auto& [name, accepted] : k->constraints) {
      const auto args = bound.find(name);
      if (args == bound.end()) continue;
      for (const std::string& arg : args->second) {
        const auto found = types.find(arg);
        if (found == types.end()) continue;  // untyped: ORT decides
        const std::string type = half_as_float && found->second == "float16" ? "float" : found->second;
        if (accepted.count(type)) continue;
        refused = fmt::format("{} = {}; its kernels take {} = {}", name, type, name, fmt::join(accepted, ", "));
        break;
      }
      if (!refused.empty()) break;
    }
    if (refused.empty()) return "";
  }
  return refused;
}

}  // namespace

std::string ort_kernel_table_version() { return table().version; }

std::string ort_missing_kernel(const ::onnx::ModelProto& typed) {
  std::map<std::string, int> opsets;
  for (const auto& o : typed.opset_import()) opsets[o.domain() == "ai.onnx" ? "" : o.domain()] = static_cast<int>(o.version());
  const std::map<std::string, std::string> types = value_types(typed.graph());
  for (const auto& node : typed.graph().node()) {
    const std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
    const int version = opsets.count(domain) ? opsets.at(domain) : 1;
    // ORT's own schemas (com.microsoft) are not in ONNX's registry: their ops are taken as listed.
    const ::onnx::OpSchema* schema = ::onnx::OpSchemaRegistry::Schema(node.op_type(), version, domain);
    // As ORT names a node it has no kernel for: its schema's version, not the model's opset.
    const std::string op = fmt::format("{}{}({})", domain.empty() ? "" : domain + ".", node.op_type(),
                                       schema != nullptr ? schema->since_version() : version);
    const auto found = table().kernels.find({domain, node.op_type()});
    if (found == table().kernels.end()) return fmt::format("no CPU kernel for {}", op);
    std::vector<const Kernel*> candidates;
    for (const Kernel& k : found->second) {
      if (k.since <= version && version <= k.until) candidates.push_back(&k);
    }
    if (candidates.empty()) return fmt::format("no CPU kernel for {} at opset {}", op, version);
    if (schema == nullptr) continue;
    const std::map<std::string, std::vector<std::string>> bound = bound_arguments(node, *schema);
    const std::string refused = refusal(candidates, bound, types, false);
    // A node with float16 arguments and no kernel for them ORT computes in float between casts
    // (its InsertCastTransformer, at every level), which needs the float kernel.
    if (refused.empty() || refusal(candidates, bound, types, true).empty()) continue;
    return fmt::format("no CPU kernel for {} with {}", op, refused);
  }
  return "";
}

}  // namespace difftest::backends
