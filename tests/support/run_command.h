// Runs a shell command and keeps what it printed on stdout, for tests that run Python on files
// the code under test wrote (reproducers, exported modules).
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace difftest::testing {

struct CommandResult {
  int exit_code = -1;  // -1: not started, or ended by a signal
  std::string output;
};

inline CommandResult run_command(const std::string& command) {
  CommandResult r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) r.output.append(buf, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace difftest::testing
