#include "oracle/check/isolate.h"

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "compiler/ir/diagnostics.h"
#include "oracle/check/clock.h"

namespace difftest::oracle {

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif

size_t current_address_space() {
  size_t pages = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%zu", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  return pages * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
}

// The stream from the child: progress frames 'P' + 4-byte length + stage name, then the final
// report 'R' + tag ('O' ok, 'U' user error, 'E' other error) + text up to EOF.
[[noreturn]] void child_main(int fd, const std::function<std::string(Progress&)>& work, const IsolationLimits& limits,
                             pid_t parent) {
  // A parent killed at its own deadline (a campaign worker) takes its child with it.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);
  // Default dispositions, so a crash kills the child with its signal even when a sanitizer or
  // the parent installed handlers for them.
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, SIG_DFL);
  if (!kAddressSanitizer && limits.memory_bytes > 0) {
    // The child starts with the parent's address space (inputs, reference values): the cap is
    // on what it adds.
    const size_t cap_bytes = current_address_space() + limits.memory_bytes;
    const rlimit cap{cap_bytes, cap_bytes};
    ::setrlimit(RLIMIT_AS, &cap);
  }
  std::string report;
  Progress progress(fd);
  try {
    report = "RO" + work(progress);
  } catch (const UserError& e) {
    report = std::string("RU") + e.what();
  } catch (const std::exception& e) {
    report = std::string("RE") + e.what();
  } catch (...) {
    report = "REunknown exception";
  }
  (void)write_all(fd, report);  // a parent that is gone reads nothing either way
  ::close(fd);
  ::_exit(0);  // no atexit handlers or static destructors of the parent's state
}

constexpr double kCpuPollSeconds = 0.025;

double seconds_of(const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; }

}  // namespace

Deadline deadline_in(double seconds) {
  if (!(seconds > 0)) return std::nullopt;
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
}

double seconds_left(const Deadline& d) {
  if (!d) return std::numeric_limits<double>::infinity();
  return std::max(0.0, std::chrono::duration<double>(*d - std::chrono::steady_clock::now()).count());
}

bool passed(const Deadline& d) { return d && std::chrono::steady_clock::now() >= *d; }

bool write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

void BlockedWatch::restart(double cpu_seconds) {
  last_cpu_ = cpu_seconds;
  last_progress_ = std::chrono::steady_clock::now();
}

bool BlockedWatch::blocked(double cpu_seconds) {
  if (cpu_seconds > last_cpu_) restart(cpu_seconds);
  return seconds_left() <= 0;
}

double BlockedWatch::seconds_left() const {
  return backstop_ - std::chrono::duration<double>(std::chrono::steady_clock::now() - last_progress_).count();
}

void Progress::stage(const std::string& name) {
  const auto n = static_cast<uint32_t>(name.size());
  std::string frame = "P";
  frame.append(reinterpret_cast<const char*>(&n), sizeof n);
  frame += name;
  (void)write_all(fd_, frame);  // a parent that is gone reads nothing either way
}

const char* status_name(ChildOutcome::Status s) {
  switch (s) {
    case ChildOutcome::Status::Ok: return "ok";
    case ChildOutcome::Status::Error: return "error";
    case ChildOutcome::Status::Crashed: return "crashed";
    case ChildOutcome::Status::TimedOut: return "timed_out";
    case ChildOutcome::Status::Lost: return "lost";
    case ChildOutcome::Status::Cancelled:
      return "cancelled";
  }
  return "?";
}

ChildOutcome run_isolated(const std::function<std::string()>& work, const IsolationLimits& limits) {
  return run_isolated([&](Progress&) { return work(); }, limits);
}

ChildOutcome run_isolated(const std::function<std::string(Progress&)>& work, const IsolationLimits& limits) {
  int fds[2];
  DT_CHECK(::pipe(fds) == 0, fmt::format("pipe: {}", std::strerror(errno)));
  std::fflush(nullptr);  // the child must not flush the parent's buffered output again
  const pid_t parent = ::getpid();
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  DT_CHECK(pid >= 0, fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    ::close(fds[0]);
    child_main(fds[1], work, limits, parent);
  }
  ::close(fds[1]);
  ChildOutcome out;
  ProcessCpuClock cpu(pid);
  std::string report;
  bool timed_out = false, cancelled = false;
  char buf[65536];
  double stage_cpu_start = 0;
  BlockedWatch watch(limits.cpu_seconds * limits.wall_factor, stage_cpu_start);
  for (;;) {
    if (passed(limits.deadline)) {
      cancelled = true;
      break;
    }
    const double used = cpu.seconds();
    if (used - stage_cpu_start >= limits.cpu_seconds) {
      timed_out = true;
      break;
    }
    if (watch.blocked(used)) {
      timed_out = out.blocked = true;
      break;
    }
    // Wake often enough that the CPU limit overshoots by little.
    const double wait = std::min({kCpuPollSeconds, watch.seconds_left(), seconds_left(limits.deadline)});
    pollfd p{fds[0], POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::ceil(wait * 1000)));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) continue;  // re-check the clocks
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: the child closed its end (finished or died)
    report.append(buf, static_cast<size_t>(n));
    if (limits.timeout_per_stage) {  // a stage began (or the report came)
      stage_cpu_start = cpu.seconds();
      watch.restart(stage_cpu_start);
    }
  }
  ::close(fds[0]);
  if (timed_out || cancelled) ::kill(pid, SIGKILL);
  // Split the stream into progress frames and the final report.
  size_t at = 0;
  while (at < report.size() && report[at] == 'P' && at + 5 <= report.size()) {
    uint32_t n = 0;
    std::memcpy(&n, report.data() + at + 1, sizeof n);
    if (at + 5 + n > report.size()) break;
    out.stage = report.substr(at + 5, n);
    at += 5 + n;
  }
  report = at < report.size() && report[at] == 'R' ? report.substr(at + 1) : std::string();
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  out.seconds = seconds_since(t0);
  out.cpu_seconds = seconds_of(usage.ru_utime) + seconds_of(usage.ru_stime);
  out.stage_cpu_seconds = std::max(0.0, out.cpu_seconds - stage_cpu_start);
  if (cancelled) {
    out.status = ChildOutcome::Status::Cancelled;
    out.message = "stopped at the caller's deadline";
  } else if (timed_out) {
    out.status = ChildOutcome::Status::TimedOut;
  } else if (WIFSIGNALED(status)) {
    out.status = ChildOutcome::Status::Crashed;
    out.signal = WTERMSIG(status);
    out.message = fmt::format("killed by signal {} ({})", out.signal, ::strsignal(out.signal));
  } else if (report.empty()) {
    out.status = ChildOutcome::Status::Lost;
    out.message = fmt::format("exited with status {} without a report", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  } else if (report[0] == 'O') {
    out.status = ChildOutcome::Status::Ok;
    out.payload = report.substr(1);
  } else {
    out.status = ChildOutcome::Status::Error;
    out.user_error = report[0] == 'U';
    out.message = report.substr(1);
  }
  return out;
}

}  // namespace difftest::oracle
