// What eval, compare and run --bind share (commands/ only): the tolerance and case options an
// EvalRequest asks for, and the line that shows how one output compares.
#pragma once

#include <string>

#include "commands/commands.h"
#include "oracle/check/case.h"
#include "tolerance/compare.h"

namespace difftest::commands {

tolerance::Options tolerance_options(const EvalRequest& r);
// Inputs from --seed, the bounds of --bound-mode and --lambda, an ensemble of --members.
oracle::CaseOptions case_options(const EvalRequest& r);
// "out 0 %y: [SUMMARY ]ok compared=256 uncertain=0 failing=0 worst ratio=... bound=...", and the
// statistical tier's line under it when the output was calibrated. The ratio is the error over
// the bound; an element fails beyond the comparison's safety factor, which the header states.
std::string output_comparison_lines(const tolerance::OutputComparison& o, const std::string& summary = "");

}  // namespace difftest::commands
