// Detection benchmark: every fault of the catalog (or those named), campaigns with it on from
// several starting seeds, each stopped at its first failure or at the budget; time and programs
// to first detection, the verdict kind, the reduced size and whether bisection named the
// fault's pass; then the clean compiler over the same campaigns (false alarms). A measurement:
// it prints a markdown table (and writes JSON), it asserts nothing.
//   build/bench/detection_bench [--faults a,b | --set tuning|held-out|all] [--starts 0,100000,200000] [--budget 120]
//                               [--jobs 2] [--reduce-time 120] [--no-reduce] [--no-clean] [--probe-all]
//                               [--json FILE] [--keep DIR]
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "compiler/faults/faults.h"
#include "bench/detection.h"

int main(int argc, char** argv) {
  namespace oracle = difftest::oracle;
  oracle::DetectionOptions o;
  std::vector<std::string> names;
  std::string json_path, keep, set = "all";
  bool no_reduce = false, no_clean = false, probe_all = false;
  CLI::App app{"difftest detection benchmark"};
  app.add_option("--faults", names, "faults to measure (default: every fault of --set)")->delimiter(',');
  app.add_option("--set", set,
                 "which faults when --faults is not given: the tuning set, the held-out set (faults the generator was "
                 "never tuned on) or all")
      ->check(CLI::IsMember({"tuning", "held-out", "all"}));
  app.add_option("--starts", o.start_seeds, "starting seeds of the campaigns")->delimiter(',');
  app.add_option("--budget", o.budget_seconds, "seconds per campaign");
  app.add_option("--jobs", o.jobs, "campaign workers");
  app.add_option("--reduce-time", o.reduce_seconds, "seconds per reduction");
  app.add_flag("--no-reduce", no_reduce, "do not reduce the first failures");
  app.add_flag("--no-clean", no_clean, "skip the clean compiler's campaigns (its false alarms)");
  app.add_flag("--probe-all", probe_all,
               "check every program with all its values probed (`difftest fuzz --probe all`)");
  app.add_option("--json", json_path, "also write the results as JSON");
  app.add_option("--keep", keep, "keep the campaigns and reductions in DIR (default: a temporary directory, removed)");
  CLI11_PARSE(app, argc, argv);
  o.reduce = !no_reduce;
  o.probe.all = probe_all;
  if (names.empty()) {
    for (const auto& f : difftest::faults::all_faults()) {
      if (set == "all" || f.held_out == (set == "held-out")) names.push_back(f.name);
    }
  }
  const auto dir = keep.empty() ? std::filesystem::temp_directory_path() / fmt::format("detection_bench.{}", ::getpid())
                                : std::filesystem::path(keep);
  o.work_dir = dir.string();
  auto progress = [](const std::string& what) {
    return [what](const oracle::DetectionRun& r) {
      fmt::print(stderr, "{:<36} from {:<7} {} after {:.1f} s, {} programs{}{}\n", what, r.start_seed,
                 r.detected ? r.kind : "not detected", r.seconds, r.programs,
                 r.reduced ? fmt::format(", reduced {} -> {} ops, culprit {}", r.ops_before, r.ops_after, r.culprit) : "",
                 r.reduce_note.empty() ? "" : " (" + r.reduce_note + ")");
    };
  };
  std::vector<oracle::FaultDetection> results;
  for (const auto& name : names) results.push_back(oracle::detect_fault(name, o, progress(name)));
  const oracle::FaultDetection clean =
      no_clean ? oracle::FaultDetection{} : oracle::detect_fault("", o, progress("(clean compiler)"));
  if (keep.empty()) std::filesystem::remove_all(dir);
  fmt::print("{}", oracle::detection_markdown(results, clean, o));
  if (!json_path.empty()) {
    std::ofstream(json_path) << oracle::detection_json(results, clean, o).dump(2) << "\n";
  }
  return 0;
}
