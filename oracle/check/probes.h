// Probes: intermediate values checked as if they were outputs.
//
// A wrong intermediate can vanish before the outputs: a later op masks it (a clip, a
// comparison, a max), or the rest of the program shrinks it below the spread of correct
// results (one q4 group's scale 1% off moves the Gemma-3 layer's outputs by less than one
// ensemble sigma, while 32 weights of the dequantized matrix move by 1%). The reference and
// its ensemble already compute every value; the compiled program has to return it. The
// probed program returns the original outputs and the selected values, all in the order the
// program defines them, so the first failing output of a run is the first value that
// diverged.
//
// A returned value must be materialized, so the compiler can no longer fuse it away: the
// probed program is a different compile from the original, and a bug that only a fused
// kernel has may not show in it (check the original too).
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/ir.h"

namespace difftest::oracle {

struct ProbeSelection {
  bool all = false;                // every value a call computes
  std::vector<std::string> names;  // else these, without the '%'
  bool empty() const { return !all && names.empty(); }
  // As parse_probe_selection reads it: "all", or "%q,%k" ("" when empty).
  std::string str() const;
};

// "all", or comma-separated value names ("%q,%k" or "q,k"); `flag` names the flag in errors.
ProbeSelection parse_probe_selection(const std::string& text, const std::string& flag);

// `p` with the selected values returned too (UserError naming `flag` for a name the program
// does not define, or one that is a param or a constant: those are inputs, not computed).
Program probe_values(const Program& p, const ProbeSelection& selection, const std::string& flag);

}  // namespace difftest::oracle
