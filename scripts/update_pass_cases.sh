#!/usr/bin/env bash
# Rewrites the expected outputs of the pass cases (tests/passes/<Pass>/*.ir) from what the
# passes give now: each case whose output differs is rewritten and reported as a failure, so
# that nothing changes unseen. Read `git diff tests/passes` before you keep it.
#   scripts/update_pass_cases.sh [PASS]    only the cases of PASS (e.g. FoldConstant)
set -euo pipefail
cd "$(dirname "$0")/.."
filter="Files/PassCases.*/${1:-}*"
ninja -C build passes_tests > /dev/null
DIFFTEST_UPDATE_PASS_CASES=1 ./build/tests/passes_tests --gtest_filter="$filter" --gtest_brief=1 || true
git diff --stat -- tests/passes
