#include "backends/onnxruntime/ort_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "backends/onnxruntime/ort_session.h"
#include "backends/onnxruntime/ort_culprit.h"
#include "backends/kit/model_files.h"
#include "backends/kit/reproducer_data.h"
#include "compiler/ir/fix_dims.h"
#include "compiler/ir/printer.h"
#include "compiler/tensor/npy.h"
#include "oracle/check/expected_results.h"
#include "reference/inputs.h"

namespace difftest::backends {

namespace fs = std::filesystem;

namespace {

// The self-checking reproducers: the data (model, inputs, reference values and the difference
// allowed per element, -1 where an element is not compared) as one JSON blob both read.
constexpr const char* kPython = R"PY(#!/usr/bin/env python3
"""A self-checking reproducer of an ONNX Runtime result difftest found wrong.

Needs numpy and onnxruntime only (pip install onnxruntime==@VERSION@). The model, the inputs,
the reference values (computed by an independent interpreter in float64) and the difference
allowed at each element are embedded below. Runs the failing optimization level, the level
'disabled', and the failing level with the culprit transformers disabled; prints PASS or FAIL
for each; exits 1 when the failing level is wrong (the bug reproduces), 0 when it is not.
"""
import json
import sys

import numpy as np
import onnxruntime as ort

DATA = json.loads(r'''@DATA@''')
LEVELS = {"disabled": "ORT_DISABLE_ALL", "basic": "ORT_ENABLE_BASIC", "extended": "ORT_ENABLE_EXTENDED",
          "layout": "ORT_ENABLE_LAYOUT", "all": "ORT_ENABLE_ALL"}


def run(level, disabled=()):
    options = ort.SessionOptions()
    options.graph_optimization_level = getattr(ort.GraphOptimizationLevel, LEVELS[level])
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(bytes.fromhex(DATA["model_hex"]), options, providers=["CPUExecutionProvider"],
                                   disabled_optimizers=list(disabled))
    feeds = {t["name"]: np.frombuffer(bytes.fromhex(t["hex"]), dtype=t["dtype"]).reshape(t["shape"])
             for t in DATA["inputs"]}
    return session.run(None, feeds)


@CHECK@


def outcome(label, level, disabled=()):
    """check() of one run; a session ORT refuses, or a run that raises, is a FAIL too."""
    try:
        outputs = run(level, disabled)
    except Exception as e:  # noqa: BLE001 (whatever ORT raises is the finding)
        print(f"FAIL {label}: {type(e).__name__}: {e}")
        return True
    return check(label, outputs)


if __name__ == "__main__":
    print(DATA["title"])
    level, culprits = DATA["level"], DATA["culprits"]
    reproduced = outcome(f"level '{level}'", level)
    outcome("level 'disabled'", "disabled")
    if culprits:
        outcome(f"level '{level}' with {';'.join(culprits)} disabled", level, culprits)
    sys.exit(1 if reproduced else 0)
)PY";

constexpr const char* kNode =
    R"JS(// A self-checking reproducer of an ONNX Runtime result difftest found wrong, for Node.js with
// onnxruntime-node@@VERSION@ (npm install onnxruntime-node@@VERSION@). The model, the inputs,
// the reference values and the difference allowed per element are embedded; runs the failing
// level, 'disabled', and the failing level with the culprit transformers disabled; exits 1 when
// the failing level is wrong.
'use strict';
const ort = require('onnxruntime-node');

const DATA = @DATA@;
const ARRAYS = {float32: Float32Array, float64: Float64Array, float16: Uint16Array, int64: BigInt64Array,
                int32: Int32Array, int8: Int8Array, uint8: Uint8Array, uint32: Uint32Array, bool: Uint8Array};

function bytes(hex) {
  const b = Buffer.from(hex, 'hex');
  const copy = new ArrayBuffer(b.length);
  new Uint8Array(copy).set(b);
  return copy;
}

function half(h) {  // an IEEE binary16 bit pattern as a number
  const e = (h >> 10) & 31, m = h & 1023, s = h >> 15 ? -1 : 1;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

async function run(level, disabled = []) {
  const options = {graphOptimizationLevel: level, intraOpNumThreads: 1, interOpNumThreads: 1,
                   executionProviders: ['cpu']};
  if (disabled.length) options.extra = {optimization: {disable_specified_optimizers: disabled.join(';')}};
  const session = await ort.InferenceSession.create(new Uint8Array(bytes(DATA.model_hex)), options);
  const feeds = {};
  for (const t of DATA.inputs) feeds[t.name] = new ort.Tensor(t.dtype, new ARRAYS[t.dtype](bytes(t.hex)), t.shape);
  const result = await session.run(feeds);
  return session.outputNames.map((name) => {
    const t = result[name];
    return Array.from(t.data, (v) => (t.type === 'float16' ? half(v) : Number(v)));
  });
}

function check(label, outputs) {
  let wrong = false;
  DATA.outputs.forEach((out, k) => {
    const ref = new Float64Array(bytes(out.ref_hex)), allowed = new Float64Array(bytes(out.allowed_hex));
    let bad = 0, worst = -1, at = -1;
    outputs[k].forEach((got, i) => {
      if (allowed[i] < 0) return;
      const diff = Math.abs(got - ref[i]);
      if (diff <= allowed[i]) return;
      ++bad;
      const excess = Number.isNaN(diff) ? Infinity : diff / Math.max(allowed[i], Number.MIN_VALUE);
      if (excess > worst) [worst, at] = [excess, i];
    });
    if (!bad) return;
    console.log(`FAIL ${label}: ${bad} of ${ref.length} elements of ${out.name} differ from the reference by more ` +
                `than allowed; worst at flat index ${at}: got ${outputs[k][at]}, expected ${ref[at]}, ` +
                `allowed difference ${allowed[at].toPrecision(3)}`);
    wrong = true;
  });
  if (!wrong) console.log(`PASS ${label}`);
  return wrong;
}

// check() of one run; a session ORT refuses, or a run that throws, is a FAIL too.
async function outcome(label, level, disabled = []) {
  let outputs;
  try {
    outputs = await run(level, disabled);
  } catch (e) {
    console.log(`FAIL ${label}: ${e.message}`);
    return true;
  }
  return check(label, outputs);
}

(async () => {
  console.log(DATA.title);
  const reproduced = await outcome(`level '${DATA.level}'`, DATA.level);
  await outcome("level 'disabled'", 'disabled');
  if (DATA.culprits.length) {
    await outcome(`level '${DATA.level}' with ${DATA.culprits.join(';')} disabled`, DATA.level, DATA.culprits);
  }
  process.exit(reproduced ? 1 : 0);
})();
)JS";

std::string filled(std::string text, const std::string& version, const std::string& data) {
  for (size_t at; (at = text.find("@VERSION@")) != std::string::npos;) text.replace(at, 9, version);
  if (const size_t at = text.find("@CHECK@"); at != std::string::npos)
    text.replace(at, 7, exporters::python_check_function());
  const size_t at = text.find("@DATA@");
  text.replace(at, 6, data);
  return text;
}

}  // namespace

