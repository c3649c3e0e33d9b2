#!/usr/bin/env bash
# The whole test suite: set up and build (scripts/setup.sh), run every test, then build the
# tests with AddressSanitizer + UndefinedBehaviorSanitizer and run them again.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
./scripts/setup.sh
ctest --test-dir build --output-on-failure -j 2
./scripts/setup.sh --sanitize
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j 2
echo "test suite finished in $(( $(date +%s) - start )) s"
