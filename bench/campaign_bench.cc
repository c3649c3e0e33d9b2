// Campaign throughput: programs per second through the whole oracle (generate, reference with
// bounds, compile, run, compare) on this machine, with the time per stage and the verdict
// counts. A measurement, never an assertion.
//   build/bench/campaign_bench [--seeds A..B] [--jobs J] [--opt O0[,O1...]] [--orders N] [--random-bindings R]
// The stage times are summed inside the workers (per program, over its bindings); with J
// workers the wall-clock rate is up to J times the single-worker rate.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "oracle/campaign/campaign.h"

int main(int argc, char** argv) {
  namespace oracle = difftest::oracle;
  std::string seeds = "0..199";
  std::vector<std::string> pipelines = {"O0"};
  int jobs = 2, random_bindings = 2, orders = 0;
  CLI::App app{"difftest campaign throughput"};
  app.add_option("--seeds", seeds, "the seeds A..B");
  app.add_option("--jobs", jobs, "campaign workers");
  app.add_option("--opt", pipelines, "comma-separated pipelines")->delimiter(',');
  app.add_option("--orders", orders, "random valid pass orders besides the pipelines");
  app.add_option("--random-bindings", random_bindings, "random dim bindings on top of the standard ones");
  CLI11_PARSE(app, argc, argv);
  oracle::CampaignOptions o;
  std::tie(o.first_seed, o.last_seed) = oracle::parse_seed_range(seeds, "--seeds");
  o.jobs = jobs;
  o.check.pipelines = pipelines;
  o.check.random_orders = orders;
  o.check.random_bindings = random_bindings;
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("campaign_bench.{}", ::getpid());
  o.out_dir = dir.string();
  const oracle::CampaignSummary s = oracle::run_campaign(o);
  std::filesystem::remove_all(dir);
  const double n = static_cast<double>(s.checked);
  const double total = s.times.generate + s.times.reference + s.times.compile + s.times.run + s.times.compare;
  fmt::print("seeds {}  pipelines {}  random orders {}  jobs {}  random bindings {}\n", seeds, fmt::join(pipelines, ","),
             orders, jobs, random_bindings);
  fmt::print("{} programs in {:.1f} s wall: {:.2f} programs/s\n\n", s.checked, s.status.elapsed, n / s.status.elapsed);
  fmt::print("| stage | ms per program | share |\n|---|---:|---:|\n");
  for (const auto& [name, ms] : {std::pair{"generate", s.times.generate}, {"reference + bounds", s.times.reference},
                                 {"compile", s.times.compile}, {"run", s.times.run}, {"compare", s.times.compare}}) {
    fmt::print("| {} | {:.1f} | {:.1f}% |\n", name, ms / n, 100 * ms / total);
  }
  fmt::print("\nverdicts:");
  for (const auto& [kind, count] : s.status.counts) fmt::print(" {} {}", kind, count);
  fmt::print("\n{}", oracle::format_summary(s));
  return 0;
}
