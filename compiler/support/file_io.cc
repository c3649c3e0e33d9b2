#include "compiler/support/file_io.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "compiler/support/diagnostics.h"

namespace difftest {

std::string read_text_file(const std::string& path, size_t max_bytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw UserError(ErrorKind::Io, fmt::format("'{}' is a directory", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(ErrorKind::Io, fmt::format("cannot read '{}'", path));
  std::string data;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    data.append(buf, static_cast<size_t>(in.gcount()));
    if (data.size() > max_bytes) {
      throw UserError(ErrorKind::Limit, fmt::format("'{}' is larger than the limit of {} bytes", path, max_bytes));
    }
  }
  if (in.bad()) throw UserError(ErrorKind::Io, fmt::format("error while reading '{}'", path));
  return data;
}

}  // namespace difftest
