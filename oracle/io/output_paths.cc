#include "oracle/io/output_paths.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "compiler/support/diagnostics.h"

namespace difftest::oracle {

namespace fs = std::filesystem;

void require_writable_dir(const std::string& dir, const std::string& flag) {
  const auto bad = [&](const std::string& why) {
    return UserError(ErrorKind::Io, fmt::format("{} {}: {}", flag, dir, why));
  };
  std::error_code ec;
  const fs::path path = dir.empty() ? fs::path(".") : fs::path(dir);
  if (fs::exists(path, ec) && !fs::is_directory(path, ec)) throw bad("exists and is not a directory");
  fs::create_directories(path, ec);
  if (ec) throw bad(fmt::format("cannot create it: {}", ec.message()));
  // Permissions alone do not say it (root, read-only mounts): try to create a file there.
  const std::string probe = (path / fmt::format(".difftest-write-test-{}", ::getpid())).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) throw bad(fmt::format("cannot write there: {}", std::strerror(errno)));
  ::close(fd);
  ::unlink(probe.c_str());
}

void require_writable_file(const std::string& file, const std::string& flag) {
  std::error_code ec;
  if (file.empty()) throw UserError(ErrorKind::Usage, fmt::format("{}: an empty file name", flag));
  if (fs::is_directory(file, ec)) throw UserError(ErrorKind::Io, fmt::format("{} {}: is a directory", flag, file));
  const fs::path parent = fs::path(file).parent_path();
  require_writable_dir(parent.empty() ? "." : parent.string(), fmt::format("{} {}: its directory", flag, file));
}

}  // namespace difftest::oracle
