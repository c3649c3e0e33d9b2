// What a difftest subcommand was asked, in the libraries' terms. tools/ binds its flags to these
// fields; the functions here validate them (a UserError names the flag) and build the oracle's
// options from them.
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <functional>
#include <string>
#include <vector>

#include "fuzz/generator.h"
#include "oracle/campaign/campaign.h"
#include "oracle/check/check.h"

namespace difftest::commands {

// The exit codes of every command: 0 everything agreed / input valid; 1 a failure was found;
// 2 bad input or usage (a UserError); 3 internal error in difftest; 4 nothing failed but the
// program was not wholly checked (an output `unchecked`, or `unsupported` by the compiler under
// test): never a pass.
enum Exit { kOk = 0, kFailure = 1, kBadInput = 2, kInternal = 3, kNotChecked = 4 };
// The exit code of one program's verdict (--seed, run, compare).
int exit_code_of(oracle::VerdictKind k);

// Where a command's lines go (stdout for the command line).
using Print = std::function<void(const std::string&)>;

// Shared by --seed, run, fuzz, gate, reduce and bisect: which pipelines, how long, which faults.
struct CheckRequest {
  std::string opt = fmt::format("{}", fmt::join(oracle::default_check_options().levels, ","));
  std::string backend = "builtin";  // backends/backends.h
  std::string passes, save_dir, weights, float_dtypes;
  std::string target;  // --target: the builtin compiler's machine ("": DIFFTEST_TARGET, else the host's)
  std::string probe;   // --probe: intermediate values also compared (oracle/check/probes.h); --seed, run, fuzz
  int orders = oracle::default_check_options().random_orders, passes_llvm = 0;
  bool passes_fma = false, json = false;
  std::vector<std::string> inject;
  double timeout = 10;
  int random_bindings = 2;
  int motifs = -1;  // --motifs: percent of generator picks that emit a motif (-1: the backend's)
  int members = tolerance::EnsembleOptions{}.members;
  tolerance::Options tolerance = oracle::CheckOptions{}.tolerance;
  // Whether a flag ("--orders") was on the command line (unset: none was).
  std::function<bool(const std::string&)> given;

  bool was_given(const std::string& flag) const { return given && given(flag); }
  // --opt, --passes or --orders on the command line
  bool pipelines_given() const { return was_given("--opt") || was_given("--passes") || was_given("--orders"); }
};

// Validates the request (usage errors before any work) and turns its faults on.
oracle::CheckOptions check_options(const CheckRequest& r);
// The generator's options with --weights applied (UserError naming the flag when malformed).
// --weights, and --float-dtypes and --motifs (else the backend's own, else the generator's).
GeneratorOptions generator_options(const CheckRequest& r);
std::vector<std::string> split_list(const std::string& s);

// Shared by fuzz and gate: `--seeds A..B` (empty: unbounded, from 0), `--time`/`--budget`
// SECONDS, --jobs and --shard (empty: the batch scheduler's, oracle::shard_from_environment).
struct SeedRequest {
  std::string seeds, shard;
  double time = 0;
  int jobs = 1;
};
oracle::CampaignOptions campaign_options(const CheckRequest& check, const SeedRequest& seeds,
                                         const std::string& time_flag);

}  // namespace difftest::commands
