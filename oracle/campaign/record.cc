#include "oracle/campaign/record.h"

#include <fmt/format.h>

#include <cmath>

#include "compiler/support/diagnostics.h"
#include "oracle/io/json_file.h"

namespace difftest::oracle {

std::string SeedRecord::verdict_name() const { return harness_error ? kHarnessError : verdict_kind_name(kind); }

nlohmann::json SeedRecord::to_json() const {
  nlohmann::json j = {{"seed", seed}, {"verdict", verdict_name()}};
  if (hash) j["hash"] = fmt::format("{:016x}", *hash);
  if (times) j["times"] = times->to_json();
  if (!exercised.empty()) j["exercised"] = exercised;
  if (!harness_error) {
    j["worst_ratio"] = worst_ratio;
    j["worst_excess"] = worst_excess;
  }
  if (elements > 0) {
    j["elements"] = elements;
    j["elements_checked"] = elements_checked;
  }
  if (refuted_timeouts > 0) j["refuted_timeouts"] = refuted_timeouts;
  if (signature) j["signature"] = signature->str();
  if (attributable) j["attributable"] = *attributable;
  if (detail) {
    j["detail"] = detail->to_json();
    j["detail"]["seed"] = seed;
  }
  if (!message.empty()) j["message"] = message;
  if (at) j["at"] = std::round(*at * 1000) / 1000;
  return j;
}

SeedRecord SeedRecord::from_json(const nlohmann::json& j, const std::string& where, const VariantLadder& compiler) {
  const auto bad = [&](const std::string& why) {
    return UserError(ErrorKind::Syntax, fmt::format("{}: not a journal record: {}", where, why));
  };
  if (!j.is_object() || !j.contains("seed") || !j["seed"].is_number_unsigned()) {
    throw bad("a JSON object with a \"seed\" number");
  }
  SeedRecord r;
  r.seed = j["seed"].get<uint64_t>();
  try {
    const std::string verdict = j.value("verdict", std::string(kHarnessError));
    if (verdict == kHarnessError) {
      r.harness_error = true;
    } else if (const auto kind = verdict_kind_from_name(verdict)) {
      r.kind = *kind;
    } else {
      throw bad(fmt::format("an unknown verdict '{}'", verdict));
    }
    if (j.contains("hash")) r.hash = std::stoull(j["hash"].get<std::string>(), nullptr, 16);
    if (j.contains("times")) r.times = StageTimes::from_json(j["times"]);
    if (j.contains("exercised")) r.exercised = j["exercised"].get<std::vector<std::string>>();
    r.worst_ratio = json_number(j, "worst_ratio");
    r.worst_excess = json_number(j, "worst_excess");
    r.elements = j.value("elements", int64_t{0});
    r.elements_checked = j.value("elements_checked", int64_t{0});
    r.refuted_timeouts = j.value("refuted_timeouts", 0);
    if (j.contains("signature")) {
      r.signature = Signature::parse(j["signature"].get<std::string>());
      if (!r.signature) throw bad(fmt::format("'{}' is not a failure signature", j["signature"].get<std::string>()));
    }
    if (j.contains("attributable")) r.attributable = j["attributable"].get<bool>();
    if (j.contains("detail")) r.detail = Verdict::from_json(j["detail"], where, compiler);
    r.message = j.value("message", std::string());
    if (j.contains("at")) r.at = j["at"].get<double>();
  } catch (const nlohmann::json::exception& e) {
    throw bad(fmt::format("a field of the wrong kind: {}", e.what()));
  } catch (const std::logic_error& e) {  // std::stoull
    throw bad(fmt::format("a malformed hash: {}", e.what()));
  }
  return r;
}

}  // namespace difftest::oracle
