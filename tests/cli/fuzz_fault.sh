#!/usr/bin/env bash
# fuzz_fault.sh DIFFTEST FAULT KIND SEEDS TIMEOUT: a campaign with FAULT injected finishes (exit 1, a
# summary printed), reports at least one KIND verdict, saves that failure once as a reproducer
# that records the fault, and never reports the fault as a different compiler failure kind.
set -u
difftest=$1 fault=$2 kind=$3 seeds=$4 timeout=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/out" 2>/dev/null; exit 1; }

"$difftest" fuzz --seeds "$seeds" --jobs 2 --timeout "$timeout" --random-bindings 0 --opt O0 --orders 0 --inject "$fault" --out "$tmp/c" > "$tmp/out" 2>&1
code=$?
[ "$code" -eq 1 ] || fail "exit code $code, expected 1 (a failure found)"
grep -qE "^  $kind +[1-9]" "$tmp/out" || fail "no $kind verdict in the summary"
grep -q "harness_error" "$tmp/out" && fail "the harness reported its own error"
for other in mismatch compile_crash compile_reject runtime_crash timeout; do
  [ "$other" = "$kind" ] && continue
  grep -qE "^  $other +[1-9]" "$tmp/out" && fail "$fault also produced $other verdicts"
done
dir=$(ls -d "$tmp/c/failures/$kind"-* 2>/dev/null | head -1)
[ -n "$dir" ] || fail "no reproducer saved under failures/$kind-*"
for f in program.ir verdict.json README.txt; do [ -f "$dir/$f" ] || fail "reproducer lacks $f"; done
grep -q "\"$fault\"" "$dir/verdict.json" || fail "the reproducer's verdict.json does not record the fault"
"$difftest" check -q "$dir/program.ir" || fail "the saved program does not parse"
echo "ok: $fault -> $kind"
