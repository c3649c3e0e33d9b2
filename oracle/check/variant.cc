#include "oracle/check/variant.h"

#include <fmt/format.h>

#include "compiler/ir/diagnostics.h"
#include "compiler/pipeline/pass_manager.h"

namespace difftest::oracle {

namespace {

constexpr const char* kSpecializedSuffix = "-specialized";
constexpr const char* kOrderPrefix = "order";
constexpr const char* kReferenceName = "reference";

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

Variant named_variant(const std::string& name, const std::string& where) {
  try {
    return Variant{VariantKind::Named, pipeline::find_pipeline(name)};
  } catch (const UserError& e) {
    throw UserError(ErrorKind::Usage, fmt::format("{}: the recorded variant names {}", where, e.message()));
  }
}

Variant specialized_variant(const pipeline::Pipeline& base) {
  Variant v{VariantKind::Specialized, base};
  v.pipeline.name = base.name + kSpecializedSuffix;
  v.pipeline.passes.insert(v.pipeline.passes.begin(), "SpecializeShapes");
  return v;
}

Variant custom_variant(pipeline::Pipeline pipe) { return Variant{VariantKind::Custom, std::move(pipe)}; }

Variant reference_variant() { return Variant{VariantKind::Reference, pipeline::Pipeline{kReferenceName, {}, 0}}; }

Variant variant_of_pipeline(const pipeline::Pipeline& pipe) {
  for (const auto& named : pipeline::pipelines()) {
    if (named.name == pipe.name && named.passes == pipe.passes && named.llvm_opt_level == pipe.llvm_opt_level &&
        named.fma_contraction == pipe.fma_contraction) {
      return Variant{VariantKind::Named, pipe};
    }
  }
  const bool order = pipe.name.rfind(kOrderPrefix, 0) == 0;
  return Variant{order ? VariantKind::RandomOrder : VariantKind::Custom, pipe};
}

std::string VariantId::name() const {
  return against ? fmt::format("{}~{}", against->name(), tested.name()) : tested.name();
}

std::string VariantId::signature_place() const { return tested.records_passes() ? "custom" : name(); }

void VariantId::write_json(nlohmann::json& j) const {
  j["pipeline"] = name();
  if (tested.records_passes()) {
    j["passes"] = tested.pipeline.passes;
    j["llvm_opt_level"] = tested.pipeline.llvm_opt_level;
    j["fma_contraction"] = tested.pipeline.fma_contraction;
  }
  if (specialized()) j["specialized"] = true;
  if (against) j["against"] = against->name();
}

VariantId VariantId::from_json(const nlohmann::json& j, const std::string& where) {
  const auto bad = [&](const std::string& why) {
    return UserError(ErrorKind::Syntax, fmt::format("{}: a recorded variant {}", where, why));
  };
  if (!j.is_object()) throw bad("is not a JSON object");
  if (!j.contains("pipeline")) throw bad("has no \"pipeline\"");
  if (!j["pipeline"].is_string()) throw bad("has a \"pipeline\" that is not a string");
  const std::string name = j["pipeline"].get<std::string>();
  std::string against_name;
  std::vector<std::string> passes;
  int llvm_opt_level = 0;
  bool fma = false, specialized = false;
  try {
    if (j.contains("against")) against_name = j["against"].get<std::string>();
    if (j.contains("passes")) passes = j["passes"].get<std::vector<std::string>>();
    llvm_opt_level = std::max(0, j.value("llvm_opt_level", 0));
    fma = j.value("fma_contraction", false);
    specialized = j.value("specialized", false);
  } catch (const nlohmann::json::exception& e) {
    throw bad(fmt::format("has a field of the wrong kind: {}", e.what()));
  }
  for (const auto& pass : passes) {
    try {
      pipeline::find_pass(pass);
    } catch (const UserError& e) {
      throw bad(e.message());
    }
  }
  // The compile under test is the right-hand side of a cross-check's "A~B".
  const size_t tilde = name.find('~');
  const std::string own = tilde == std::string::npos ? name : name.substr(tilde + 1);
  if (against_name.empty() && tilde != std::string::npos) against_name = name.substr(0, tilde);
  VariantId id;
  if (!passes.empty()) {
    id.tested = variant_of_pipeline(pipeline::Pipeline{own, passes, llvm_opt_level, fma});
    if (id.tested.kind == VariantKind::Named) id.tested.kind = VariantKind::Custom;
  } else if (own == kReferenceName) {
    id.tested = reference_variant();
  } else if (specialized || ends_with(own, kSpecializedSuffix)) {
    const std::string base = own.substr(0, own.size() - std::string(kSpecializedSuffix).size());
    id.tested = specialized_variant(named_variant(base, where).pipeline);
  } else {
    id.tested = named_variant(own, where);
  }
  if (!against_name.empty()) id.against = named_variant(against_name, where);
  return id;
}

}  // namespace difftest::oracle
