// The builtin compiler (compiler/) as a compiler under test (oracle/check/compiler.h): its
// variants are the named pipelines O0..O3, pass lists the user spells out (`--passes`, a corpus
// entry's `# passes:`) and random valid pass orders (random_orders.h), each also compiled with
// its dims fixed (SpecializeShapes first); it compiles and runs in the oracle's forked child
// through the LLVM 14 JIT, and its test faults (builtin_faults.h) are planted in it.
#pragma once

#include "compiler/pipeline/pipelines.h"
#include "oracle/check/compiler.h"
#include "oracle/check/variant.h"

namespace difftest::backends {

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
