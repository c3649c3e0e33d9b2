#include "backends/manifest/manifest.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "compiler/support/diagnostics.h"
#include "oracle/io/json_file.h"

namespace difftest::backends {

namespace fs = std::filesystem;

namespace {

// Reads one manifest's fields, each error naming the file and the field.
struct Reader {
  const std::string& path;

  [[noreturn]] void bad(const std::string& field, const std::string& what) const {
    throw UserError(ErrorKind::Syntax, fmt::format("{}: field \"{}\": {}", path, field, what));
  }
  std::string string(const nlohmann::json& j, const std::string& field) const {
    if (!j.is_string()) bad(field, "expected a string");
    const std::string s = j.get<std::string>();
    if (s.empty()) bad(field, "must not be empty");
    return s;
  }
  bool boolean(const nlohmann::json& j, const std::string& field) const {
    if (!j.is_boolean()) bad(field, "expected true or false");
    return j.get<bool>();
  }
  std::vector<std::string> strings(const nlohmann::json& j, const std::string& field, bool may_be_empty) const {
    if (!j.is_array()) bad(field, "expected a list of strings");
    std::vector<std::string> out;
    for (size_t i = 0; i < j.size(); ++i) out.push_back(string(j[i], fmt::format("{}[{}]", field, i)));
    if (out.empty() && !may_be_empty) bad(field, "must not be empty");
    return out;
  }
  const nlohmann::json& required(const nlohmann::json& j, const std::string& key, const std::string& field) const {
    const auto it = j.find(key);
    if (it == j.end()) bad(field, "is required");
    return *it;
  }
  void only(const nlohmann::json& j, const std::string& where, std::initializer_list<const char*> known) const {
    for (const auto& [key, value] : j.items()) {
      if (std::none_of(known.begin(), known.end(), [&](const char* k) { return key == k; })) {
        bad(where.empty() ? key : where + "." + key,
            fmt::format("not a manifest field (fields here: {})", fmt::join(known, ", ")));
      }
    }
  }
  void known_level(const Manifest& m, const std::string& name, const std::string& field) const {
    if (!m.level(name)) bad(field, fmt::format("names no level ('{}'; levels: {})", name, fmt::join(m.level_names(), ", ")));
  }
};

}  // namespace

const Level* Manifest::level(const std::string& name) const {
  for (const auto& l : levels) {
    if (l.name == name) return &l;
  }
  return nullptr;
}

std::vector<std::string> Manifest::level_names() const {
  std::vector<std::string> out;
  for (const auto& l : levels) out.push_back(l.name);
  return out;
}

std::string culprit_search_name(CulpritSearch c) {
  switch (c) {
    case CulpritSearch::DisableList:
      return "disable-list";
    case CulpritSearch::OptBisect:
      return "opt-bisect";
    case CulpritSearch::None:
      break;
  }
  return "none";
}

namespace {

RandomOrders read_random_orders(const Reader& r, const nlohmann::json& j) {
  if (!j.is_object()) r.bad("random_orders", "expected {\"count\", \"config\", \"phases\"}");
  r.only(j, "random_orders", {"count", "config", "phases"});
  RandomOrders o;
  const nlohmann::json& count = r.required(j, "count", "random_orders.count");
  if (!count.is_number_integer() || count.get<int64_t>() < 0 || count.get<int64_t>() > 64) {
    r.bad("random_orders.count", "expected a whole number 0..64");
  }
  o.count = count.get<int>();
  if (j.contains("config")) {
    if (!j["config"].is_object()) r.bad("random_orders.config", "expected an object (the worker's settings)");
    o.config = j["config"];
  }
  const nlohmann::json& phases = r.required(j, "phases", "random_orders.phases");
  if (!phases.is_array() || phases.empty()) {
    r.bad("random_orders.phases", "expected a non-empty list of {\"KIND\": [steps]}");
  }
  for (size_t i = 0; i < phases.size(); ++i) {
    const std::string where = fmt::format("random_orders.phases[{}]", i);
    if (!phases[i].is_object() || phases[i].size() != 1) {
      r.bad(where, "expected one of {\"any\": [...]}, {\"all\": [...]}, {\"maybe\": [...]}, {\"subset\": [...]}");
    }
    const auto first = phases[i].begin();
    const std::string kind = first.key();
    const std::optional<OrderPhase::Kind> k = parse_order_phase(kind);
    if (!k) r.bad(where, fmt::format("'{}' is not a phase kind (any, all, maybe, subset)", kind));
    o.phases.push_back({*k, r.strings(first.value(), where + "." + kind, false)});
  }
  return o;
}

}  // namespace

Manifest read_manifest(const std::string& path) {
  Manifest m;
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  m.path = (ec ? fs::path(path) : absolute).lexically_normal().string();
  m.dir = fs::path(m.path).parent_path().string();
  const nlohmann::json j = oracle::read_json_file(path);
  const Reader r{path};
  if (!j.is_object()) throw UserError(ErrorKind::Syntax, fmt::format("{}: a manifest is a JSON object", path));
  r.only(j, "", {"name", "description", "worker", "install_hint", "model_format", "levels", "baseline", "default_check",
                 "culprit_search", "reproducer", "float_dtypes", "dtypes", "dtypes_reason", "wraps_integer_overflow",
                 "computes_half_in_f32", "random_orders"});
  m.name = r.string(r.required(j, "name", "name"), "name");
  if (m.name == "builtin" || m.name == "ort" || m.name.find_first_of(" /|,") != std::string::npos) {
    r.bad("name", fmt::format("'{}' is a built-in backend's name or has a space, '/', '|' or ','", m.name));
  }
  if (j.contains("description")) m.description = r.string(j["description"], "description");
  m.worker = r.strings(r.required(j, "worker", "worker"), "worker", false);
  for (auto& arg : m.worker) {
    for (size_t at; (at = arg.find("{manifest_dir}")) != std::string::npos;) arg.replace(at, 14, m.dir);
  }
  if (j.contains("install_hint")) m.install_hint = r.string(j["install_hint"], "install_hint");
  const std::string format = r.string(r.required(j, "model_format", "model_format"), "model_format");
  const std::optional<ModelFormat> f = parse_model_format(format);
  if (!f) r.bad("model_format", fmt::format("'{}' is not a format the harness writes (onnx, ir, tvmscript)", format));
  m.model_format = *f;

  const nlohmann::json& levels = r.required(j, "levels", "levels");
  if (!levels.is_array() || levels.empty()) r.bad("levels", "expected a non-empty list of {\"name\", \"steps\"}");
  std::set<std::string> names;
  for (size_t i = 0; i < levels.size(); ++i) {
    const std::string where = fmt::format("levels[{}]", i);
    if (!levels[i].is_object()) r.bad(where, "expected {\"name\": ..., \"steps\": [...]}");
    r.only(levels[i], where, {"name", "description", "steps", "config", "precision", "needs"});
    Level l;
    l.name = r.string(r.required(levels[i], "name", where + ".name"), where + ".name");
    if (l.name.find_first_of(" ~|,") != std::string::npos || l.name.find("-specialized") != std::string::npos) {
      r.bad(where + ".name", fmt::format("'{}' has a space, '~', '|' or ',' or ends in -specialized", l.name));
    }
    if (!names.insert(l.name).second) r.bad(where + ".name", fmt::format("'{}' is named twice", l.name));
    if (levels[i].contains("description")) l.description = r.string(levels[i]["description"], where + ".description");
    if (levels[i].contains("steps")) l.steps = r.strings(levels[i]["steps"], where + ".steps", true);
    if (levels[i].contains("config")) {
      if (!levels[i]["config"].is_object()) r.bad(where + ".config", "expected an object (the worker's settings)");
      l.config = levels[i]["config"];
    }
    if (levels[i].contains("precision")) {
      const std::string t = r.string(levels[i]["precision"], where + ".precision");
      if (t != "bf16" && t != "f16") r.bad(where + ".precision", fmt::format("'{}' is not bf16 or f16", t));
      l.precision = parse_dtype(t);
    }
    if (levels[i].contains("needs")) l.needs = r.string(levels[i]["needs"], where + ".needs");
    m.levels.push_back(std::move(l));
  }
  if (j.contains("baseline")) {
    m.baseline = r.string(j["baseline"], "baseline");
    r.known_level(m, m.baseline, "baseline");
  }
  m.default_levels = m.level_names();
  if (j.contains("default_check")) {
    const nlohmann::json& d = j["default_check"];
    if (!d.is_object()) r.bad("default_check", "expected {\"levels\", \"cross_checks\", \"specialize\"}");
    r.only(d, "default_check", {"levels", "cross_checks", "specialize"});
    if (d.contains("levels")) m.default_levels = r.strings(d["levels"], "default_check.levels", false);
    for (size_t i = 0; i < m.default_levels.size(); ++i) {
      r.known_level(m, m.default_levels[i], fmt::format("default_check.levels[{}]", i));
    }
    if (d.contains("cross_checks")) {
      const nlohmann::json& pairs = d["cross_checks"];
      if (!pairs.is_array()) r.bad("default_check.cross_checks", "expected a list of [level, level] pairs");
      for (size_t i = 0; i < pairs.size(); ++i) {
        const std::string where = fmt::format("default_check.cross_checks[{}]", i);
        const auto pair = r.strings(pairs[i], where, false);
        if (pair.size() != 2 || pair[0] == pair[1]) r.bad(where, "expected two different levels");
        r.known_level(m, pair[0], where);
        r.known_level(m, pair[1], where);
        m.cross_checks.emplace_back(pair[0], pair[1]);
      }
    } else if (!m.baseline.empty()) {
      for (const auto& l : m.default_levels) {
        if (l != m.baseline) m.cross_checks.emplace_back(m.baseline, l);
      }
    }
    if (d.contains("specialize")) m.specialize = r.boolean(d["specialize"], "default_check.specialize");
  } else if (!m.baseline.empty()) {
    for (const auto& l : m.default_levels) {
      if (l != m.baseline) m.cross_checks.emplace_back(m.baseline, l);
    }
  }
  if (j.contains("culprit_search")) {
    const std::string c = r.string(j["culprit_search"], "culprit_search");
    if (c == "disable-list") {
      m.culprit_search = CulpritSearch::DisableList;
    } else if (c == "opt-bisect") {
      m.culprit_search = CulpritSearch::OptBisect;
    } else if (c != "none") {
      r.bad("culprit_search", fmt::format("'{}' is not one of disable-list, opt-bisect, none", c));
    }
  }
  if (j.contains("reproducer")) {
    const nlohmann::json& files = j["reproducer"];
    if (!files.is_object()) r.bad("reproducer", "expected {\"file written\": \"template beside the manifest\"}");
    for (const auto& [name, tmpl] : files.items()) {
      const std::string where = "reproducer." + name;
      if (name.empty() || name.find('/') != std::string::npos || name == "repro.ir" || name == "verdict.json") {
        r.bad(where, "a reproducer file is a plain name other than repro.ir and verdict.json");
      }
      const fs::path t = fs::path(m.dir) / r.string(tmpl, where);
      if (!fs::is_regular_file(t)) r.bad(where, fmt::format("no template file {}", t.string()));
      m.reproducer[name] = t.string();
    }
  }
  if (j.contains("float_dtypes")) m.float_dtypes = r.string(j["float_dtypes"], "float_dtypes");
  if (j.contains("dtypes")) {
    const auto names = r.strings(j["dtypes"], "dtypes", false);
    for (size_t i = 0; i < names.size(); ++i) {
      const std::optional<DType> t = parse_dtype(names[i]);
      if (!t) r.bad(fmt::format("dtypes[{}]", i), fmt::format("'{}' is not a dtype (docs/ir.md)", names[i]));
      m.dtypes.push_back(*t);
    }
    m.dtypes_reason = j.contains("dtypes_reason") ? r.string(j["dtypes_reason"], "dtypes_reason") : "";
  }
  if (j.contains("wraps_integer_overflow")) {
    m.wraps_integer_overflow = r.boolean(j["wraps_integer_overflow"], "wraps_integer_overflow");
  }
  if (j.contains("computes_half_in_f32")) {
    m.computes_half_in_f32 = r.boolean(j["computes_half_in_f32"], "computes_half_in_f32");
  }
  if (j.contains("random_orders")) {
    m.random_orders = read_random_orders(r, j["random_orders"]);
    for (const Level& l : m.levels) {
      if (l.name.rfind("order", 0) == 0 && l.name.size() > 5 && std::isdigit(static_cast<unsigned char>(l.name[5]))) {
        r.bad("random_orders", fmt::format("level '{}' would be taken for a random order's name", l.name));
      }
    }
  }
  return m;
}

}  // namespace difftest::backends
