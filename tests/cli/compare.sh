#!/usr/bin/env bash
# compare.sh DIFFTEST SOURCE_DIR: `difftest compare` accepts the native reference's dumped
# outputs (exit 0, "verdict: ok"), rejects a perturbed output (exit 1, MISMATCH, the perturbed
# element reported as the worst), compares integer outputs exactly, prints parseable JSON with
# per-output fields under --json, generates the inputs from --seed when the directory has none,
# and exits 2 naming the file on a missing, malformed or wrongly shaped candidate.
set -u
difftest=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
py=/usr/bin/python3
$py -c "import numpy, json" 2>/dev/null || fail "/usr/bin/python3 with numpy is needed to perturb .npy files"

# Adds DELTA to element INDEX (flat) of an .npy file, keeping its dtype and shape.
perturb() {  # FILE INDEX DELTA
  $py - "$@" <<'PY' || fail "numpy could not perturb $1"
import sys, numpy as np
path, index, delta = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
a = np.load(path)
flat = a.reshape(-1).copy()
flat[index] = flat[index] + np.asarray(delta).astype(a.dtype)
np.save(path, flat.reshape(a.shape))
PY
}

# --- A float output: q4f16_1 GEMV, y: f16[1, 256].
prog=$src/corpus/q4f16_1_gemv.ir
"$difftest" eval "$prog" --mode native --seed 3 --dump "$tmp/d" > /dev/null || fail "eval --dump exited $?"
cp -r "$tmp/d" "$tmp/clean"

out=$("$difftest" compare "$prog" --got "$tmp/d" 2>&1); code=$?
[ $code -eq 0 ] || fail "clean native outputs: exit $code, expected 0
$out"
echo "$out" | grep -q "^verdict: ok$" || fail "clean native outputs: no 'verdict: ok'
$out"
echo "$out" | grep -qE "^out 0 %y: ok compared=256 uncertain=0 failing=0 " || fail "clean: per-output line
$out"
# Also within the (smaller) probabilistic bound.
"$difftest" compare "$prog" --got "$tmp/d" --bound-mode probabilistic > /dev/null || fail "clean, probabilistic: exit $?"

# Element 7 moved by 8: far beyond any bound of this output (a few tenths at most; the
# deterministic bound is printed by `eval --bounds`), so it must be the one failing element.
perturb "$tmp/d/out_0.npy" 7 8
out=$("$difftest" compare "$prog" --got "$tmp/d" 2>&1); code=$?
[ $code -eq 1 ] || fail "perturbed output: exit $code, expected 1
$out"
echo "$out" | grep -qE "^out 0 %y: MISMATCH compared=256 uncertain=0 failing=1 worst ratio=[0-9.e+]+ at \[0, 7\]" ||
  fail "perturbed output: MISMATCH line
$out"
echo "$out" | grep -q "^verdict: mismatch$" || fail "perturbed output: verdict
$out"

# --json: parseable, the verdict and per-output fields, the same exit code.
"$difftest" compare "$prog" --got "$tmp/d" --json > "$tmp/c.json"; code=$?
[ $code -eq 1 ] || fail "--json on the perturbed output: exit $code, expected 1"
$py - "$tmp/c.json" <<'PY' || fail "--json output: $(cat "$tmp/c.json")"
import sys, json
j = json.load(open(sys.argv[1]))
assert j["passed"] is False and j["program"] == "q4f16_1_gemv", j
assert j["bound_mode"] == "deterministic" and j["safety"] == 2, j
assert len(j["outputs"]) == 1, j
o = j["outputs"][0]
for field in ("index", "name", "dtype", "exact", "compared", "uncertain", "failing", "passed", "worst"):
    assert field in o, field
