// Reading a text or model file whole, with a size limit, as a located error rather than a crash.
#pragma once

#include <cstddef>
#include <string>

namespace difftest {

// The largest input any parser takes: larger inputs are a Limit error, not a memory blow-up.
constexpr size_t kMaxInputBytes = size_t{64} << 20;

// Reads a whole file (Io error naming the path when it cannot be read or exceeds the limit).
std::string read_text_file(const std::string& path, size_t max_bytes = kMaxInputBytes);

}  // namespace difftest
