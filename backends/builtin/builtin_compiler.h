// The builtin compiler (compiler/) as a compiler under test (oracle/check/compiler.h): its
// variants are the named pipelines O0..O3, pass lists the user spells out (`--passes`, a corpus
// entry's `# passes:`) and random valid pass orders (random_orders.h), each also compiled with
// its dims fixed (SpecializeShapes first); it compiles and runs in the oracle's forked child
// through the LLVM 14 JIT. Each is built for one target and with its test faults planted
// (compiler/faults), which every compile it makes puts into its CompileContext.
#pragma once

#include <string>
#include <vector>

#include "compiler/pipeline/pipelines.h"
#include "compiler/target/target.h"
#include "oracle/check/compiler.h"
#include "oracle/check/variant.h"

namespace difftest::backends {

// What a builtin compiler under test is built with (a command's `--target` and `--inject`).
struct BuiltinOptions {
  const target::Target* target = &target::default_target();
  std::vector<std::string> faults;  // declared fault names
};

// The builtin compiler with `options`: one object for each distinct target and set of faults,
// alive for the rest of the process. UserError(Usage) naming the known faults when one is not.
const oracle::CompilerUnderTest& builtin_compiler(const BuiltinOptions& options);
// With the default target and no fault planted.
const oracle::CompilerUnderTest& builtin_compiler();

// Its variants' steps are passes and their settings the LLVM level and FMA contraction; these
// make one from a pipeline and the pipeline back (with the variant's bisection limit).
oracle::Variant builtin_variant(oracle::VariantKind kind, const pipeline::Pipeline& pipe);
pipeline::Pipeline builtin_pipeline(const oracle::Variant& v);
// The variant of a pipeline whose origin is not known (a bench's list): a named pipeline when it
// is one exactly (same name, passes and settings), a random order when its name is one
// ("order2"), else a custom list.
oracle::Variant variant_of_pipeline(const pipeline::Pipeline& pipe);

}  // namespace difftest::backends
