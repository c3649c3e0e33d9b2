// What a self-checking reproducer of an external compiler's failure embeds: the model the
// compiler ran (hex), the failing case's inputs as the model takes them (hex), and the reference
// values with the difference allowed per element (exporters/expected_results.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "backends/kit/model_files.h"
#include "oracle/check/check.h"

namespace difftest::backends {

// {"model_format", "model_file", "model_hex", "inputs": [{name, dtype, shape, hex}], "outputs":
// [{name, shape, ref_hex, allowed_hex}], "allowance"}; `failing_kind` picks the tier whose
// allowance judges (expected_results). The inputs are `c`'s, the expected outputs `judging`'s:
// `c` itself, or for a level with a precision the case of the program computed in it.
nlohmann::json reproducer_data(const WorkerModel& model, const Program& p, const oracle::Case& c,
                               const oracle::Case& judging, oracle::VerdictKind failing_kind,
                               const oracle::CheckOptions& options);

// The operating system a report names: /etc/os-release's PRETTY_NAME ("Debian GNU/Linux 12
// (bookworm)"), else the kernel's name and release.
std::string os_description();

}  // namespace difftest::backends
