#include "commands/request.h"

#include <algorithm>
#include <cstdlib>

#include "backends/backends.h"
#include "backends/builtin/builtin_compiler.h"
#include "compiler/support/diagnostics.h"
#include "compiler/pipeline/pass_manager.h"
#include "compiler/target/target.h"

namespace difftest::commands {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= s.size()) {
    const size_t comma = s.find(',', at);
    const std::string item = s.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

int exit_code_of(oracle::VerdictKind k) {
  if (oracle::is_failure(k)) return kFailure;
  if (k == oracle::VerdictKind::Unchecked || k == oracle::VerdictKind::Unsupported) return kNotChecked;
  return kOk;
}

oracle::CheckOptions check_options(const CheckRequest& r) {
  oracle::CheckOptions options;
  const backends::Backend& backend = backends::find_backend(r.backend, "--backend");
  // A compiler that is not installed checks nothing: every program would be `unsupported`, and
  // a gate or campaign of them would pass.
  if (const std::string missing = backend.missing(); !missing.empty()) {
    throw UserError(ErrorKind::Usage, fmt::format("--backend {}: it cannot run here: {}", backend.name, missing));
  }
  options.compiler = backend.compiler;
  options.levels = r.opt == "none" ? std::vector<std::string>{} : split_list(r.opt);
  if (!backend.builtin()) {
    if (!r.was_given("--opt")) options.levels = backend.default_levels();
    if (!r.passes.empty()) throw UserError(ErrorKind::Usage, "--passes: pass lists are the builtin compiler's");
    if (r.was_given("--orders") && r.orders > 0 && backend.default_orders == 0) {
      throw UserError(ErrorKind::Usage,
                      fmt::format("--orders: {} declares no random orders of its steps", backend.name));
    }
    options.cross_checks.clear();
    for (const auto& [a, b] : backend.cross_checks) {
      const auto& p = options.levels;
      if (std::find(p.begin(), p.end(), a) != p.end() && std::find(p.begin(), p.end(), b) != p.end()) {
        options.cross_checks.emplace_back(a, b);
      }
    }
  }
  for (const auto& name : options.levels) {
    if (backend.builtin()) {
      pipeline::find_pipeline(name);
    } else {
      backend.compiler->named(name, "--opt");
    }
  }
  if (!r.passes.empty()) {
    pipeline::Pipeline custom{"custom", pipeline::parse_pass_list(r.passes, "--passes"), r.passes_llvm};
    custom.fma_contraction = r.passes_fma;
    options.custom.push_back(backends::builtin_variant(oracle::VariantKind::Custom, custom));
  }
  options.random_orders = backend.builtin() || r.was_given("--orders") ? r.orders : backend.default_orders;
  if (options.levels.empty() && options.custom.empty() && options.random_orders == 0) {
    throw UserError(ErrorKind::Usage, "--opt: no pipeline given (and no --passes or --orders)");
  }
  if (!(r.timeout > 0)) throw UserError(ErrorKind::Usage, "--timeout: must be positive");
  if (r.random_bindings < 0 || r.random_bindings > 64) {
    throw UserError(ErrorKind::Usage, "--random-bindings: must be 0..64");
  }
  options.limits.cpu_seconds = r.timeout;
  options.tolerance = r.tolerance;
  options.tolerance.integer_overflow_wraps = backend.wraps_integer_overflow;
  options.tolerance.half_may_compute_in_f32 = backend.computes_half_in_f32;
  options.random_bindings = r.random_bindings;
  options.ensemble.members = r.members;
  if (!r.inject.empty() && !backend.builtin()) {
    throw UserError(ErrorKind::Usage, "--inject: test faults are planted in the builtin compiler only");
  }
  if (!r.target.empty() && !backend.builtin()) {
    throw UserError(ErrorKind::Usage, "--target: targets are the builtin compiler's");
  }
  // A DIFFTEST_TARGET the host cannot run is a usage error here, not one per variant.
  const target::Target& target = r.target.empty() ? target::default_target() : target::runnable_target(r.target);
  if (backend.builtin()) {
    options.compiler = &backends::builtin_compiler(backends::BuiltinOptions{&target, r.inject});
  }
  return options;
}

GeneratorOptions generator_options(const CheckRequest& r) {
  GeneratorOptions g;
  if (!r.weights.empty()) g.weights = parse_op_weights(r.weights, "--weights");
  const backends::Backend& backend = backends::find_backend(r.backend, "--backend");
  if (r.motifs > 100) throw UserError(ErrorKind::Usage, "--motifs: a percent, 0..100");
  g.motif_percent = r.motifs >= 0 ? static_cast<uint32_t>(r.motifs) : backend.motif_percent;
  if (r.float_dtypes.empty()) g.op_float_dtypes = backend.op_float_dtypes;  // --float-dtypes says all
  g.dtypes = backend.dtypes;
  g.can_take = backend.can_take;
  const std::string dtypes = r.float_dtypes.empty() ? backend.float_dtypes : r.float_dtypes;
  if (!dtypes.empty()) {
    g.float_dtypes.clear();
    for (const auto& name : split_list(dtypes)) {
      const std::optional<DType> t = parse_dtype(name);
      if (!t || !is_float(*t)) {
        throw UserError(ErrorKind::Usage,
                        fmt::format("--float-dtypes: '{}' is not a float dtype (f64, f32, f16, bf16)", name));
      }
      g.float_dtypes.push_back(*t);
    }
    if (g.float_dtypes.empty()) throw UserError(ErrorKind::Usage, "--float-dtypes: no dtype given");
  }
  return g;
}

oracle::CampaignOptions campaign_options(const CheckRequest& check, const SeedRequest& seeds,
                                         const std::string& time_flag) {
  oracle::CampaignOptions o;
  o.check = check_options(check);
  o.faults = o.check.under_test().enabled_faults();
  o.generator = generator_options(check);
  if (!check.probe.empty()) {
    o.probe = oracle::parse_probe_selection(check.probe, "--probe");
    // Generated programs name their values %0, %1, ... whatever they compute: a name would
    // probe unrelated values from program to program, and be missing from most.
    if (!o.probe.all) throw UserError(ErrorKind::Usage, "--probe: a campaign probes all values or none (--probe all)");
  }
  if (seeds.seeds.empty()) {
    o.unbounded = true;
  } else {
    std::tie(o.first_seed, o.last_seed) = oracle::parse_seed_range(seeds.seeds, "--seeds");
  }
  if (seeds.time < 0) throw UserError(ErrorKind::Usage, time_flag + ": must not be negative");
  o.time_limit = seeds.time;
  o.jobs = seeds.jobs;
  if (seeds.shard.empty()) {
    const oracle::ScheduledShard scheduled =
        oracle::shard_from_environment([](const char* name) { return std::getenv(name); });
    o.shard = scheduled.shard;
    o.shard_from = scheduled.from;
  } else {
    o.shard = oracle::parse_shard(seeds.shard, "--shard");
  }
  return o;
}

}  // namespace difftest::commands
