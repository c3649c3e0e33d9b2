#include "oracle/campaign/reproducer.h"

#include <fstream>

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/printer.h"
#include "compiler/tensor/npy.h"
#include "reference/inputs.h"
#include "reference/summary.h"

namespace difftest::oracle {

namespace fs = std::filesystem;

namespace {

void write_reproducer(const std::string& dir, const Program& p, const sym::Env& binding, const nlohmann::json& verdict,
                      uint64_t input_seed) {
  fs::create_directories(dir);
  const sym::Env env = reference::resolve_binding(p, binding, nullptr);
  reference::dump_tensors(dir, reference::generate_inputs(p, env, input_seed), {},
                          fmt::format("inputs of {} under {} (input seed {})", p.name(), reference::binding_str(env),
                                      input_seed));
  write_file_atomic((fs::path(dir) / "program.ir").string(), print(p));
  write_file_atomic((fs::path(dir) / "verdict.json").string(), verdict.dump(2) + "\n");
}

}  // namespace

void save_reproducer(const std::string& dir, const Program& p, const Verdict& v, uint64_t input_seed) {
  const VariantVerdict* failure = v.first_failure();
  write_reproducer(dir, p, failure ? failure->binding : sym::Env{}, v.to_json(), input_seed);
}

void save_reproducer_atomically(const std::string& dir, const Program& p, const sym::Env& binding,
                                const nlohmann::json& verdict, uint64_t input_seed) {
  const fs::path target(dir);
  const fs::path tmp = target.parent_path() / fmt::format(".{}.tmp{}", target.filename().string(), ::getpid());
  fs::remove_all(tmp);
  write_reproducer(tmp.string(), p, binding, verdict, input_seed);
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove_all(tmp);
    throw UserError(ErrorKind::Io, fmt::format("cannot rename '{}' to '{}': {}", tmp.string(), dir, ec.message()));
  }
}

RecordedSettings recorded_settings(const std::string& program_file) {
  const fs::path verdict = fs::path(program_file).parent_path() / "verdict.json";
  std::error_code ec;
  if (!fs::exists(verdict, ec)) return {};
  std::ifstream in(verdict);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    throw UserError(ErrorKind::Io, fmt::format("{}: not a JSON verdict", verdict.string()));
  }
  RecordedSettings out;
  if (j.contains("target")) {
    if (!j["target"].is_string())
      throw UserError(ErrorKind::Io, fmt::format("{}: \"target\" is not a string", verdict.string()));
    out.target = j["target"].get<std::string>();
  }
  if (!j.contains("faults")) return out;
  if (!j["faults"].is_array()) throw UserError(ErrorKind::Io, fmt::format("{}: \"faults\" is not a list", verdict.string()));
  for (const auto& f : j["faults"]) {
    if (!f.is_string()) throw UserError(ErrorKind::Io, fmt::format("{}: a fault name is not a string", verdict.string()));
    out.faults.push_back(f.get<std::string>());
  }
  return out;
}

}  // namespace difftest::oracle
