// How a compiler under test's failures are reported (one role of CompilerUnderTest,
// compiler.h): how a report names the compiler's settings and target, the flags of `difftest
// run`/`bisect` that compile a variant again, and files of the compiler's own beside a reduced
// failure's repro.ir (the builtin: the program as a TVM Relax module; ONNX Runtime: its bug
// template and self-checking reproducers), each written atomically into `dir`.
#pragma once

#include <string>

#include "compiler/ir/ir.h"
#include "compiler/sym/sym.h"
#include "oracle/check/variant.h"

namespace difftest::oracle {

struct CheckOptions;
struct ReductionReport;  // reduce/reduce_failure.h
struct VariantVerdict;   // check/verdict.h

class ReproducerWriter {
 public:
  virtual ~ReproducerWriter() = default;
  // The compiler and a variant's settings, as a report's environment line says them.
  virtual std::string environment(const Variant& variant) const = 0;
  // The machine its code is generated for, recorded with every verdict and campaign so a
  // failure replays with the same schedules ("": the compiler picks by itself).
  virtual std::string target() const { return ""; }
  // ` --target NAME` for a command that replays a failure of it ("" when it has no target).
  std::string target_flag() const { return target().empty() ? "" : " --target " + target(); }
  virtual std::string replay_flags(const Variant& variant) const = 0;
  // `p` is the reduced program as repro.ir holds it (its dims fixed for a specialized failure),
  // `binding` its dims; `failure` which variant failed there and how.
  virtual void write_reproducer(const std::string& dir, const Program& p, const sym::Env& binding,
                                const VariantVerdict& failure, const CheckOptions& options) const = 0;
  // What write_reproducer writes, as the report says it.
  virtual std::string reproducer_files() const = 0;
  // After write_reproducer, for a reduced failure: files in the compiler's own project's terms,
  // written over the generic ones. The builtin writes none.
  virtual void write_report(const std::string&, const ReductionReport&, const CheckOptions&) const {}
};

}  // namespace difftest::oracle
