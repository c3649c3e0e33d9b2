// --seed and run (commands.h): one program checked every way, or one pipeline under one binding.
#include <fmt/format.h>

#include "commands/commands.h"
#include "commands/shared.h"
#include "compiler/support/diagnostics.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/verifier.h"
#include "oracle/campaign/reproducer.h"
#include "oracle/check/probes.h"
#include "oracle/io/output_paths.h"
#include "reference/inputs.h"
#include "reference/summary.h"

namespace difftest::commands {

namespace {

// The program with --probe's values returned too.
Program probed(const Program& p, const CheckRequest& r) {
  if (r.probe.empty()) return p;
  return oracle::probe_values(p, oracle::parse_probe_selection(r.probe, "--probe"), "--probe");
}

// The oracle's check of `p` with its verdict shown (--json: as JSON, with `extra` fields),
// saved as a reproducer under --save.
int check_and_show(const Program& p, const CheckRequest& r, const std::string& title, const nlohmann::json& extra,
                   const Print& out) {
  const oracle::CheckOptions options = check_options(r);
  if (!r.save_dir.empty()) oracle::require_writable_dir(r.save_dir, "--save");
  const oracle::Verdict v = oracle::check_program(p, options);
  if (!r.save_dir.empty()) oracle::save_reproducer(r.save_dir, p, v, options.input_seed);
  if (r.json) {
    nlohmann::json j = v.to_json();
    j.update(extra);
    out(j.dump(2) + "\n");
  } else {
    out(oracle::format_verdict(v, title, options.under_test()));
  }
  return exit_code_of(v.overall());
}

// One binding, by the check's own compile-run-compare path: the outputs and how they compare.
oracle::VerdictKind run_one_binding(const Program& p, const oracle::Variant& variant, const sym::Env& given,
                                    const EvalRequest& f, const oracle::CheckOptions& options, const Print& out) {
  namespace ref = reference;
  const oracle::Case c = oracle::make_case(p, given, options.cases());
  if (c.invalid()) {
    throw UserError(ErrorKind::Evaluation,
                    fmt::format("the program is invalid under {}: {}", ref::binding_str(c.env), c.invalid_reason()));
  }
  const oracle::CaseRun r = oracle::run_case(p, variant, c, options);
  const oracle::VariantVerdict& v = r.verdict.variants.front();
  if (!r.result) {
    out(fmt::format("@{} under {} at {}: {} during {}: {}\n", p.name(), ref::binding_str(c.env), variant.name(),
                    oracle::verdict_kind_name(v.kind), v.stage.describe(), v.message));
    return v.kind;
  }
  out(fmt::format("@{} under {} at {} ({} kernels, compile {:.1f} ms, run {:.1f} ms; {} bounds, safety {})\n", p.name(),
                  ref::binding_str(c.env), variant.name(), r.kernels, v.compile_ms, v.run_ms,
                  tolerance::bound_mode_name(options.tolerance.mode), options.tolerance.safety));
  const std::vector<Tensor>& outputs = r.result->outputs;
  for (const auto& o : r.result->comparison.outputs) {
    out(output_comparison_lines(o, ref::summarize(outputs[o.index], o.dtype)));
  }
  if (v.kind == oracle::VerdictKind::Unchecked) out(v.message + "\n");
  if (!f.dump_dir.empty()) {
    ref::dump_tensors(f.dump_dir, c.inputs, outputs,
                      fmt::format("difftest run {} --opt {} --bind {} --seed {}\noutputs of the compiled program",
                                  f.file, variant.name(), ref::binding_str(c.env), f.seed));
    out(fmt::format("wrote {} inputs and {} outputs to {}\n", c.inputs.size(), outputs.size(), f.dump_dir));
  }
  return v.kind;
}

}  // namespace

int seed_command(uint64_t seed, const CheckRequest& check, const Print& out) {
  const Program p = probed(generate_program(seed, generator_options(check)), check);
  verify(p);
  return check_and_show(p, check, fmt::format("seed {} ({} ops, {} dim vars)", seed, p.num_calls(), p.dims().size()),
                        {{"seed", seed}}, out);
}

int run_command(const RunRequest& r, const Print& out) {
  EvalRequest f = r.eval;
  f.members = r.check.members;  // --members serves --bind too
  if (!f.dump_dir.empty()) oracle::require_writable_dir(f.dump_dir, "--dump");
  const Program p = probed(parse_program_file(f.file), r.check);
  verify(p);
  if (f.bind.empty() && f.dump_dir.empty()) {
    CheckRequest check = r.check;
    check.tolerance = tolerance_options(f);
    return check_and_show(p, check, f.file, {{"file", f.file}}, out);
  }
  oracle::CheckOptions options = check_options(r.check);  // validates; turns the faults on
  options.tolerance = tolerance_options(f);
  options.input_seed = f.seed;
  options.random_orders = 0;  // one binding of one pipeline: the default orders are not asked for
  const std::vector<oracle::Variant> variants = options.under_test().variants(p, options);
  if (variants.size() != 1) throw UserError(ErrorKind::Usage, "--bind/--dump need a single --opt or --passes");
  const oracle::VerdictKind verdict =
      run_one_binding(p, variants.front(), reference::parse_binding(f.bind, "--bind"), f, options, out);
  out(fmt::format("verdict: {}\n", oracle::verdict_kind_name(verdict)));
  return exit_code_of(verdict);
}

}  // namespace difftest::commands
