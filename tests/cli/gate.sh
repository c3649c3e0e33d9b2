#!/usr/bin/env bash
# gate.sh DIFFTEST: `difftest gate` passes a clean corpus (exit 0) and fails on a new signature
# (exit 1), writes JUnit XML and JSON that parse, learns a baseline with --update-baseline after
# which the same failure passes as known, and refuses bad input with exit 2.
set -u
difftest=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/out" 2>/dev/null; exit 1; }
mkdir "$tmp/corpus"
cat > "$tmp/corpus/mul.ir" <<'IR'
# expect: ok
program @mul(n: 1..8) {
  %a: f32[n, 4] = param
  %b: f32[n, 4] = param
  %y: f32[n, 4] = mul(%a, %b)
  return %y
}
IR
quick=(--corpus "$tmp/corpus" --opt O0 --orders 0 --random-bindings 0 --timeout 60 --out "$tmp/g")

"$difftest" gate "${quick[@]}" --seeds 0..3 --batch 2 --junit "$tmp/ok.xml" --json "$tmp/ok.json" > "$tmp/out" 2>&1
[ $? -eq 0 ] || fail "a clean corpus did not pass"
python3 - "$tmp/ok.xml" "$tmp/ok.json" <<'PY' || fail "the clean gate's reports are not as expected"
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = root.findall(".//testcase")
assert [c.get("name") for c in cases][1:] == ["seeds 0..1", "seeds 2..3"], [c.get("name") for c in cases]
assert cases[0].get("name").endswith("mul.ir"), cases[0].get("name")
assert root.get("failures") == "0" and not root.findall(".//failure")
j = json.load(open(sys.argv[2]))
assert j["passed"] is True and j["new"] == [] and j["programs"] == 4, j
PY

"$difftest" gate "${quick[@]}" --inject mul-drops-tail --junit "$tmp/bad.xml" --json "$tmp/bad.json" > "$tmp/out" 2>&1
[ $? -eq 1 ] || fail "a new signature did not fail the gate"
grep -q "gate: FAILED" "$tmp/out" || fail "no FAILED summary"
python3 - "$tmp/bad.xml" "$tmp/bad.json" <<'PY' || fail "the failing gate's reports are not as expected"
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
failures = root.findall(".//failure")
assert len(failures) == 1 and "mismatch|O0|compare|output of mul" in failures[0].get("message"), failures
j = json.load(open(sys.argv[2]))
assert j["passed"] is False and "mismatch|O0|compare|output of mul" in j["new"], j
PY

# Failing seeds are named with their variant, binding, reproducer and a command to rerun them.
"$difftest" gate --corpus none --opt O0 --orders 0 --random-bindings 0 --timeout 60 --out "$tmp/g" --seeds 5..10 \
  --inject mul-drops-tail --junit "$tmp/seeds.xml" \
  --json "$tmp/seeds.json" > "$tmp/out" 2>&1
[ $? -eq 1 ] || fail "failing seeds did not fail the gate"
python3 - "$tmp/seeds.xml" "$tmp/seeds.json" <<'PY' || fail "the failing seeds are not named in the reports"
import json, os, sys, xml.etree.ElementTree as ET
j = json.load(open(sys.argv[2]))
failures = j["new_failures"]
assert failures, j
for f in failures:
    assert isinstance(f["seed"], int) and 5 <= f["seed"] <= 10, f
    assert f["variant"] and f["signature"].startswith("mismatch|"), f
    assert f["rerun"] == f"difftest --seed {f['seed']} --inject mul-drops-tail", f
    assert f["reproducer"] == "" or os.path.isfile(os.path.join(f["reproducer"], "program.ir")), f
assert any(f["reproducer"] for f in failures), "no failure points to a saved reproducer"
text = " ".join(e.text or "" for e in ET.parse(sys.argv[1]).getroot().iter("failure"))
first = failures[0]
assert f"seed {first['seed']}, {first['variant']}" in text and "reproducer:" in text and "rerun: difftest --seed" in text, text
PY

# The budget caps the whole gate: a corpus it cannot reach fails it, and says so.
"$difftest" gate "${quick[@]}" --budget 0.001 --json "$tmp/budget.json" > "$tmp/out" 2>&1
[ $? -eq 1 ] || fail "a corpus the budget did not reach passed the gate"
grep -q "the budget ran out during the corpus: 1 of 1 entries not checked" "$tmp/out" || fail "no word of the skipped corpus"
grep -q '"corpus_skipped": 1' "$tmp/budget.json" || fail "the JSON does not count the skipped entry"

"$difftest" gate "${quick[@]}" --inject mul-drops-tail --baseline "$tmp/base.json" --update-baseline > "$tmp/out" 2>&1
[ $? -eq 0 ] || fail "--update-baseline did not pass"
grep -q "output of mul" "$tmp/base.json" || fail "the baseline lacks the signature"
"$difftest" gate "${quick[@]}" --inject mul-drops-tail --baseline "$tmp/base.json" > "$tmp/out" 2>&1
[ $? -eq 0 ] || fail "a baselined signature failed the gate"
grep -q "^known" "$tmp/out" || fail "the baselined failure is not reported as known"

# An outlier (inside the sound bounds, biased) is noted without failing, unless --fail-on outlier.
mkdir "$tmp/bf16"
cat > "$tmp/bf16/projection.ir" <<'IR'
# expect: ok
program @projection(n: 1..8) {
  %a: bf16[n, 64] = param
  %w: bf16[64, 512] = param
  %y: bf16[n, 512] = matmul(%a, %w, acc=f32)
  return %y
}
IR
bf16=(--corpus "$tmp/bf16" --opt O0 --orders 0 --random-bindings 0 --timeout 60 --out "$tmp/g" --inject bf16-round-truncates)
"$difftest" gate "${bf16[@]}" --json "$tmp/noted.json" > "$tmp/out" 2>&1
[ $? -eq 0 ] || fail "an outlier failed the gate without --fail-on outlier"
grep -q "noted: outlier|O0|compare|output of matmul" "$tmp/out" || fail "the outlier is not noted"
grep -q '"noted"' "$tmp/noted.json" || fail "the JSON has no noted outliers"
"$difftest" gate "${bf16[@]}" --fail-on outlier > "$tmp/out" 2>&1
[ $? -eq 1 ] || fail "an outlier passed the gate with --fail-on outlier"
grep -q "new:   outlier|O0|compare|output of matmul" "$tmp/out" || fail "the outlier is not a new signature"
"$difftest" gate "${bf16[@]}" --fail-on mismatch > "$tmp/out" 2>&1
[ $? -eq 2 ] || fail "--fail-on with an unknown kind was not refused"

printf '{\n  "signatures": [\n    oops\n' > "$tmp/broken.json"
"$difftest" gate "${quick[@]}" --baseline "$tmp/broken.json" > "$tmp/out" 2>&1
[ $? -eq 2 ] || fail "a malformed baseline was not refused with exit 2"
grep -q "broken.json:3:5: error\[syntax\]" "$tmp/out" || fail "the malformed baseline's error is not located"
"$difftest" gate "${quick[@]}" --update-baseline > "$tmp/out" 2>&1
[ $? -eq 2 ] || fail "--update-baseline without --baseline was not refused"
"$difftest" gate --corpus "$tmp/missing" > "$tmp/out" 2>&1
[ $? -eq 2 ] || fail "a missing corpus was not refused"
echo "ok: gate"
