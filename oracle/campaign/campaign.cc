#include "oracle/campaign/campaign.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "compiler/support/diagnostics.h"
#include "compiler/support/hash.h"
#include "compiler/ir/printer.h"
#include "compiler/tensor/npy.h"
#include "oracle/campaign/coverage_map.h"
#include "oracle/campaign/reproducer.h"
#include "oracle/campaign/worker.h"
#include "oracle/io/output_paths.h"
#include "oracle/isolate/clock.h"
#include "oracle/isolate/isolate.h"

namespace difftest::oracle {

namespace fs = std::filesystem;

namespace {

uint64_t parse_u64(const std::string& text, const std::string& flag, const std::string& whole) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ptr != end) throw UserError(ErrorKind::Usage, fmt::format("{}: '{}' is malformed", flag, whole));
  if (ec == std::errc::result_out_of_range) {
    throw UserError(ErrorKind::Usage, fmt::format("{}: '{}' has a number larger than 2^64-1", flag, whole));
  }
  return v;
}

// ------------------------------------------------------------------------------ the journal

nlohmann::json campaign_identity(const CampaignOptions& o) {
  nlohmann::json weights = nlohmann::json::object();
  for (const auto& [op, w] : o.generator.weights) weights[op] = w;
  nlohmann::json custom = nlohmann::json::array();
  // A custom list's steps and LLVM level, in the builtin's settings (the only compiler with lists).
  for (const auto& c : o.check.custom) {
    custom.push_back({{"passes", c.steps}, {"llvm_opt_level", c.settings.value("llvm_opt_level", 0)}});
  }
  nlohmann::json identity = {{"pipelines", o.check.levels},
                             {"custom", custom},
                             {"random_orders", o.check.random_orders},
                             {"faults", o.faults},
                             {"shard", fmt::format("{}/{}", o.shard.index, o.shard.count)},
                             {"random_bindings", o.check.random_bindings},
                             {"ensemble_members", o.check.ensemble.members},
                             {"weights", weights},
                             {"max_ops", o.generator.max_ops},
                             {"template_percent", o.generator.template_percent}};
  // Only when probing, so that campaigns journaled before probes existed still resume.
  if (!o.probe.empty()) identity["probe"] = o.probe.str();
  // Steering decides which seeds are checked: a campaign resumes only with the window it began with.
  if (o.steer > 1) identity["steer"] = o.steer;
  // Schedules differ between targets, so a campaign resumes only on the target it began with.
  if (const std::string target = o.check.under_test().target(); !target.empty()) identity["target"] = target;
  // Which compiler: a merge and a report name it, and match its known findings.
  identity["compiler"] = o.check.under_test().name();
  return identity;
}

}  // namespace

std::string failure_dir_name(const std::string& kind, const std::string& signature) {
  // FNV-1a from an offset basis with a digit missing (1469598103934665603, not ...6037), kept so
  // that the failure directories of earlier campaigns keep their names on --resume.
  const uint64_t h = fnv1a64(signature, 1469598103934665603ull);
  return fmt::format("{}-{:08x}", kind, static_cast<uint32_t>(h ^ (h >> 32)));
}

namespace {

class Campaign {
 public:
  explicit Campaign(const CampaignOptions& o) : o_(o) {}

