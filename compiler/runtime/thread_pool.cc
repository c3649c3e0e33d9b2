#include "compiler/runtime/thread_pool.h"

#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace difftest::runtime {

namespace {

using Body = void (*)(void*, int64_t, int64_t);

thread_local bool in_parallel_chunk = false;

int configured_threads() {
  if (const char* env = std::getenv("DIFFTEST_THREADS"); env && *env) {
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    if (end && *end == '\0' && v >= 1) return static_cast<int>(std::min<long>(v, kMaxThreads));
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return std::clamp(static_cast<int>(hw == 0 ? 1 : hw), 1, kMaxThreads);
}

// [begin, end) cut into `parts` contiguous chunks; chunk k.
std::pair<int64_t, int64_t> chunk(int64_t begin, int64_t end, int parts, int k) {
  const int64_t n = end - begin;
  const int64_t base = n / parts, extra = n % parts;
  const int64_t lo = begin + base * k + std::min<int64_t>(k, extra);
  return {lo, lo + base + (k < extra ? 1 : 0)};
}

class Pool {
 public:
  explicit Pool(int threads) : threads_(threads) {
    for (int w = 1; w < threads_; ++w) workers_.emplace_back([this, w] { work(w); });
  }
  // Never destroyed (see instance()): joining at exit could race other static destructors.

  int threads() const { return threads_; }

  bool try_run(Body body, void* closure, int64_t begin, int64_t end) {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    {
      std::lock_guard<std::mutex> lock(m_);
      body_ = body;
      closure_ = closure;
      begin_ = begin;
      end_ = end;
      pending_ = threads_ - 1;
      ++generation_;
    }
    start_.notify_all();
    run_chunk(0);
    std::unique_lock<std::mutex> lock(m_);
    done_.wait(lock, [this] { return pending_ == 0; });
    return true;
  }

 private:
  void run_chunk(int k) {
    const auto [lo, hi] = chunk(begin_, end_, threads_, k);
    in_parallel_chunk = true;
    if (lo < hi) body_(closure_, lo, hi);
    in_parallel_chunk = false;
  }

  void work(int k) {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(m_);
        start_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
      }
      run_chunk(k);
      std::lock_guard<std::mutex> lock(m_);
      if (--pending_ == 0) done_.notify_one();
    }
  }

  const int threads_;
  std::vector<std::thread> workers_;
  std::mutex busy_;  // one parallel loop at a time
  std::mutex m_;
  std::condition_variable start_, done_;
  uint64_t generation_ = 0;
  int pending_ = 0;
  Body body_ = nullptr;
  void* closure_ = nullptr;
  int64_t begin_ = 0, end_ = 0;
};

Pool* instance() {
  static std::mutex m;
  static Pool* pool = nullptr;
  static pid_t owner = 0;
  std::lock_guard<std::mutex> lock(m);
  // After fork the child has the parent's Pool object but none of its threads: build a new one
  // (the old one is leaked on purpose; its threads do not exist here).
  if (pool == nullptr || owner != ::getpid()) {
    pool = new Pool(configured_threads());
    owner = ::getpid();
  }
  return pool;
}

}  // namespace

int parallel_threads() { return instance()->threads(); }

}  // namespace difftest::runtime

extern "C" void difftest_parallel_for(void (*body)(void*, int64_t, int64_t), void* closure, int64_t begin,
                                      int64_t end) {
  using difftest::runtime::in_parallel_chunk;
  if (end <= begin) return;
  if (in_parallel_chunk) {
    body(closure, begin, end);
    return;
  }
  difftest::runtime::Pool* pool = difftest::runtime::instance();
  if (pool->threads() == 1 || end - begin == 1 || !pool->try_run(body, closure, begin, end)) {
    in_parallel_chunk = true;
    body(closure, begin, end);
    in_parallel_chunk = false;
  }
}
