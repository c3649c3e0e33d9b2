#include "oracle/check/variant.h"

#include <fmt/format.h>

#include "compiler/ir/diagnostics.h"
#include "compiler/pipeline/pass_manager.h"

namespace difftest::oracle {

namespace {

constexpr const char* kSpecializedSuffix = "-specialized";

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

const pipeline::Pipeline& named(const std::string& name, const std::string& where) {
  try {
    return pipeline::find_pipeline(name);
  } catch (const UserError& e) {
    throw UserError(ErrorKind::Usage, fmt::format("{}: the recorded variant names {}", where, e.message()));
  }
}

}  // namespace

std::string VariantSpec::name() const {
  return against ? fmt::format("{}~{}", against->name, pipeline.name) : pipeline.name;
}

VariantSpec specialized_variant(const pipeline::Pipeline& base) {
  VariantSpec v;
  v.pipeline = base;
  v.pipeline.name = base.name + kSpecializedSuffix;
  v.pipeline.passes.insert(v.pipeline.passes.begin(), "SpecializeShapes");
  v.specialized = true;
  return v;
}

VariantSpec variant_of(const VariantVerdict& v, const std::string& where) {
  // The compile under test is the right-hand side of a cross-check's "A~B".
  const size_t tilde = v.pipeline.find('~');
  const std::string own = tilde == std::string::npos ? v.pipeline : v.pipeline.substr(tilde + 1);
  VariantSpec spec;
  if (!v.passes.empty()) {
    spec.pipeline = pipeline::Pipeline{own, v.passes, v.llvm_opt_level < 0 ? 0 : v.llvm_opt_level, v.fma_contraction};
  } else if (v.specialized || ends_with(own, kSpecializedSuffix)) {
    spec = specialized_variant(named(own.substr(0, own.size() - std::string(kSpecializedSuffix).size()), where));
  } else {
    spec.pipeline = named(own, where);
  }
  const std::string against = !v.against.empty()           ? v.against
                              : tilde == std::string::npos ? std::string()
                                                           : v.pipeline.substr(0, tilde);
  if (!against.empty()) spec.against = named(against, where);
  return spec;
}

VariantVerdict variant_verdict_from_json(const nlohmann::json& j, const std::string& where) {
  const auto bad = [&](const std::string& why) {
    return UserError(ErrorKind::Syntax, fmt::format("{}: a recorded variant {}", where, why));
  };
  if (!j.is_object()) throw bad("is not a JSON object");
  const auto text = [&](const char* key, bool required) -> std::string {
    if (!j.contains(key)) {
      if (required) throw bad(fmt::format("has no \"{}\"", key));
      return "";
    }
    if (!j[key].is_string()) throw bad(fmt::format("has a \"{}\" that is not a string", key));
    return j[key].get<std::string>();
  };
  VariantVerdict v;
  v.pipeline = text("pipeline", true);
  const std::string kind = text("kind", true);
  const auto k = verdict_kind_from_name(kind);
  if (!k) throw bad(fmt::format("has an unknown kind '{}'", kind));
  v.kind = *k;
  v.stage = text("stage", false);
  v.message = text("message", false);
  v.output = text("output", false);
  v.output_op = text("output_op", false);
  v.against = text("against", false);
  try {
    if (j.contains("passes")) v.passes = j["passes"].get<std::vector<std::string>>();
    v.llvm_opt_level = j.value("llvm_opt_level", -1);
    v.fma_contraction = j.value("fma_contraction", false);
    v.specialized = j.value("specialized", false);
    if (j.contains("binding")) v.binding = j["binding"].get<sym::Env>();
  } catch (const nlohmann::json::exception& e) {
    throw bad(fmt::format("has a field of the wrong kind: {}", e.what()));
  }
  for (const auto& pass : v.passes) {
    try {
      pipeline::find_pass(pass);
    } catch (const UserError& e) {
      throw bad(e.message());
    }
  }
  return v;
}

}  // namespace difftest::oracle
