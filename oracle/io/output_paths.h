// Output paths a user names (--out, --save, --junit, --json, --baseline), checked before any
// work is done: a run that takes an hour must not end in "cannot write" and lose its results.
// Each function throws UserError(Io) naming the flag, the path and what is wrong with it.
#pragma once

#include <string>

namespace difftest::oracle {

// `dir` exists or can be created, is a directory, and a file can be created in it.
void require_writable_dir(const std::string& dir, const std::string& flag);

// `file` is not a directory, and its directory exists or can be created and is writable.
void require_writable_file(const std::string& file, const std::string& flag);

}  // namespace difftest::oracle
