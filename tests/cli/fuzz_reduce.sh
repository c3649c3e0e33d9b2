#!/usr/bin/env bash
# fuzz_reduce.sh DIFFTEST: `fuzz --reduce` with a fault injected reduces each distinct failure it
# saves into failures/*/reduced/ (a program that parses, blames the pass the fault lives in and
# still fails with the fault on), lists them in reductions.json, and a resumed campaign does
# not reduce them again.
set -u
difftest=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/out" 2>/dev/null; exit 1; }
# --reduce-time is wall clock and a cap: generous, so that a slow host running other tests
# beside this one still reduces to the end (about 10 s here; a cut-short reduction keeps more ops).
flags=(--seeds 5..10 --jobs 2 --timeout 60 --random-bindings 0 --opt O1 --orders 0 --inject mul-drops-tail
       --reduce --reduce-time 600 --out "$tmp/c")

"$difftest" fuzz "${flags[@]}" > "$tmp/out" 2>&1
code=$?
[ "$code" -eq 1 ] || fail "exit code $code, expected 1 (a failure found)"
[ -f "$tmp/c/reductions.json" ] || fail "no reductions.json"
python3 - "$tmp/c/reductions.json" <<'PY' || fail "reductions.json is not as expected"
import json, sys
entries = json.load(open(sys.argv[1]))
assert entries, "no reduction"
for e in entries:
    assert e["reduced"], e
    assert e["culprit"] == "LegalizeOps", e   # mul-drops-tail lives in LegalizeOps
    assert not e["timed_out"], e
    assert 1 <= e["ops_after"] <= min(5, e["ops_before"]), e
    assert e["oracle_calls"] > 0, e
PY
dir=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["dir"])' "$tmp/c/reductions.json")
for f in repro.ir verdict.json report.md repro_tvmscript.py; do [ -f "$dir/$f" ] || fail "reduction lacks $f"; done
"$difftest" run "$dir/repro.ir" --opt O1 --orders 0 --inject mul-drops-tail > "$tmp/run" 2>&1
[ $? -eq 1 ] || { cat "$tmp/run"; fail "the reduced program does not fail with the fault on"; }
"$difftest" run "$dir/repro.ir" --opt O1 --orders 0 > "$tmp/run" 2>&1
[ $? -eq 0 ] || { cat "$tmp/run"; fail "the reduced program fails without the fault"; }

"$difftest" fuzz "${flags[@]}" --resume > "$tmp/out" 2>&1
grep -q "reduced by an earlier run" "$tmp/out" || fail "a resumed campaign reduced a failure again"
python3 - "$tmp/c/reductions.json" <<'PY' || fail "the resumed campaign's reductions.json lost the earlier record"
import json, sys
for e in json.load(open(sys.argv[1])):
    assert e["reduced"] and e["culprit"] == "LegalizeOps" and e["ops_after"] >= 1, e
    assert e["note"] == "reduced by an earlier run of this campaign", e
PY
echo "ok: fuzz --reduce"
