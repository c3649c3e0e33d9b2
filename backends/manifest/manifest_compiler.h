// A compiler under test from a manifest (manifest.h): its levels as named variants whose steps
// are the level's declared steps, each check handed to the manifest's worker over the protocol
// (kit/worker_requests.h), its culprit searched as the manifest says, its reproducer written
// from the manifest's templates.
#pragma once

#include <memory>
#include <string>

#include "backends/manifest/manifest.h"
#include "oracle/check/compiler.h"

namespace difftest::backends {

// `flag` is what `--backend` takes for it: the manifest's path, or an in-tree backend's name.
std::unique_ptr<oracle::CompilerUnderTest> make_manifest_compiler(Manifest manifest, std::string flag);
// The version a manifest compiler's worker says (asked once), or why it did not say.
std::string manifest_compiler_version(const oracle::CompilerUnderTest& compiler);
// Its default check's levels that this machine runs natively (a level's `needs` among the
// capabilities the worker's version answer lists).
std::vector<std::string> manifest_compiler_default_levels(const oracle::CompilerUnderTest& compiler);
// Whether a manifest compiler can be handed `p` in its model format (the generator's
// Backend::can_take); the model stays prepared for the check that follows.
bool manifest_compiler_has_model(const oracle::CompilerUnderTest& compiler, const Program& p);
// "" when the worker of `m` can be started here, else why not (its program not found).
std::string manifest_worker_missing(const Manifest& m);

}  // namespace difftest::backends
