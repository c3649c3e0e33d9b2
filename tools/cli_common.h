// What the difftest subcommands share: exit codes and the flags that choose pipelines, time
// limits and faults. Only tools/ includes this.
#pragma once

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

#include "fuzz/generator.h"
#include "oracle/campaign/campaign.h"
#include "oracle/check/check.h"

namespace difftest::cli {

enum Exit { kOk = 0, kFailure = 1, kBadInput = 2, kInternal = 3 };

// Flags shared by --seed, run and fuzz: which pipelines, how long, which faults.
struct CheckFlags {
  std::string opt = fmt::format("{}", fmt::join(oracle::default_check_options().pipelines, ","));
  std::string passes, save_dir, weights;
  int orders = oracle::default_check_options().random_orders, passes_llvm = 0;
  std::vector<std::string> inject;
  double timeout = 10;
  int random_bindings = 2;
  int members = difftest::tolerance::EnsembleOptions{}.members;
  bool json = false, passes_fma = false;
  difftest::tolerance::Options tolerance = difftest::oracle::CheckOptions{}.tolerance;
  CLI::App* app = nullptr;  // where the flags were added: to ask which were given

  bool given(const std::string& flag) const { return app && app->count(flag) > 0; }
  // --opt, --passes or --orders on the command line
  bool pipelines_given() const { return given("--opt") || given("--passes") || given("--orders"); }
};

void add_check_flags(CLI::App* app, CheckFlags& f, bool with_save);

// Validators for what CLI11 would otherwise wrap or take silently ("-1" for an unsigned
// number, "1e999" or "nan" for seconds).
CLI::Validator unsigned_number();  // decimal digits only, at most 2^64-1
CLI::Validator seconds();          // a finite number >= 0
CLI::Validator positive_finite();  // a finite number > 0
std::vector<std::string> split_list(const std::string& s);
// Validates the flags (usage errors before any work) and turns the faults on.
oracle::CheckOptions check_options(const CheckFlags& f);
// The generator's options with --weights applied (UserError naming the flag when malformed).
GeneratorOptions generator_options(const std::string& weights);

// What fuzz and gate share: the checks and faults (turned on), the generator, `--seeds A..B`
// (empty: unbounded, from 0), `--time`/`--budget` SECONDS, --jobs and --shard.
struct SeedFlags {
  std::string seeds, shard = "0/1";
  double time = 0;
  int jobs = 1;
};
oracle::CampaignOptions campaign_options(const CheckFlags& check, const SeedFlags& seeds, const std::string& time_flag);

// difftest reduce / difftest bisect (tools/reduce_commands.cc).
struct ReduceFlags {
  std::string file, out_dir, bind;
  CheckFlags check;
  int jobs = 1;
  double time = 0;
};
void add_reduce_flags(CLI::App* app, ReduceFlags& f, bool reduce);
int run_reduce(ReduceFlags f);
int run_bisect(ReduceFlags f);

// difftest gate (tools/gate_command.cc).
struct GateFlags {
  CheckFlags check;
  SeedFlags seeds;  // its time is --budget
  std::string corpus = "corpus", baseline, junit, json, out = "difftest-gate";
  int batch = 50;
  bool update_baseline = false, fail_fast = false;
  std::vector<std::string> fail_on;  // "outlier"
};
void add_gate_flags(CLI::App* app, GateFlags& f);
int run_gate(const GateFlags& f);

}  // namespace difftest::cli