  CampaignSummary run(const std::function<void(const CampaignStatus&)>& on_progress,
                      const std::function<void(const SeedRecord&)>& on_record) {
    on_record_ = on_record;
    open_out_dir();
    status_.total = o_.unbounded ? -1 : static_cast<int64_t>(seeds_in_range());
    next_ = o_.first_seed;
    skip_to_next_seed();
    const auto start = std::chrono::steady_clock::now();
    ::signal(SIGPIPE, SIG_IGN);
    std::vector<Worker> workers;
    for (int j = 0; j < std::max(1, o_.jobs); ++j) {
      workers.push_back(spawn_worker(o_, workers));
      feed(workers.back(), start);
    }
    auto last_progress = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    for (;;) {
      std::vector<pollfd> fds;
      for (const auto& w : workers) fds.push_back(pollfd{w.from, POLLIN, 0});
      bool busy = false;
      for (const auto& w : workers) busy = busy || w.seed.has_value();
      if (!busy) break;
      const double left = o_.time_limit > 0 ? o_.time_limit - seconds_since(start) : 0.2;
      if (left <= 0) {
        abandon_in_flight(workers);
        break;
      }
      ::poll(fds.data(), fds.size(), static_cast<int>(std::ceil(std::min(0.2, left) * 1000)));
      for (size_t i = 0; i < workers.size(); ++i) {
        if (fds[i].revents == 0) continue;
        Worker& w = workers[i];
        char chunk[4096];
        const ssize_t n = ::read(w.from, chunk, sizeof chunk);
        if (n > 0) {
          w.buffer.append(chunk, static_cast<size_t>(n));
          for (size_t nl; (nl = w.buffer.find('\n')) != std::string::npos;) {
            record(SeedRecord::from_json(nlohmann::json::parse(w.buffer.substr(0, nl)), "a campaign worker's record",
                                         o_.check.under_test()),
                   seconds_since(start));
            w.buffer.erase(0, nl + 1);
            w.seed.reset();
            feed(w, start);
          }
        } else if (n == 0 || (n < 0 && errno != EINTR)) {
          replace_dead_worker(w, workers, start);
        }
      }
      status_.elapsed = seconds_since(start);
      if (on_progress && std::chrono::steady_clock::now() - last_progress > std::chrono::milliseconds(250)) {
        on_progress(status_);
        last_progress = std::chrono::steady_clock::now();
      }
    }
    for (auto& w : workers) {
      if (w.pid < 0) continue;
      if (w.to >= 0) ::close(w.to);
      ::close(w.from);
      ::waitpid(w.pid, nullptr, 0);
    }
    status_.elapsed = seconds_since(start);
    if (on_progress) on_progress(status_);
    return summarize();
  }

 private:
  uint64_t seeds_in_range() const {
    const uint64_t n = o_.shard.count;
    auto upto = [&](uint64_t x) { return x / n + (x % n > o_.shard.index ? 1 : 0); };  // seeds < x in the shard
    return upto(o_.last_seed + 1) - upto(o_.first_seed);
  }

  bool in_campaign(uint64_t seed) const { return o_.unbounded || seed <= o_.last_seed; }

  void skip_to_next_seed() {
    if (o_.steer > 1) return steer_to_next_seed();
    while (in_campaign(next_) && (next_ % o_.shard.count != o_.shard.index || done_.count(next_))) ++next_;
  }

  // The next window of `steer` seeds of this shard from next_, and its most novel program. The
  // choice ignores the journal, so a resumed campaign makes every choice again as the first run
  // made it, and only skips a chosen seed it has journaled already.
  void steer_to_next_seed() {
    for (;;) {
      while (in_campaign(next_) && next_ % o_.shard.count != o_.shard.index) ++next_;
      if (!in_campaign(next_)) return;
      std::vector<uint64_t> window;
      uint64_t s = next_;
      for (; in_campaign(s) && window.size() < static_cast<size_t>(o_.steer); ++s) {
        if (s % o_.shard.count == o_.shard.index) window.push_back(s);
      }
      window_end_ = s;
      next_ = coverage_.steer(window, [&](uint64_t seed) { return campaign_program(seed, o_); });
      if (!done_.count(next_)) return;
      next_ = window_end_;
    }
  }

  // The seed after the one handed out: past the steering window, or the next one.
  uint64_t after(uint64_t seed) const { return o_.steer > 1 ? std::max(window_end_, seed + 1) : seed + 1; }

  void feed(Worker& w, std::chrono::steady_clock::time_point start) {
    const bool time_left = o_.time_limit <= 0 || seconds_since(start) < o_.time_limit;
    if (w.to < 0) return;
    if (!time_left || !in_campaign(next_) || (o_.stop_at_first_failure && found_failure_)) {
      ::close(w.to);  // EOF: the worker exits
      w.to = -1;
      return;
    }
    if (!write_all(w.to, fmt::format("{}\n", next_))) return;  // a dead worker shows as EOF next poll
    w.seed = next_;
    next_ = after(next_);
    skip_to_next_seed();
  }

  // The time limit has passed: the programs in flight are not waited for. Their workers (and
  // the compiles those have in flight, which die with them) are killed; nothing is journaled
  // for them, so a resumed campaign checks them.
  void abandon_in_flight(std::vector<Worker>& workers) {
    for (auto& w : workers) {
      if (w.pid < 0 || !w.seed) continue;
      ::kill(w.pid, SIGKILL);
      ::waitpid(w.pid, nullptr, 0);
      if (w.to >= 0) ::close(w.to);
      ::close(w.from);
      w = Worker{};
      ++status_.abandoned;
    }
  }

