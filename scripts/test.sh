#!/usr/bin/env bash
# The whole test suite: set up and build everything (scripts/setup.sh --all), run every test, run `difftest gate`
# (corpus + seeds clean, and failing with a few faults on: scripts/gate_faults.sh), then build the
# tests with AddressSanitizer + UndefinedBehaviorSanitizer and run them again. The sanitizer run
# cuts long campaigns to a quarter (RapidCheck's max_success and DIFFTEST_TEST_SCALE, see
# tests/support/campaign_size.h) and leaves out the end-to-end runs (`asan_skip`): the corpus
# checked whole, reductions of each fault, campaigns with faults on. They took 990 of the
# sanitizer run's 2540 test-seconds and repeat code the unit tests take through the sanitizers.
# CI hosts differ up to threefold in speed; this keeps the whole run near 30 minutes on the
# slow ones. No test should come near ctest's --timeout: it is there so that a hang fails with
# the test's name.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
./scripts/setup.sh --all
echo "release build ready after $(( $(date +%s) - start )) s"
ctest --test-dir build --output-on-failure --timeout 900 -j 2
echo "release tests done after $(( $(date +%s) - start )) s"
# CI hosts with AVX-512 and without both run this suite. On one with it, the tests that compile
# and run kernels go again as a host with only AVX2 sees them (DIFFTEST_HOST_TARGET,
# docs/compiler.md): the default target, the schedules sized for it and the JIT's refusals.
if grep -qw avx512f /proc/cpuinfo; then
  DIFFTEST_HOST_TARGET=avx2 ctest --test-dir build --output-on-failure --timeout 900 -j 2 \
    -R '^(compiler_tests|passes_tests)\.|^cli\.target$'
  echo "release tests as an AVX2 host done after $(( $(date +%s) - start )) s"
fi
# The gate as a compiler repository's CI would run it: the corpus plus a short seed range must
# pass on the clean compiler, and it must fail with a rotating sample of faults on. Outliers
# fail it too: this is the short version of the statistical tier's false-alarm run (no
# mismatch and no outlier on the clean compiler; the long one is in docs/tolerance.md).
mkdir -p build/gate
./build/difftest gate --seeds 0..99 --budget 900 --jobs 2 --timeout 60 --fail-on outlier --out build/gate \
  --junit build/gate/junit.xml --json build/gate/gate.json
./scripts/gate_faults.sh ./build/difftest 3
echo "gate done after $(( $(date +%s) - start )) s"
# Apache TVM under the same gate, on the corpus: each entry as it expects under tvm (its own
# bugs in corpus/external/tvm/), the known TVM failures of the full-size programs in the baseline
# (each one triaged in corpus/external/tvm/, docs/backends.md).
mkdir -p build/gate-tvm
./build/difftest gate --backend tvm --jobs 2 --timeout 60 --baseline backends/tvm/gate_baseline.json \
  --out build/gate-tvm --junit build/gate-tvm/junit.xml --json build/gate-tvm/gate.json
echo "TVM gate done after $(( $(date +%s) - start )) s"
./scripts/setup.sh --sanitize
echo "sanitizer build ready after $(( $(date +%s) - start )) s"
asan_skip='^(corpus\.gate\.|oracle_tests\.Faults/ReduceFault\.|oracle_tests\.Variant\.ACampaignAttributes|'
asan_skip+='oracle_tests\.Timeouts\.AHangReduces|oracle_tests\.ReduceNoSlippage\.|cli\.fuzz_(reduce|resume|shards|fault\.)|cli\.merge_shards|cli\.report_browser|deploy\.)'
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  RC_PARAMS=max_success=25 DIFFTEST_TEST_SCALE=0.25 ctest --test-dir build-asan --output-on-failure --timeout 900 -j 2 \
  -E "$asan_skip"
echo "test suite finished in $(( $(date +%s) - start )) s"
