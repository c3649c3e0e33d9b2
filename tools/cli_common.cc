#include "tools/cli_common.h"

#include <charconv>
#include <cmath>

#include "compiler/faults/faults.h"
#include "compiler/ir/diagnostics.h"
#include "compiler/pipeline/pass_manager.h"

namespace difftest::cli {

CLI::Validator unsigned_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        uint64_t v = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, v);
        if (text.empty() || ptr != end) return fmt::format("'{}' is not a whole number >= 0", text);
        if (ec == std::errc::result_out_of_range) return fmt::format("'{}' is larger than 2^64-1", text);
        return "";
      },
      "UINT");
}

namespace {

CLI::Validator finite_at_least(bool zero_allowed) {
  return CLI::Validator(
      [zero_allowed](std::string& text) -> std::string {
        double v = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, v);
        if (text.empty() || ptr != end || ec != std::errc() || !std::isfinite(v)) {
          return fmt::format("'{}' is not a finite number", text);
        }
        if (v < 0 || (!zero_allowed && v == 0))
          return fmt::format("'{}' must be {}", text, zero_allowed ? ">= 0" : "> 0");
        return "";
      },
      zero_allowed ? "SECONDS" : "POSITIVE");
}

}  // namespace

CLI::Validator seconds() { return finite_at_least(true); }
CLI::Validator positive_finite() { return finite_at_least(false); }

void add_check_flags(CLI::App* app, CheckFlags& f, bool with_save) {
  f.app = app;
  app->add_option("--opt", f.opt, "comma-separated pipelines (default O0,O1,O2,O3; none: only --passes/--orders)");
  app->add_option("--passes", f.passes, "also check this pass list a,b,c (see --list-passes)");
  app->add_option("--passes-llvm", f.passes_llvm, "LLVM level 0..3 for --passes (default 0)")->check(CLI::Range(0, 3));
  app->add_flag("--passes-fma", f.passes_fma, "with --passes: let LLVM contract a*b+c into FMAs");
  app->add_option("--orders", f.orders, "random valid pass orders to check besides the pipelines (default 2)")
      ->check(CLI::Range(0, 64));
  app->add_option("--timeout", f.timeout,
                  "CPU seconds for each pipeline's compile and for each run (default 10; a timeout counts only if a "
                  "rerun with 4x the budget times out too)")
      ->check(positive_finite());
  app->add_option("--inject", f.inject, "turn on a test fault (see list-faults); repeatable");
  app->add_option("--random-bindings", f.random_bindings, "random dim bindings on top of the standard ones (default 2)")
      ->check(CLI::Range(0, 64));
  app->add_option("--members", f.members,
                  "size of the statistical tier's ensemble (default 8; 0: the sound bounds only, no outliers)")
      ->check(CLI::Range(0, 64));
  if (with_save) {
    app->add_flag("--json", f.json, "print the verdict as JSON");
    app->add_option("--save", f.save_dir, "write program.ir, the inputs (.npy) and verdict.json to DIR");
  }
}

difftest::GeneratorOptions generator_options(const std::string& weights) {
  difftest::GeneratorOptions g;
  if (!weights.empty()) g.weights = difftest::parse_op_weights(weights, "--weights");
  return g;
}

oracle::CampaignOptions campaign_options(const CheckFlags& check, const SeedFlags& seeds, const std::string& time_flag) {
  oracle::CampaignOptions o;
  o.check = check_options(check);
  o.faults = faults::enabled_faults();
  o.generator = generator_options(check.weights);
  if (seeds.seeds.empty()) {
    o.unbounded = true;
  } else {
    std::tie(o.first_seed, o.last_seed) = oracle::parse_seed_range(seeds.seeds, "--seeds");
  }
  if (seeds.time < 0) throw UserError(ErrorKind::Usage, time_flag + ": must not be negative");
  o.time_limit = seeds.time;
  o.jobs = seeds.jobs;
  o.shard = oracle::parse_shard(seeds.shard, "--shard");
  return o;
}

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

difftest::oracle::CheckOptions check_options(const CheckFlags& f) {
  difftest::oracle::CheckOptions options;
  options.pipelines = f.opt == "none" ? std::vector<std::string>{} : split_list(f.opt);
  for (const auto& name : options.pipelines) difftest::pipeline::find_pipeline(name);
  if (!f.passes.empty()) {
    difftest::pipeline::Pipeline custom{"custom", difftest::pipeline::parse_pass_list(f.passes, "--passes"),
                                        f.passes_llvm};
    custom.fma_contraction = f.passes_fma;
    options.custom.push_back(std::move(custom));
  }
  options.random_orders = f.orders;
  if (options.pipelines.empty() && options.custom.empty() && options.random_orders == 0) {
    throw difftest::UserError(difftest::ErrorKind::Usage, "--opt: no pipeline given (and no --passes or --orders)");
  }
  if (!(f.timeout > 0)) throw difftest::UserError(difftest::ErrorKind::Usage, "--timeout: must be positive");
  if (f.random_bindings < 0 || f.random_bindings > 64) {
    throw difftest::UserError(difftest::ErrorKind::Usage, "--random-bindings: must be 0..64");
  }
  options.limits.cpu_seconds = f.timeout;
  options.tolerance = f.tolerance;
  options.random_bindings = f.random_bindings;
  options.ensemble.members = f.members;
  for (const auto& name : f.inject) difftest::faults::enable(name);
  return options;
}

}  // namespace difftest::cli
