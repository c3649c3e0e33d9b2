#include "backends/kit/reproducer_data.h"

#include <fmt/format.h>
#include <sys/utsname.h>

#include <fstream>

#include "exporters/expected_results.h"
#include "oracle/check/expected_results.h"

namespace difftest::backends {

nlohmann::json reproducer_data(const WorkerModel& model, const Program& p, const oracle::Case& c,
                               const oracle::Case& judging, oracle::VerdictKind failing_kind,
                               const oracle::CheckOptions& options) {
  nlohmann::json data = {{"model_format", model_format_name(model.format)},
                         {"model_file", model.file_name()},
                         {"model_hex", exporters::hex_of(model.bytes)},
                         {"inputs", nlohmann::json::array()}};
  for (const auto& [name, t] : feeds_of(model, p, c)) {
    data["inputs"].push_back({{"name", name},
                              {"dtype", worker_type_name(t.dtype())},
                              {"shape", t.shape()},
                              {"hex", exporters::hex_of(t.data(), t.nbytes())}});
  }
  const exporters::ExpectedResults expected = oracle::expected_results(p, judging, failing_kind, options);
  std::vector<std::string> output_names;
  for (const Value& v : p.outputs()) output_names.push_back("%" + v.name());
  data["outputs"] = exporters::expected_outputs_json(expected, output_names);
  data["allowance"] = expected.allowance;
  return data;
}

std::string os_description() {
  std::ifstream f("/etc/os-release");
  for (std::string line; std::getline(f, line);) {
    if (line.rfind("PRETTY_NAME=", 0) == 0) {
      std::string v = line.substr(12);
      if (v.size() >= 2 && v.front() == '"') v = v.substr(1, v.size() - 2);
      return v;
    }
  }
  utsname u{};
  return ::uname(&u) == 0 ? fmt::format("{} {}", u.sysname, u.release) : "Linux";
}

}  // namespace difftest::backends
