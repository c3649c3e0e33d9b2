// The flags the difftest subcommands share, bound to the requests of commands/, and validators
// for what CLI11 would otherwise wrap or take silently ("-1" for an unsigned number, "1e999" or
// "nan" for seconds).
#pragma once

#include <CLI/CLI.hpp>

#include "commands/commands.h"

namespace difftest::cli {

CLI::Validator unsigned_number();  // decimal digits only, at most 2^64-1
CLI::Validator seconds();          // a finite number >= 0
CLI::Validator positive_finite();  // a finite number > 0

// --opt, --passes, --timeout, --inject, ... (and --probe, --json, --save when `with_save`: --seed and run).
void add_check_flags(CLI::App* app, commands::CheckRequest& r, bool with_save);
// --float-dtypes and --backend: what a generated program is drawn for.
void add_generator_flags(CLI::App* app, commands::CheckRequest& r);
void add_target_flag(CLI::App* app, std::string& target);  // --target
// --probe; `names` when it may name values (--seed and run), else only `all` (fuzz).
void add_probe_flag(CLI::App* app, std::string& probe, bool names);
void add_gate_flags(CLI::App* app, commands::GateRequest& r);
void add_reduce_flags(CLI::App* app, commands::ReduceRequest& r, bool reduce);

}  // namespace difftest::cli
