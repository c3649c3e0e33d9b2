#!/usr/bin/env bash
# gate_ort.sh DIFFTEST SOURCE_DIR: `difftest gate --backend ort` on the known ONNX Runtime bugs
# (corpus/external/ort). As kept, every entry shows exactly its `# expect:` signatures and the
# gate passes. An entry that lists one signature fewer shows a new one: the gate fails. An entry
# expecting a signature ORT does not show (as after an upgrade fixed the bug) fails with a
# lost-detection signature saying so. Under the builtin compiler the same entries are ok.
set -u
difftest=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/out" 2>/dev/null; exit 1; }
entry=$src/corpus/external/ort/matmul_scale_fusion_f64_alpha.ir

"$difftest" gate --corpus "$src/corpus/external/ort" --backend ort --out "$tmp/g" > "$tmp/out" 2>&1 ||
  fail "the kept ORT entries should pass the ORT gate"
grep -q "6 of its 6 known ort bugs shown" "$tmp/out" || fail "the entry's known bugs are not reported shown"

"$difftest" gate --corpus "$src/corpus/external/ort" --out "$tmp/g" > "$tmp/out" 2>&1 ||
  fail "the builtin compiler should compute the ORT entries right"
grep -q "its expected failures are ort's" "$tmp/out" || fail "the builtin gate does not say whose failures they are"

mkdir "$tmp/fewer" "$tmp/fixed"
grep -v '^# expect: mismatch|layout|' "$entry" > "$tmp/fewer/entry.ir"
"$difftest" gate --corpus "$tmp/fewer" --backend ort --out "$tmp/g" > "$tmp/out" 2>&1
[ $? -eq 1 ] || fail "an unlisted ORT failure should fail the gate"
grep -q "^  new: mismatch|layout|compare|output of attention$" "$tmp/out" || fail "the unlisted signature is not new"

sed 's/^# expect: mismatch|layout|/# expect: mismatch|basic|/' "$entry" > "$tmp/fixed/entry.ir"
"$difftest" gate --corpus "$tmp/fixed" --backend ort --out "$tmp/g" > "$tmp/out" 2>&1
[ $? -eq 1 ] || fail "a known bug ORT no longer shows should fail the gate"
grep -q "ort no longer shows mismatch|basic|compare|output of attention: fixed or changed upstream" "$tmp/out" ||
  fail "the lost known bug is not explained"
grep -q "^  new: lost-detection|entry.ir|mismatch|basic|compare|output of attention$" "$tmp/out" ||
  fail "the lost known bug has no lost-detection signature"
echo ok
