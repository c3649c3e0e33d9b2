#include "compiler/target/target.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/Support/Host.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>

#include "compiler/support/diagnostics.h"

namespace difftest::target {

namespace {

// DIFFTEST_HOST_TARGET=avx2 makes an AVX-512 machine pass for an AVX2 one: every feature a
// wider target needs and the named one lacks is taken away, so the host target, the default
// target and the JIT's refusals are those of the smaller machine (how the test suite is checked
// for AVX2 hosts on this one).
void cap_host_features(llvm::StringMap<bool>& features) {
  const char* cap_name = std::getenv("DIFFTEST_HOST_TARGET");
  if (!cap_name || !*cap_name) return;
  const Target& cap = find_target(cap_name, "DIFFTEST_HOST_TARGET");
  // Targets are widest first: what the cap and the narrower ones need stays, what only the
  // wider ones need goes.
  const auto& targets = all_targets();
  const auto cap_at = std::find_if(targets.begin(), targets.end(), [&](const Target& t) { return &t == &cap; });
  std::set<std::string> kept;
  for (auto t = cap_at; t != targets.end(); ++t) kept.insert(t->required_features.begin(), t->required_features.end());
  for (auto t = targets.begin(); t != cap_at; ++t) {
    for (const auto& f : t->required_features) {
      if (!kept.count(f)) features[f] = false;
    }
  }
}

const llvm::StringMap<bool>& host_features() {
  static const llvm::StringMap<bool> features = [] {
    llvm::StringMap<bool> f;
    if (!llvm::sys::getHostCPUFeatures(f)) f.clear();
    cap_host_features(f);
    return f;
  }();
  return features;
}

}  // namespace

const std::vector<Target>& all_targets() {
  // The CPU models are the first of each extension level (AVX-512: Skylake-SP, also Zen 4; AVX2:
  // Haswell, also every Zen; AVX: Ivy Bridge), so the code runs on every later one. F16C is
  // required throughout: f16 rounding after every operation uses its conversions.
  static const std::vector<Target> targets = {
      {"avx512",
       "skylake-avx512",
       512,
       32,
       {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl", "avx2", "fma", "f16c", "bmi2", "lzcnt", "movbe"}},
      {"avx2", "haswell", 256, 16, {"avx2", "fma", "f16c", "bmi2", "lzcnt", "movbe"}},
      {"avx", "ivybridge", 256, 16, {"avx", "f16c"}},
  };
  return targets;
}

const Target& find_target(const std::string& name, const std::string& where) {
  std::vector<std::string> known;
  for (const auto& t : all_targets()) {
    if (t.name == name) return t;
    known.push_back(t.name);
  }
  throw UserError(ErrorKind::Usage, fmt::format("{}{}unknown target '{}' (known: {})", where, where.empty() ? "" : ": ",
                                                name, fmt::join(known, ", ")));
}

const Target& text_default_target() {
  static const Target& t = find_target("avx512");
  return t;
}

std::string missing_host_features(const Target& t) {
  std::vector<std::string> missing;
  for (const auto& f : t.required_features) {
    if (!host_features().lookup(f)) missing.push_back(f);
  }
  return fmt::format("{}", fmt::join(missing, ","));
}

const Target& host_target() {
  for (const auto& t : all_targets()) {
    if (missing_host_features(t).empty()) return t;
  }
  throw InternalError("the JIT needs a host CPU with AVX and F16C (x86-64 since 2012)");
}

const Target& runnable_target(const std::string& name, const std::string& flag) {
  const Target& t = find_target(name, flag);
  const std::string missing = missing_host_features(t);
  if (!missing.empty()) {
    throw UserError(ErrorKind::Usage, fmt::format("{}: this host cannot run {} code: it lacks {} (it runs {})", flag,
                                                  t.name, missing, host_target().name));
  }
  return t;
}

const Target& default_target() {
  // A DIFFTEST_TARGET the host cannot run throws (a usage error) at every call, not only the first.
  static std::once_flag once;
  static const Target* from_env = nullptr;
  std::call_once(once, [] {
    const char* env = std::getenv("DIFFTEST_TARGET");
    if (env && *env) from_env = &runnable_target(env, "DIFFTEST_TARGET");
  });
  return from_env ? *from_env : host_target();
}

bool has_feature(const Target& t, const std::string& feature) {
  return std::find(t.required_features.begin(), t.required_features.end(), feature) != t.required_features.end();
}

int64_t vector_lanes(const Target& t, int64_t bytes) { return std::max<int64_t>(1, t.vector_bits / 8 / bytes); }

}  // namespace difftest::target
