#include "oracle/isolate/isolate.h"

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

#include "compiler/support/diagnostics.h"
#include "oracle/isolate/clock.h"

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

// The stream from a child: frames of a tag, a 4-byte length and that many bytes — 'P' a
// progress stage's name, 'R' a work's report (its first byte 'O' ok, 'U' user error, 'E' other
// error, then the payload or the message).
std::string frame(char tag, const std::string& body) {
  const auto n = static_cast<uint32_t>(body.size());
  std::string f(1, tag);
  f.append(reinterpret_cast<const char*>(&n), sizeof n);
  return f + body;
}

// What a child does before any work.
void prepare_child(const IsolationLimits& limits, pid_t parent) {
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
}

// Runs one work in the child and writes its report frame.
void report_work(int fd, const std::function<std::string(Progress&)>& work) {
  std::string report;
  Progress progress(fd);
  try {
    report = "O" + work(progress);
  } catch (const UserError& e) {
    report = std::string("U") + e.what();
  } catch (const std::exception& e) {
    report = std::string("E") + e.what();
  } catch (...) {
    report = "Eunknown exception";
  }
  (void)write_all(fd, frame('R', report));  // a parent that is gone reads nothing either way
}

bool read_all(int fd, void* data, size_t size) {
  size_t off = 0;
  while (off < size) {
    const ssize_t n = ::read(fd, static_cast<char*>(data) + off, size - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

// A child serving IsolatedWorks: reads a work's index, runs it, reports, until the parent
// closes the request pipe.
[[noreturn]] void serve_works(int requests, int results,
                              const std::vector<std::function<std::string(Progress&)>>& works,
                              const IsolationLimits& limits, pid_t parent) {
  prepare_child(limits, parent);
  uint64_t index = 0;
  while (read_all(requests, &index, sizeof index)) {
    if (index >= works.size()) break;
    report_work(results, works[index]);
  }
  ::_exit(0);
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
  (void)write_all(fd_, frame('P', name));  // a parent that is gone reads nothing either way
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

namespace {

// What watching one work showed: its report, or why the child has to go.
struct Watched {
  std::optional<std::string> report;  // the 'R' frame's body
  std::string stage;                  // the last 'P' frame's
  bool timed_out = false, blocked = false, cancelled = false;
  double stage_cpu_start = 0;  // the child's CPU clock when the last stage began
};

// Reads frames from `fd` until the work's report arrives, the child closes its end (it
// finished or died), or a limit passes: the CPU limit (per stage with timeout_per_stage), the
// backstop of a child that uses no CPU (BlockedWatch), or the caller's deadline. `cpu_start`
// is the child's CPU clock when the work began.
Watched watch_work(int fd, ProcessCpuClock& cpu, double cpu_start, const IsolationLimits& limits) {
  Watched w;
  w.stage_cpu_start = cpu_start;
  BlockedWatch watch(limits.cpu_seconds * limits.wall_factor, cpu_start);
  std::string buffer;
  char buf[65536];
  for (;;) {
    // Whole frames first: a report ends the watch.
    while (buffer.size() >= 5) {
      uint32_t n = 0;
      std::memcpy(&n, buffer.data() + 1, sizeof n);
      if (buffer.size() < 5 + size_t{n}) break;
      std::string body = buffer.substr(5, n);
      const char tag = buffer[0];
      buffer.erase(0, 5 + size_t{n});
      if (tag == 'R') {
        w.report = std::move(body);
        return w;
      }
      w.stage = std::move(body);
      if (limits.timeout_per_stage) {  // a stage began
        w.stage_cpu_start = cpu.seconds();
        watch.restart(w.stage_cpu_start);
      }
    }
    if (passed(limits.deadline)) {
      w.cancelled = true;
      return w;
    }
    const double used = cpu.seconds();
    if (used - w.stage_cpu_start >= limits.cpu_seconds) {
      w.timed_out = true;
      return w;
    }
    if (watch.blocked(used)) {
      w.timed_out = w.blocked = true;
      return w;
    }
    // Wake often enough that the CPU limit overshoots by little.
    const double wait = std::min({kCpuPollSeconds, watch.seconds_left(), seconds_left(limits.deadline)});
    pollfd p{fd, POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::ceil(wait * 1000)));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) continue;  // re-check the clocks
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return w;  // EOF: the child closed its end (it died)
    buffer.append(buf, static_cast<size_t>(n));
  }
}

// The outcome of a watched work from its report (the child lives on).
void take_report(const std::string& report, ChildOutcome& out) {
  if (!report.empty() && report[0] == 'O') {
    out.status = ChildOutcome::Status::Ok;
    out.payload = report.substr(1);
  } else {
    out.status = ChildOutcome::Status::Error;
    out.user_error = !report.empty() && report[0] == 'U';
    out.message = report.empty() ? std::string() : report.substr(1);
  }
}

// The outcome of a watched work that ended without a report, its child gone or to go: killed
// when it timed out or was cancelled, then reaped. `cpu_start` is its CPU clock when the work began.
void reap_child(pid_t pid, const Watched& w, double cpu_start, ChildOutcome& out) {
  if (w.timed_out || w.cancelled) ::kill(pid, SIGKILL);
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  const double total = seconds_of(usage.ru_utime) + seconds_of(usage.ru_stime);
  out.cpu_seconds = std::max(0.0, total - cpu_start);
  out.stage_cpu_seconds = std::max(0.0, total - w.stage_cpu_start);
  out.blocked = w.blocked;
  if (w.cancelled) {
    out.status = ChildOutcome::Status::Cancelled;
    out.message = "stopped at the caller's deadline";
  } else if (w.timed_out) {
    out.status = ChildOutcome::Status::TimedOut;
  } else if (WIFSIGNALED(status)) {
    out.status = ChildOutcome::Status::Crashed;
    out.signal = WTERMSIG(status);
    out.message = fmt::format("killed by signal {} ({})", out.signal, ::strsignal(out.signal));
  } else {
    out.status = ChildOutcome::Status::Lost;
    out.message = fmt::format("exited with status {} without a report", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
}

}  // namespace

ChildOutcome run_isolated(const std::function<std::string(Progress&)>& work, const IsolationLimits& limits) {
  IsolatedWorks one({work});
  return one.run(0, limits);
}

IsolatedWorks::IsolatedWorks(std::vector<std::function<std::string(Progress&)>> works) : works_(std::move(works)) {}

IsolatedWorks::~IsolatedWorks() { stop(); }

void IsolatedWorks::stop() {
  if (pid_ <= 0) return;
  ::close(requests_);
  ::close(results_);
  ::kill(pid_, SIGKILL);  // idle between works: nothing of it is lost
  while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

void IsolatedWorks::start(const IsolationLimits& limits) {
  // A child that died between works closes the request pipe under the next write: that must be
  // an error to handle, not a signal that ends the harness.
  ::signal(SIGPIPE, SIG_IGN);
  int requests[2], results[2];
  DT_CHECK(::pipe(requests) == 0 && ::pipe(results) == 0, fmt::format("pipe: {}", std::strerror(errno)));
  const pid_t parent = ::getpid();
  std::fflush(nullptr);  // the child must not flush the parent's buffered output again
  const pid_t pid = ::fork();
  DT_CHECK(pid >= 0, fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    ::close(requests[1]);
    ::close(results[0]);
    serve_works(requests[0], results[1], works_, limits, parent);
  }
  ::close(requests[0]);
  ::close(results[1]);
  pid_ = pid;
  requests_ = requests[1];
  results_ = results[0];
  served_ = 0;
  cpu_.emplace(pid);
}

ChildOutcome IsolatedWorks::run(size_t index, const IsolationLimits& limits) {
  DT_CHECK(index < works_.size(), "IsolatedWorks: no such work");
  ChildOutcome out = run_once(index, limits);
  // A crash after other works in the same child may be theirs (a stray write into the heap
  // that only breaks a later allocation): it stands only when the work crashes on its own too.
  const bool died = out.status == ChildOutcome::Status::Crashed || out.status == ChildOutcome::Status::Lost;
  if (died && last_served_before_ > 0) out = run_once(index, limits);
  return out;
}

ChildOutcome IsolatedWorks::run_once(size_t index, const IsolationLimits& limits) {
  if (pid_ <= 0) start(limits);
  last_served_before_ = served_;
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu_start = cpu_->seconds();
  ChildOutcome out;
  const uint64_t request = index;
  const std::string bytes(reinterpret_cast<const char*>(&request), sizeof request);
  Watched w;
  if (write_all(requests_, bytes)) w = watch_work(results_, *cpu_, cpu_start, limits);
  out.stage = w.stage;
  if (w.report) {
    take_report(*w.report, out);
    out.cpu_seconds = std::max(0.0, cpu_->seconds() - cpu_start);
    out.stage_cpu_seconds = std::max(0.0, cpu_->seconds() - w.stage_cpu_start);
    ++served_;
  } else {
    ::close(requests_);
    ::close(results_);
    reap_child(pid_, w, cpu_start, out);
    pid_ = -1;
  }
  out.seconds = seconds_since(t0);
  return out;
}

}  // namespace difftest::oracle