  void replace_dead_worker(Worker& w, std::vector<Worker>& workers, std::chrono::steady_clock::time_point start) {
    int status = 0;
    ::waitpid(w.pid, &status, 0);
    ::close(w.from);
    if (w.to >= 0) ::close(w.to);
    const std::optional<uint64_t> lost = w.seed;
    w = Worker{};
    if (!lost) return;  // it finished its work and exited
    const std::string why = WIFSIGNALED(status) ? fmt::format("killed by signal {}", WTERMSIG(status))
                                                : fmt::format("exited with status {}", WEXITSTATUS(status));
    SeedRecord rec;
    rec.seed = *lost;
    rec.harness_error = true;
    rec.signature = harness_error_signature("worker " + why);
    rec.message = "the campaign worker checking this seed died: " + why;
    record(rec, seconds_since(start));
    std::vector<Worker> others;
    for (const auto& x : workers) {
      if (&x != &w) others.push_back(x);
    }
    w = spawn_worker(o_, others);
    feed(w, start);
  }

  void open_out_dir() {
    require_writable_dir(o_.out_dir, "--out");
    if (!o_.coverage_path.empty()) require_writable_file(o_.coverage_path, "--coverage");
    journal_path_ = fs::path(o_.out_dir) / "journal.jsonl";
    const fs::path config = fs::path(o_.out_dir) / "campaign.json";
    const nlohmann::json identity = campaign_identity(o_);
    std::error_code ec;
    const bool have_journal = fs::exists(journal_path_, ec) && fs::file_size(journal_path_, ec) > 0;
    if (o_.resume && !have_journal && !fs::exists(config, ec)) {
      throw UserError(ErrorKind::Usage,
                      fmt::format("--resume: {} holds no campaign (no journal.jsonl, no campaign.json): "
                                  "nothing to resume; drop --resume to start one there",
                                  o_.out_dir));
    }
    fs::create_directories(fs::path(o_.out_dir) / "failures", ec);
    if (ec)
      throw UserError(ErrorKind::Io, fmt::format("--out {}: cannot create failures/: {}", o_.out_dir, ec.message()));
    if (have_journal && !o_.resume) {
      throw UserError(ErrorKind::Usage, fmt::format("--out {} already holds a campaign journal: pass --resume to continue "
                                                    "it, or choose another directory",
                                                    o_.out_dir));
    }
    if (o_.resume && fs::exists(config)) {
      nlohmann::json before;
      try {
        std::ifstream in(config);
        before = nlohmann::json::parse(in);
      } catch (const nlohmann::json::exception& e) {
        throw UserError(ErrorKind::Io, fmt::format("{}: not valid JSON: {}", config.string(), e.what()));
      }
      nlohmann::json now = identity;
      // A campaign journaled before the identity named its compiler resumes as before.
      if (!before.value("identity", nlohmann::json::object()).contains("compiler")) now.erase("compiler");
      if (before.value("identity", nlohmann::json{}) != now) {
        throw UserError(ErrorKind::Usage,
                        fmt::format("--resume: {} was a campaign with other settings ({}); this one is {}",
                                    o_.out_dir, before.value("identity", nlohmann::json{}).dump(), identity.dump()));
      }
    }
    write_file_atomic(config.string(), nlohmann::json{{"identity", identity}}.dump(2) + "\n");
    if (o_.resume && fs::exists(journal_path_, ec)) {
      Journal journal = read_campaign_journal(o_.out_dir, o_.check.under_test());
      journal_notes_ = std::move(journal.notes);
      for (const auto& rec : journal.records) {
        account(rec);
        ++status_.resumed;
      }
    }
    journal_fd_ = ::open(journal_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (journal_fd_ < 0) {
      throw UserError(ErrorKind::Io, fmt::format("cannot open '{}': {}", journal_path_.string(), std::strerror(errno)));
    }
  }

  // Counts a record (new or resumed); returns the failure class when it is a new signature, or
  // when this is its first program attributable to the injected faults (a detection).
  FailureClass* account(const SeedRecord& rec) {
    const uint64_t seed = rec.seed;
    if (!done_.insert(seed).second) return nullptr;  // journaled twice (a resumed run's last seed)
    ++status_.done;
    if (!o_.coverage_path.empty()) {
      coverage_.add(campaign_program(seed, o_), rec.exercised, status_.elapsed);
      if (status_.elapsed - coverage_written_ > 30) {
        write_coverage();
        coverage_written_ = status_.elapsed;
      }
    }
    if (!rec.harness_error && std::isfinite(rec.worst_excess)) excesses_.emplace_back(rec.worst_excess, seed);
    const std::string kind = rec.verdict_name();
    ++status_.counts[kind];
    status_.elements += rec.elements;
    status_.elements_checked += rec.elements_checked;
    if (!rec.signature) return nullptr;
    auto [it, fresh] = failures_.try_emplace(*rec.signature);
    FailureClass& f = it->second;
    ++f.programs;
    f.seeds.push_back(seed);
    if (!fresh) {
      f.first_seed = std::min(f.first_seed, seed);
      if (f.attributable || !rec.attributable.value_or(true)) return nullptr;
      f.attributable = true;
      return &f;
    }
    f.signature = *rec.signature;
    f.kind = kind;
    f.first_seed = seed;
    f.attributable = rec.attributable.value_or(true);
    if (o_.known_as) {
      if (const auto match = o_.known_as(f.signature)) {
        f.known_as = match->root_cause;
        f.known_under_other_pipeline = match->other_pipeline;
      }
    }
    const fs::path dir = fs::path(o_.out_dir) / "failures" / failure_dir_name(kind, f.signature.str());
    if (fs::exists(dir)) f.saved_in = dir.string();
    return &f;
  }

  void record(SeedRecord rec, double elapsed) {
    rec.at = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    const std::string line = rec.to_json().dump() + "\n";
    if (!write_all(journal_fd_, line)) {
      throw UserError(ErrorKind::Io, fmt::format("cannot append to '{}': {}", journal_path_.string(), std::strerror(errno)));
    }
    status_.refuted_timeouts += rec.refuted_timeouts;
    if (rec.times) times_ += *rec.times;
    ++checked_;
    FailureClass* f = account(rec);
    if (on_record_) on_record_(rec);
    if (!f) return;
    f->found_after_seconds = elapsed;
    f->found_after_programs = status_.done;
    found_failure_ = found_failure_ || (f->kind != kHarnessError && f->attributable);
    // A class seen before is returned when this program is its first attributable one: its
    // reproducer becomes this program, the one that fails because of the faults.
    const bool attributable_now = f->programs > 1;
    if ((f->saved_in.empty() || attributable_now) && rec.detail) save(*f, rec);
  }

  // The parent regenerates the program (generation is deterministic and cheap) rather than
  // shipping it through the pipe.
  void save(FailureClass& f, const SeedRecord& rec) {
    const fs::path dir = fs::path(o_.out_dir) / "failures" / failure_dir_name(f.kind, f.signature.str());
    const uint64_t seed = rec.seed;
    try {
      std::error_code ec;
      fs::remove_all(dir, ec);  // a reproducer that was not the faults' doing is replaced
      const Program p = campaign_program(seed, o_);
      sym::Env binding;
      for (const auto& var : rec.detail->variants) {
        if (o_.counts_against(var) && var.signature() == f.signature) {
          binding = var.binding;
          break;
        }
      }
      nlohmann::json verdict = rec.to_json().at("detail");
      verdict["signature"] = f.signature.str();
      save_reproducer_atomically(dir.string(), p, binding, verdict, o_.check.input_seed);
      f.saved_in = dir.string();
    } catch (const std::exception& e) {
      f.saved_in.clear();
      std::fprintf(stderr, "warning: could not save the reproducer of seed %llu: %s\n",
                   static_cast<unsigned long long>(seed), e.what());
    }
  }

  CampaignSummary summarize() {
    ::close(journal_fd_);
    CampaignSummary s;
    s.status = status_;
    s.excess = ExcessSummary::of(excesses_);
    s.times = times_;
    s.checked = checked_;
    s.journal_notes = journal_notes_;
    for (auto& [sig, f] : failures_) {
      s.failures.push_back(f);
      std::sort(s.failures.back().seeds.begin(), s.failures.back().seeds.end());
    }
    std::sort(s.failures.begin(), s.failures.end(),
              [](const FailureClass& a, const FailureClass& b) { return a.first_seed < b.first_seed; });
    s.coverage_cells = coverage_.cells();
    write_file_atomic((fs::path(o_.out_dir) / "summary.json").string(), s.to_json().dump(2) + "\n");
    write_coverage();
    return s;
  }

  void write_coverage() {
    if (o_.coverage_path.empty()) return;
    nlohmann::json j = coverage_.to_json();
    j["steer"] = o_.steer;
    write_file_atomic(o_.coverage_path, j.dump(1) + "\n");
  }

  const CampaignOptions& o_;
  fs::path journal_path_;
  int journal_fd_ = -1;
  uint64_t next_ = 0;
  std::set<uint64_t> done_;
  std::vector<std::pair<double, uint64_t>> excesses_;  // (worst excess, seed) per program
  CampaignStatus status_;
  std::map<Signature, FailureClass> failures_;
  std::function<void(const SeedRecord&)> on_record_;
  StageTimes times_;
  int64_t checked_ = 0;
  bool found_failure_ = false;  // this run journaled a failure (with faults, an attributable one)
  std::vector<std::string> journal_notes_;
  CoverageMap coverage_;
  uint64_t window_end_ = 0;  // with steering: the first seed past the current window
  double coverage_written_ = 0;
};

}  // namespace

Program campaign_program(uint64_t seed, const CampaignOptions& o) {
  Program p = generate_program(seed, o.generator);
  if (o.probe.empty()) return p;
  return probe_values(p, o.probe, "--probe");
}

Shard parse_shard(const std::string& text, const std::string& flag) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos) throw UserError(ErrorKind::Usage, fmt::format("{}: '{}' is not i/N", flag, text));
  Shard s{parse_u64(text.substr(0, slash), flag, text), parse_u64(text.substr(slash + 1), flag, text)};
  if (s.count == 0 || s.index >= s.count) {
    throw UserError(ErrorKind::Usage, fmt::format("{}: '{}' needs 0 <= i < N", flag, text));
  }
  return s;
}

