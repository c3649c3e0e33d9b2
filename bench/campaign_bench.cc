// Campaign throughput: programs per second through the whole oracle (generate, reference with
// bounds, compile, run, compare) on this machine, with the time per stage and the verdict
// counts. A measurement, never an assertion.
//   build/bench/campaign_bench [--seeds A..B] [--jobs J] [--opt O0[,O1...]] [--orders N] [--random-bindings R]
//                              [--target avx512|avx2|avx] [--kernel-sharing]
// The default check is `--opt O0,O1,O2,O3 --orders 2` (with the O0~O3 cross-check and the
// O3-specialized variant, both on here as in `difftest --seed`).
// The stage times are summed inside the workers (per program, over its bindings); with J
// workers the wall-clock rate is up to J times the single-worker rate. --kernel-sharing then
// prints how many of the kernels compiled a kernel cache could have reused
// (bench/kernel_sharing.h).
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "backends/builtin/builtin_compiler.h"
#include "compiler/support/diagnostics.h"
#include "compiler/target/target.h"
#include "oracle/campaign/campaign.h"
#include "bench/kernel_sharing.h"

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
  std::string target;
  app.add_option("--target", target, "avx512, avx2 or avx (default: the host's widest)");
  bool kernel_sharing = false;
  app.add_flag("--kernel-sharing", kernel_sharing, "also measure the hit rate a cache of compiled kernels would have");
  CLI11_PARSE(app, argc, argv);
  oracle::CampaignOptions o;
  try {
    difftest::backends::BuiltinOptions builtin;
    if (!target.empty()) builtin.target = &difftest::target::runnable_target(target, "--target");
    o.check.compiler = &difftest::backends::builtin_compiler(builtin);
  } catch (const difftest::UserError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 2;
  }
  std::tie(o.first_seed, o.last_seed) = oracle::parse_seed_range(seeds, "--seeds");
  o.jobs = jobs;
  o.check.levels = pipelines;
  o.check.random_orders = orders;
  o.check.random_bindings = random_bindings;
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("campaign_bench.{}", ::getpid());
  o.out_dir = dir.string();
  const oracle::CampaignSummary s = oracle::run_campaign(o);
  std::filesystem::remove_all(dir);
  const double n = static_cast<double>(s.checked);
  const double total = s.times.generate + s.times.reference + s.times.compile + s.times.run + s.times.compare;
  fmt::print("seeds {}  pipelines {}  random orders {}  jobs {}  random bindings {}  target {}\n", seeds,
             fmt::join(pipelines, ","), orders, jobs, random_bindings, o.check.under_test().target());
  fmt::print("{} programs in {:.1f} s wall: {:.2f} programs/s\n\n", s.checked, s.status.elapsed, n / s.status.elapsed);
  fmt::print("| stage | ms per program | share |\n|---|---:|---:|\n");
  for (const auto& [name, ms] : {std::pair{"generate", s.times.generate}, {"reference + bounds", s.times.reference},
                                 {"compile", s.times.compile}, {"run", s.times.run}, {"compare", s.times.compare}}) {
    fmt::print("| {} | {:.1f} | {:.1f}% |\n", name, ms / n, 100 * ms / total);
    if (std::string(name) != "compile") continue;
    for (const auto& [variant, variant_ms] : s.times.compile_by_variant) {
      fmt::print("| &nbsp;&nbsp;compile {} | {:.1f} | {:.1f}% |\n", variant, variant_ms / n, 100 * variant_ms / total);
    }
  }
  fmt::print("\nverdicts:");
  for (const auto& [kind, count] : s.status.counts) fmt::print(" {} {}", kind, count);
  fmt::print("\n{}", oracle::format_summary(s));
  if (!kernel_sharing) return 0;
  const oracle::KernelSharing k = oracle::measure_kernel_sharing(o.first_seed, o.last_seed, o.check, o.generator);
  const auto share = [](int64_t part, int64_t whole) { return whole > 0 ? 100.0 * part / whole : 0.0; };
  fmt::print(
      "\nkernel cache hit rate (identical emitted LLVM IR, level, FMA and target; {} programs, {} kernels, {} lines):\n"
      "  a cache per program:  {} kernels hit ({:.1f}%), {:.1f}% of the lines\n"
      "  a cache per campaign: {} kernels hit ({:.1f}%), {:.1f}% of the lines\n",
      k.programs, k.kernels, k.lines, k.hits_in_program, share(k.hits_in_program, k.kernels),
      share(k.hit_lines_in_program, k.lines), k.hits_in_campaign, share(k.hits_in_campaign, k.kernels),
      share(k.hit_lines_in_campaign, k.lines));
  return 0;
}
