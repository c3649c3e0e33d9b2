#include "oracle/campaign/worker.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <stdexcept>

#include "compiler/support/diagnostics.h"
#include "oracle/isolate/clock.h"
#include "oracle/isolate/isolate.h"

namespace difftest::oracle {

namespace {

// Whether the clean compiler's verdict shows a failure for the variant `v` of the same program:
// the same pipeline under the same binding, or a compile of that pipeline that failed (which
// has no binding of its own).
bool fails_clean(const Verdict& clean, const VariantVerdict& v, const CampaignOptions& o) {
  return std::any_of(clean.variants.begin(), clean.variants.end(), [&](const VariantVerdict& c) {
    return o.counts_against(c) && c.variant.name() == v.variant.name() &&
           (c.binding == v.binding || c.stage.kind != Stage::Kind::Compare);
  });
}

// The failure the record names: with faults injected, the first one the compiler without them
// does not show (`attributable` false when every failure shows there too).
const VariantVerdict* attributed_failure(const Program& p, const Verdict& v, const CampaignOptions& o,
                                         bool& attributable) {
  attributable = true;
  const VariantVerdict* first = v.first_failure();
  if (!first) {
    const auto unchecked = std::find_if(v.variants.begin(), v.variants.end(),
                                        [&](const VariantVerdict& var) { return o.counts_against(var); });
    if (unchecked != v.variants.end()) first = &*unchecked;
  }
  if (!first || o.faults.empty()) return first;
  const PlantedFaults* planted = o.check.under_test().planted_faults();
  DT_CHECK(planted != nullptr, "faults injected into " + o.check.under_test().name() + ", which has none planted");
  CheckOptions without_faults = o.check;
  without_faults.compiler = &planted->without(o.faults);
  const Verdict clean = check_program(p, without_faults);
  for (const auto& var : v.variants) {
    if (o.counts_against(var) && !fails_clean(clean, var, o)) return &var;
  }
  attributable = false;
  return first;
}

}  // namespace

SeedRecord check_seed(uint64_t seed, const CampaignOptions& o) {
  SeedRecord rec;
  rec.seed = seed;
  try {
    const auto t0 = std::chrono::steady_clock::now();
    const Program p = campaign_program(seed, o);
    const double generate_ms = seconds_since(t0) * 1000;
    Verdict v = check_program(p, o.check);
    v.times.generate = generate_ms;
    rec.hash = v.hash;
    rec.kind = v.overall();
    rec.times = v.times;
    rec.exercised.assign(v.exercised.begin(), v.exercised.end());
    for (const auto& var : v.variants) {
      rec.worst_ratio = std::max(rec.worst_ratio, var.worst_ratio);
      rec.worst_excess = std::max(rec.worst_excess, var.worst_excess);
      rec.elements += var.elements;
      rec.elements_checked += var.elements_checked;
    }
    rec.refuted_timeouts = v.refuted_timeouts();
    bool attributable = true;
    if (const VariantVerdict* f = attributed_failure(p, v, o, attributable)) {
      rec.signature = f->signature();
      if (!o.faults.empty()) rec.attributable = attributable;
      rec.detail = std::move(v);
    } else if (v.overall() == VerdictKind::InvalidProgram) {
      for (const auto& var : v.variants) {
        if (var.kind == VerdictKind::InvalidProgram) rec.message = var.message;
      }
    }
  } catch (const std::exception& e) {
    rec = SeedRecord{};
    rec.seed = seed;
    rec.harness_error = true;
    rec.signature = harness_error_signature(e.what());
    rec.message = e.what();
  }
  return rec;
}

namespace {

// Reads seeds, one per line, from `in` until EOF; writes one record per line to `out`.
[[noreturn]] void worker_main(int in, int out, const CampaignOptions& o) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a killed campaign takes its workers with it
  std::string buffer;
  char chunk[256];
  for (;;) {
    const size_t nl = buffer.find('\n');
    if (nl == std::string::npos) {
      const ssize_t n = ::read(in, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) ::_exit(0);
      buffer.append(chunk, static_cast<size_t>(n));
      continue;
    }
    const uint64_t seed = std::strtoull(buffer.substr(0, nl).c_str(), nullptr, 10);
    buffer.erase(0, nl + 1);
    if (!write_all(out, check_seed(seed, o).to_json().dump() + "\n")) ::_exit(1);
  }
}

}  // namespace

Worker spawn_worker(const CampaignOptions& o, const std::vector<Worker>& others) {
  int down[2], up[2];
  if (::pipe(down) != 0 || ::pipe(up) != 0) throw std::runtime_error("pipe() failed");
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork() failed");
  if (pid == 0) {
    ::close(down[1]);
    ::close(up[0]);
    for (const auto& w : others) {
      if (w.to >= 0) ::close(w.to);
      if (w.from >= 0) ::close(w.from);
    }
    worker_main(down[0], up[1], o);
  }
  ::close(down[0]);
  ::close(up[1]);
  ::fcntl(down[1], F_SETFD, FD_CLOEXEC);
  ::fcntl(up[0], F_SETFD, FD_CLOEXEC);
  Worker w;
  w.pid = pid;
  w.to = down[1];
  w.from = up[0];
  return w;
}

}  // namespace difftest::oracle