ScheduledShard shard_from_environment(const std::function<const char*(const char*)>& env) {
  const auto value = [&](const char* name) -> std::optional<uint64_t> {
    const char* v = env(name);
    if (v == nullptr || *v == '\0') return std::nullopt;
    return parse_u64(v, name, v);
  };
  const auto shard_of = [&](uint64_t index, uint64_t count, const std::string& from) {
    if (count == 0 || index >= count) {
      throw UserError(ErrorKind::Usage, fmt::format("{}: shard {} of {} needs 0 <= index < count", from, index, count));
    }
    return ScheduledShard{Shard{index, count}, from};
  };
  if (const auto index = value("JOB_COMPLETION_INDEX")) {
    const auto count = value("DIFFTEST_SHARD_COUNT");
    if (!count) {
      throw UserError(ErrorKind::Usage,
                      "JOB_COMPLETION_INDEX: set DIFFTEST_SHARD_COUNT to the Indexed Job's completions (or pass --shard)");
    }
    return shard_of(*index, *count, "JOB_COMPLETION_INDEX");
  }
  if (const auto id = value("SLURM_ARRAY_TASK_ID")) {
    const auto count = value("SLURM_ARRAY_TASK_COUNT");
    if (!count) throw UserError(ErrorKind::Usage, "SLURM_ARRAY_TASK_ID: SLURM_ARRAY_TASK_COUNT is not set (or pass --shard)");
    const uint64_t min = value("SLURM_ARRAY_TASK_MIN").value_or(0);
    if (const auto step = value("SLURM_ARRAY_TASK_STEP"); step && *step != 1) {
      throw UserError(ErrorKind::Usage,
                      fmt::format("SLURM_ARRAY_TASK_STEP: {}: an array of shards needs consecutive task ids "
                                  "(--array=MIN-MAX, no step)",
                                  *step));
    }
    if (*id < min) throw UserError(ErrorKind::Usage, fmt::format("SLURM_ARRAY_TASK_ID: {} is below SLURM_ARRAY_TASK_MIN {}", *id, min));
    return shard_of(*id - min, *count, "SLURM_ARRAY_TASK_ID");
  }
  return {};
}

std::pair<uint64_t, uint64_t> parse_seed_range(const std::string& text, const std::string& flag) {
  const size_t dots = text.find("..");
  if (dots == std::string::npos) throw UserError(ErrorKind::Usage, fmt::format("{}: '{}' is not A..B", flag, text));
  const uint64_t a = parse_u64(text.substr(0, dots), flag, text), b = parse_u64(text.substr(dots + 2), flag, text);
  if (a > b) throw UserError(ErrorKind::Usage, fmt::format("{}: '{}' is empty (A > B)", flag, text));
  return {a, b};
}

CampaignSummary run_campaign(const CampaignOptions& options,
                             const std::function<void(const CampaignStatus&)>& on_progress,
                             const std::function<void(const SeedRecord&)>& on_record) {
  if (options.out_dir.empty()) throw UserError(ErrorKind::Usage, "fuzz: --out DIR is required");
  if (options.unbounded && options.time_limit <= 0) {
    throw UserError(ErrorKind::Usage, "fuzz: give --seeds A..B or --time SECONDS");
  }
  if (options.jobs < 1 || options.jobs > 256) throw UserError(ErrorKind::Usage, "--jobs: must be 1..256");
  return Campaign(options).run(on_progress, on_record);
}

}  // namespace difftest::oracle
