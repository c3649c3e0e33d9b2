#!/usr/bin/env bash
# unchecked.sh DIFFTEST SOURCE_DIR: an output with too few elements compared is never ok.
# - `compare` of a bool output x < x flipped whole is a mismatch (the bounds know the operands
#   are one value); before, no element was compared and it printed "verdict: ok".
# - `compare` and `run` of an output no element of which can be compared say "unchecked" and
#   exit 4; a gate corpus entry that expects ok fails on it.
# - a campaign whose only non-ok verdicts are unchecked exits 0, and 1 with --fail-on unchecked.
set -u
difftest=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
py=/usr/bin/python3

# --- x < x, every element false; the candidate says true everywhere.
"$difftest" eval "$src/tests/cli/self_compare.ir" --mode native --dump "$tmp/self" > /dev/null || fail "eval --dump: $?"
out=$("$difftest" compare "$src/tests/cli/self_compare.ir" --got "$tmp/self" 2>&1); code=$?
[ $code -eq 0 ] || fail "x < x as computed: exit $code, expected 0
$out"
$py - "$tmp/self/out_0.npy" <<'PY' || fail "numpy could not flip the output"
import sys, numpy as np
a = np.load(sys.argv[1])
assert a.dtype == np.bool_ and not a.any(), a
np.save(sys.argv[1], ~a)
PY
out=$("$difftest" compare "$src/tests/cli/self_compare.ir" --got "$tmp/self" 2>&1); code=$?
[ $code -eq 1 ] || fail "x < x flipped to true: exit $code, expected 1
$out"
echo "$out" | grep -qE "^out 0 %y: MISMATCH compared=16 uncertain=0 failing=16 " || fail "flipped: the output line
$out"
echo "$out" | grep -q "^verdict: mismatch$" || fail "flipped: the verdict
$out"

# --- x < x + 0: nothing comparable.
prog=$src/tests/cli/uncomparable.ir
"$difftest" eval "$prog" --mode native --dump "$tmp/unc" > /dev/null || fail "eval --dump: $?"
out=$("$difftest" compare "$prog" --got "$tmp/unc" 2>&1); code=$?
[ $code -eq 4 ] || fail "an uncomparable output: compare exit $code, expected 4
$out"
echo "$out" | grep -qE "^out 0 %b: UNCHECKED compared=0 uncertain=16 " || fail "compare: the output line
$out"
echo "$out" | grep -q "^verdict: unchecked$" || fail "compare: the verdict
$out"
"$difftest" compare "$prog" --got "$tmp/unc" --json > "$tmp/c.json"; code=$?
[ $code -eq 4 ] || fail "compare --json: exit $code, expected 4"
$py -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['verdict']=='unchecked' and j['unchecked'], j" "$tmp/c.json" ||
  fail "compare --json: $(cat "$tmp/c.json")"
out=$("$difftest" run "$prog" --opt O0 --orders 0 --random-bindings 0 2>&1); code=$?
[ $code -eq 4 ] || fail "run: exit $code, expected 4
$out"
echo "$out" | grep -q "^verdict: unchecked$" || fail "run: the verdict
$out"

# --- a corpus entry that expects ok and is unchecked fails the gate.
mkdir "$tmp/corpus"
{ echo "# expect: ok"; cat "$prog"; } > "$tmp/corpus/uncomparable.ir"
out=$("$difftest" gate --corpus "$tmp/corpus" --opt O0 --orders 0 --random-bindings 0 --out "$tmp/g" 2>&1); code=$?
[ $code -eq 1 ] || fail "gate on an unchecked entry: exit $code, expected 1
$out"
echo "$out" | grep -qE "new: +unchecked\|O0\|compare\|output of less" || fail "gate: the unchecked signature
$out"
