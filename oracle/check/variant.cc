#include "oracle/check/variant.h"

#include <fmt/format.h>

#include "compiler/support/diagnostics.h"
#include "oracle/check/variant_ladder.h"

namespace difftest::oracle {

namespace {

constexpr const char* kSpecializedSuffix = "-specialized";
constexpr const char* kReferenceName = "reference";

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

Variant Variant::limited(int applications) const {
  Variant v = *this;
  v.limit = applications;
  return v;
}

Variant Variant::with_steps(std::vector<std::string> list) const {
  Variant v = *this;
  v.steps = std::move(list);
  return v;
}

Variant reference_variant() { return Variant{VariantKind::Reference, kReferenceName, {}, nlohmann::json::object()}; }

std::string VariantId::name() const {
  return against ? fmt::format("{}~{}", against->name(), tested.name()) : tested.name();
}

std::string VariantId::signature_place() const { return tested.records_steps() ? "custom" : name(); }

void VariantId::write_json(nlohmann::json& j) const {
  j["pipeline"] = name();
  if (tested.records_steps()) {
    j["passes"] = tested.steps;
    for (const auto& [key, value] : tested.settings.items()) j[key] = value;
  }
  if (specialized()) j["specialized"] = true;
  if (against) j["against"] = against->name();
}

VariantId VariantId::from_json(const nlohmann::json& j, const std::string& where, const VariantLadder& compiler) {
  const auto bad = [&](const std::string& why) {
    return UserError(ErrorKind::Syntax, fmt::format("{}: a recorded variant {}", where, why));
  };
  if (!j.is_object()) throw bad("is not a JSON object");
  if (!j.contains("pipeline")) throw bad("has no \"pipeline\"");
  if (!j["pipeline"].is_string()) throw bad("has a \"pipeline\" that is not a string");
  const std::string name = j["pipeline"].get<std::string>();
  std::string against_name;
  std::vector<std::string> steps;
  bool specialized = false;
  try {
    if (j.contains("against")) against_name = j["against"].get<std::string>();
    if (j.contains("passes")) steps = j["passes"].get<std::vector<std::string>>();
    specialized = j.value("specialized", false);
  } catch (const nlohmann::json::exception& e) {
    throw bad(fmt::format("has a field of the wrong kind: {}", e.what()));
  }
  // The compile under test is the right-hand side of a cross-check's "A~B".
  const size_t tilde = name.find('~');
  const std::string own = tilde == std::string::npos ? name : name.substr(tilde + 1);
  if (against_name.empty() && tilde != std::string::npos) against_name = name.substr(0, tilde);
  VariantId id;
  if (!steps.empty()) {
    id.tested = compiler.recorded(own, std::move(steps), j, where);
  } else if (own == kReferenceName) {
    id.tested = reference_variant();
  } else if (specialized || ends_with(own, kSpecializedSuffix)) {
    const std::string base = own.substr(0, own.size() - std::string(kSpecializedSuffix).size());
    const std::optional<Variant> spec = compiler.specialized(compiler.named(base, where));
    if (!spec) throw UserError(ErrorKind::Usage, fmt::format("{}: {} has no specialized compile", where, base));
    id.tested = *spec;
  } else {
    id.tested = compiler.named(own, where);
  }
  if (!against_name.empty()) id.against = compiler.named(against_name, where);
  return id;
}

}  // namespace difftest::oracle
