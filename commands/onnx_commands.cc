// import and onnx-conformance (commands.h).
#include <fmt/format.h>

#include "backends/backends.h"
#include "backends/kit/model_files.h"
#include "commands/commands.h"
#include "compiler/support/diagnostics.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/tensor/npy.h"
#include "exporters/tvmscript/tvmscript.h"
#include "interop/onnx/conformance.h"
#include "interop/onnx/export.h"
#include "interop/onnx/import.h"
#include "oracle/check/case.h"
#include "oracle/check/check.h"
#include "oracle/check/expected_results.h"
#include "reference/inputs.h"

namespace difftest::commands {

namespace {

// "n=1..512" -> {"n", [1, 512]}.
std::pair<std::string, sym::Range> parse_dim_range(const std::string& text) {
  const auto bad = [&] {
    return UserError(ErrorKind::Usage, fmt::format("--dim {}: expected NAME=LO..HI with 1 <= LO <= HI", text));
  };
  const size_t eq = text.find('='), dots = text.find("..");
  if (eq == std::string::npos || dots == std::string::npos || dots < eq || eq == 0) throw bad();
  try {
    size_t used_lo = 0, used_hi = 0;
    const std::string lo_text = text.substr(eq + 1, dots - eq - 1), hi_text = text.substr(dots + 2);
    const int64_t lo = std::stoll(lo_text, &used_lo), hi = std::stoll(hi_text, &used_hi);
    if (used_lo != lo_text.size() || used_hi != hi_text.size() || lo < 1 || hi < lo || hi > kMaxDimVarValue) {
      throw bad();
    }
    return {text.substr(0, eq), sym::Range{lo, hi}};
  } catch (const std::logic_error&) {
    throw bad();
  }
}

}  // namespace

int import_command(const ImportRequest& r, const Print& out) {
  interop::ImportOptions options;
  for (const auto& d : r.dims) options.dims.insert(parse_dim_range(d));
  const Program p = interop::import_model(interop::read_model(r.file), options, r.file);
  verify(p);
  out(print(p));
  return kOk;
}

namespace {

// The program as TVMScript with its reference embedded: the inputs of one binding, the reference
// values and the allowance of the default check's tolerance.
int export_tvmscript_command(const ExportRequest& r, const Print& out) {
  if (r.form_seed_given || r.unpacked_q4 || r.bf16_edges || !r.backend.empty()) {
    throw UserError(ErrorKind::Usage, "--tvmscript: --form-seed, --unpacked-q4, --bf16-edges and --backend are ONNX's");
  }
  const Program p = parse_program_file(r.file);
  verify(p);
  const oracle::CheckOptions options = oracle::default_check_options();
  exporters::TvmScriptOptions tvm;
  tvm.failing_config = "";
  const oracle::Case c = oracle::make_case(p, reference::parse_binding(r.bind, "--bind"), options.cases());
  if (c.invalid()) {
    throw UserError(ErrorKind::Evaluation,
                    fmt::format("{}: no finite reference under this binding: {}", r.file, c.invalid_reason()));
  }
  tvm.binding = c.env;
  tvm.expected = oracle::expected_results(p, c, oracle::VerdictKind::Mismatch, options);
  write_file_atomic(r.tvmscript_out, exporters::export_tvmscript(p, tvm));
  out(fmt::format("wrote {} (the reference of {} inputs embedded; run it with TVM's Python)\n", r.tvmscript_out,
                  c.inputs.size()));
  return kOk;
}

}  // namespace

int export_command(const ExportRequest& r, const Print& out) {
  if (r.onnx_out.empty() == r.tvmscript_out.empty()) {
    throw UserError(ErrorKind::Usage, "export: give --onnx FILE or --tvmscript FILE (one of them)");
  }
  if (!r.tvmscript_out.empty()) return export_tvmscript_command(r, out);
  if (!r.bind.empty()) throw UserError(ErrorKind::Usage, "--bind: the inputs of --tvmscript; an ONNX model has none");
  if (!r.backend.empty()) {
    const backends::Backend& backend = backends::find_backend(r.backend, "--backend");
    if (backend.name != "ort") {
      throw UserError(ErrorKind::Usage, fmt::format("--backend {}: it is not given ONNX models (ort is)", r.backend));
    }
    if (r.form_seed_given || r.unpacked_q4 || r.bf16_edges) {
      throw UserError(ErrorKind::Usage,
                      "--backend ort writes the model that backend checks: --form-seed, --unpacked-q4 and "
                      "--bf16-edges do not apply");
    }
  }
  const Program p = parse_program_file(r.file);
  verify(p);
  std::string bytes;
  if (r.backend == "ort") {
    bytes = backends::export_onnx_model(p).bytes;
  } else {
    interop::ExportOptions options;
    options.form_seed = r.form_seed;
    if (r.unpacked_q4) options.q4_form = interop::ExportOptions::Q4Form::Dequantize;
    options.bf16_edges_as_f32 = r.bf16_edges;
    if (!interop::export_program(p, options).SerializeToString(&bytes)) {
      throw InternalError("the exported model does not serialize");
    }
  }
  ::onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) throw InternalError("the exported model does not parse back");
  write_file_atomic(r.onnx_out, bytes);
  out(fmt::format("wrote {} ({} nodes, {} initializers, opset {})\n", r.onnx_out, model.graph().node_size(),
                  model.graph().initializer_size(), interop::kExportOpset));
  return kOk;
}

int onnx_conformance_command(const ConformanceRequest& r, ProgressLine& progress, const Print& out) {
  const std::string expected = r.expect.empty() ? "" : read_text_file(r.expect);
  int done = 0;
  const interop::ConformanceReport report = interop::run_conformance(
      r.dir.empty() ? interop::kDefaultNodeTestDir : r.dir, [&](const interop::NodeTestResult& t) {
        progress.update(
            fmt::format("onnx-conformance: {} tests, last {} {}", ++done, t.name, interop::outcome_name(t.outcome)));
      });
  progress.finish();
  out(interop::format_conformance(report));
  if (!r.write_expect.empty()) {
    write_file_atomic(r.write_expect, interop::expectations_text(report));
    out(fmt::format("wrote the outcomes to {}\n", r.write_expect));
  }
  if (r.expect.empty()) return kOk;
  const std::vector<std::string> changes = interop::expectation_changes(report, expected);
  if (changes.empty()) {
    out(fmt::format("every outcome is as {} expects\n", r.expect));
    return kOk;
  }
  out(fmt::format("{} outcomes differ from {}:\n", changes.size(), r.expect));
  for (const auto& c : changes) out("  " + c + "\n");
  return kFailure;
}

}  // namespace difftest::commands