assert (o["index"], o["name"], o["dtype"], o["exact"]) == (0, "%y", "f16", False), o
assert (o["compared"], o["uncertain"], o["failing"], o["passed"]) == (256, 0, 1, False), o
w = o["worst"]
assert w["index"] == [0, 7], w
assert w["ratio"] > 2 and abs(w["got"] - w["want"]) > 2 * w["bound"], w
PY
"$difftest" compare "$prog" --got "$tmp/clean" --json --bound-mode probabilistic --lambda 5 > "$tmp/ok.json" ||
  fail "--json on clean outputs: exit $?"
$py - "$tmp/ok.json" <<'PY' || fail "--json clean output: $(cat "$tmp/ok.json")"
import sys, json
j = json.load(open(sys.argv[1]))
assert j["passed"] is True and j["bound_mode"] == "probabilistic" and j["lambda"] == 5, j
assert j["outputs"][0]["failing"] == 0 and j["outputs"][0]["worst"]["ratio"] <= 2, j
PY

# Without in_*.npy the inputs are generated from --seed: the dump's seed agrees, another not.
mkdir "$tmp/outs_only" && cp "$tmp/clean/out_0.npy" "$tmp/outs_only/"
"$difftest" compare "$prog" --got "$tmp/outs_only" --seed 3 > /dev/null || fail "generated inputs, same seed: exit $?"
out=$("$difftest" compare "$prog" --got "$tmp/outs_only" --seed 4 2>&1); code=$?
[ $code -eq 1 ] || fail "generated inputs, another seed: exit $code, expected 1
$out"

# Bad candidates: exit 2 and the file named.
rm "$tmp/d/out_0.npy"
out=$("$difftest" compare "$prog" --got "$tmp/d" 2>&1); code=$?
[ $code -eq 2 ] && echo "$out" | grep -q "missing candidate output '$tmp/d/out_0.npy'" ||
  fail "missing out_0.npy: exit $code
$out"
printf 'not a npy file' > "$tmp/d/out_0.npy"
out=$("$difftest" compare "$prog" --got "$tmp/d" 2>&1); code=$?
[ $code -eq 2 ] && echo "$out" | grep -q "error\[io\]: $tmp/d/out_0.npy: not a .npy file" || fail "malformed out_0.npy: exit $code
$out"
head -c 200 "$tmp/clean/out_0.npy" > "$tmp/d/out_0.npy"  # a valid header, truncated data
out=$("$difftest" compare "$prog" --got "$tmp/d" 2>&1); code=$?
[ $code -eq 2 ] && echo "$out" | grep -q "error\[io\]: $tmp/d/out_0.npy: holds 72 data bytes" || fail "truncated out_0.npy: exit $code
$out"
cp "$tmp/clean/in_x.npy" "$tmp/d/out_0.npy"  # f16[1, 512] where f16[1, 256] is expected
out=$("$difftest" compare "$prog" --got "$tmp/d" 2>&1); code=$?
[ $code -eq 2 ] && echo "$out" | grep -q "output 0 (%y)" || fail "wrongly shaped out_0.npy: exit $code
$out"

# --- Integer outputs are compared exactly: one unit off in %q (i32) is a mismatch.
prog=$src/corpus/integer_and_bool_ops.ir
"$difftest" eval "$prog" --bind n=5 --mode native --dump "$tmp/i" > /dev/null || fail "eval --dump (integers) exited $?"
out=$("$difftest" compare "$prog" --got "$tmp/i" 2>&1) || fail "clean integer outputs: exit $?
$out"
echo "$out" | grep -q "under n=5" || fail "binding not taken from the inputs: $out"
perturb "$tmp/i/out_0.npy" 2 1
out=$("$difftest" compare "$prog" --got "$tmp/i" 2>&1); code=$?
[ $code -eq 1 ] || fail "integer off by one: exit $code, expected 1
$out"
echo "$out" | grep -qE "^out 0 %q: MISMATCH compared=5 uncertain=0 failing=1 worst ratio=inf at \[2\]" ||
  fail "integer off by one: MISMATCH line
$out"
echo "$out" | grep -qE "^out 1 %r: ok " || fail "integer off by one: the other outputs
$out"
echo ok