void write_ort_report(const std::string& dir, const oracle::ReductionReport& r, const oracle::CheckOptions& options) {
  const sym::Env env = reference::resolve_binding(r.reduced.program, r.reduced.binding, nullptr);
  const bool specialized = r.failing.variant.specialized();
  const Program p = specialized ? fix_dims(r.reduced.program, env) : r.reduced.program;
  const oracle::Case c = oracle::make_case(p, env, options.cases());
  if (c.invalid()) return;
  const std::string level = r.failing.variant.tested.settings.value("level", std::string("all"));
  const oracle::VariantVerdict& f = r.reduced_failure;
  const OrtInstall install = ort_install();

  // The culprit on the reduced program, and the optimized graphs with and without it.
  std::vector<std::string> culprits;
  std::string culprit_text = "(not searched: the failure is not a result of an optimization level)";
  if (level != "disabled" && !r.failing.variant.against) {
    const oracle::FailingRun reduced{r.failing.variant, env, f, 0};
    if (const auto found = find_culprit_transformers(p, reduced, options, {})) {
      culprit_text = found->summary;
      if (found->reproduced && found->pass.find("ONNX Runtime's") == std::string::npos)
        culprits = found->minimal_passes;
    }
  }
  const oracle::Variant failing_level = ort_level_variant(level, "the report");
  const OrtSessionLog with = ort_session_log(p, failing_level, c, options.limits);
  oracle::Variant without_culprits = failing_level;
  without_culprits.settings["disabled"] = culprits;
  const OrtSessionLog without = ort_session_log(p, without_culprits, c, options.limits);
  if (with.ok) write_file_atomic((fs::path(dir) / "optimized_with_culprits.onnx").string(), with.optimized_model);
  if (without.ok && !culprits.empty()) {
    write_file_atomic((fs::path(dir) / "optimized_without_culprits.onnx").string(), without.optimized_model);
  }

  // Which levels fail on the reduced program.
  std::vector<std::string> passing, failing, other;  // other: neither (ORT has no kernel there, ...)
  for (const auto& l : ort_levels()) {
    const oracle::VariantVerdict v =
        oracle::check_variant_outcome(p, oracle::VariantId(ort_level_variant(l, "the report")), env, options);
    if (oracle::is_failure(v.kind)) {
      failing.push_back(l);
    } else if (v.kind == oracle::VerdictKind::Ok) {
      passing.push_back(l);
    } else {
      other.push_back(fmt::format("{} ({})", l, oracle::verdict_kind_name(v.kind)));
    }
  }

  // The reproducers' data.
  nlohmann::json data = reproducer_data(export_onnx_model(p), p, c, c, f.kind, options);
  data["level"] = level;
  data["culprits"] = culprits;
  const std::string title =
      fmt::format("ONNX Runtime {}: {} at level '{}'{}", install.version, oracle::verdict_kind_name(f.kind), level,
                  culprits.empty() ? "" : fmt::format(" ({})", fmt::join(culprits, ";")));
  data["title"] = title;
  write_file_atomic((fs::path(dir) / "repro.py").string(), filled(kPython, install.version, data.dump()));
  write_file_atomic((fs::path(dir) / "repro.js").string(), filled(kNode, install.version, data.dump()));

  // report.md in the sections of ONNX Runtime's bug template.
  std::string out = fmt::format("# {}\n\n### Describe the issue\n\n", title);
  // A wrong result and a session that fails are told apart all through the report.
  const bool wrong_result = oracle::is_output_finding(f.kind);
  out += fmt::format("On the CPU execution provider, {} at graph optimization level{} {} and {} at {}.",
                     wrong_result ? "this model's result is wrong" : "this model fails to run",
                     failing.size() > 1 ? "s" : "", fmt::join(failing, ", "),
                     wrong_result ? "right" : "runs with the right result",
                     passing.empty() ? "none" : fmt::format("{}", fmt::join(passing, ", ")));
  if (!other.empty()) out += fmt::format(" Not judged at {}.", fmt::join(other, ", "));
  if (!culprits.empty()) {
    out += fmt::format(
        " Disabling {} (session config `optimization.disable_specified_optimizers`) makes level '{}' right again: "
        "{} the transformer at fault.",
        fmt::join(culprits, ";"), level, culprits.size() == 1 ? "it is" : "together they are");
  }
  out += "\n\n";
  if (wrong_result) {
    out += fmt::format(
        "Expected vs actual, worst element: output `{}` at [{}]: got {:.17g}, expected {:.17g} (computed in float64 "
        "by an independent reference interpreter); allowed difference there {:.3g}, from {}.\n\n{}\n\n{}\n\n",
        f.output, fmt::join(f.index, ", "), f.got, f.want, f.bound, data.value("allowance", std::string()), f.message,
        oracle::nearest_form_sentence(p, c, f, options));
  } else {
    out += fmt::format("Expected: the session runs. Actual: {} during {}: {}\n\n", oracle::verdict_kind_name(f.kind),
                       f.stage.name(), f.message);
  }
  out += fmt::format("Optimized graph at level '{}' (as ORT saves it, `optimized_with_culprits.onnx`): {}\n\n", level,
                     with.ok ? op_histogram(with.optimized_model) : with.error);
  if (!culprits.empty()) {
    out += fmt::format("With {} disabled (`optimized_without_culprits.onnx`): {}\n\n", fmt::join(culprits, ";"),
                       without.ok ? op_histogram(without.optimized_model) : without.error);
  }
  out += fmt::format("How the culprit was found: {}\n\n", culprit_text);
  out += "### To reproduce\n\n";
  out += "`python3 repro.py` (needs numpy and onnxruntime) or `node repro.js` (needs onnxruntime-node): each embeds ";
  out += "the model, the inputs, the expected values and the allowed difference per element, and prints PASS or FAIL ";
  out += "for the failing level, for 'disabled' and for the failing level with the culprits disabled. The model is ";
  out += "also `model.onnx`, the inputs `in_*.npy`";
  out += fmt::format("{}.\n\nThe program the model computes (difftest IR, `repro.ir`):\n\n```\n{}```\n\n",
                     specialized ? " (its dims fixed: the failure shows on the static-shape model)" : "", print(p));
  out += wrong_result ? "### Urgency\n\nA silent wrong result, no crash or error.\n\n"
                      : fmt::format("### Urgency\n\nA valid model that cannot run at these levels ({}).\n\n",
                                    oracle::verdict_kind_name(f.kind));
  out += fmt::format("### Platform\n\nLinux\n\n### OS Version\n\n{}\n\n", os_description());
  out +=
      fmt::format("### ONNX Runtime Installation\n\nReleased Package (npm onnxruntime-node {})\n\n", install.version);
  out += fmt::format("### ONNX Runtime Version or Commit ID\n\n{}\n\n", install.version);
  out += "### ONNX Runtime API\n\nJavaScript (Node.js; the Python reproducer uses the Python API)\n\n";
  out += "### Architecture\n\nX64\n\n### Execution Provider\n\nDefault CPU (single-threaded session)\n\n";
  out += fmt::format("Found and reduced by difftest {} ({} ops reduced to {}, {:.1f} s).\n", oracle::kDifftestVersion,
                     r.original.num_calls(), r.reduced.program.num_calls(), r.seconds);
  write_file_atomic((fs::path(dir) / "report.md").string(), out);
}

}  // namespace difftest::backends
