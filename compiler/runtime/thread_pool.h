// The runtime thread pool behind `parallel` loops.
//
// Generated code calls `difftest_parallel_for(body, closure, begin, end)`; the JIT defines that
// symbol in every JIT dylib (absoluteSymbols), so nothing depends on -rdynamic.
//
// Schedule contract: every iteration of a parallel loop writes outputs that no other iteration
// reads or writes. The pool then gives results independent of the thread count and of timing,
// so a parallel loop is bitwise equal to the serial one.
//
// Workers: hardware concurrency capped at kMaxThreads, or DIFFTEST_THREADS (1 = serial). Static
// chunking: [begin, end) is cut into one contiguous chunk per thread; the caller runs the first
// chunk itself. A parallel loop inside a running chunk (nested), or a call while another thread
// already uses the pool, runs serially in the calling thread. A forked child never waits on
// workers it did not inherit: the pool is per process id and rebuilt after fork.
#pragma once

#include <cstdint>

namespace difftest::runtime {

constexpr int kMaxThreads = 16;

// Threads a parallel loop uses (workers + the caller), >= 1.
int parallel_threads();

}  // namespace difftest::runtime

extern "C" {
// body(closure, lo, hi) runs iterations [lo, hi). Returns when every iteration has run.
void difftest_parallel_for(void (*body)(void* closure, int64_t lo, int64_t hi), void* closure, int64_t begin,
                           int64_t end);
}
