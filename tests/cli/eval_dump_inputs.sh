#!/usr/bin/env bash
# eval_dump_inputs.sh DIFFTEST SOURCE_DIR: `eval --dump` writes .npy files that NumPy reads and
# that `eval --inputs` reads back to the same outputs; bad input directories exit 2 with the
# file named.
set -u
difftest=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

prog=$src/corpus/q4_0_roundtrip.ir
out1=$("$difftest" eval "$prog" --bind n=3 --mode native --seed 5 --dump "$tmp/d") || fail "eval --dump exited $?"
[ -f "$tmp/d/in_w.npy" ] && [ -f "$tmp/d/in_x.npy" ] && [ -f "$tmp/d/out_0.npy" ] && [ -f "$tmp/d/out_1.npy" ] &&
  [ -f "$tmp/d/README.txt" ] || fail "dump files missing: $(ls "$tmp/d")"
out2=$("$difftest" eval "$prog" --mode native --inputs "$tmp/d") || fail "eval --inputs exited $?"
# Same binding (n=3, taken from the input shapes) and the same output hashes.
[ "$(echo "$out1" | grep '^out' )" = "$(echo "$out2" | grep '^out')" ] || fail "outputs differ:
$out1
$out2"
echo "$out2" | grep -q "under n=3" || fail "binding not taken from the inputs: $out2"

# NumPy (Debian's python3-numpy) reads what we write.
py=/usr/bin/python3
if $py -c "import numpy" 2>/dev/null; then
  $py - "$tmp/d" <<'PY' || fail "numpy could not read the dump"
import sys, numpy as np
d = sys.argv[1]
w = np.load(d + "/in_w.npy"); y = np.load(d + "/out_0.npy")
assert w.dtype == np.float32 and w.shape == (3, 64), (w.dtype, w.shape)
assert y.dtype == np.float32 and y.shape == (2, 3), (y.dtype, y.shape)
assert np.isfinite(y).all()
PY
else
  echo "note: /usr/bin/python3 has no numpy; NumPy cross-check skipped"
fi

# Bad input directories.
out=$("$difftest" eval "$prog" --inputs "$tmp/nowhere" 2>&1); code=$?
[ $code -eq 2 ] && echo "$out" | grep -q "missing input file '$tmp/nowhere/in_w.npy'" || fail "missing dir: $code $out"
cp "$tmp/d/out_0.npy" "$tmp/d/in_w.npy"   # f32[2, 3]: wrong shape for %w: f32[n, 64]
out=$("$difftest" eval "$prog" --inputs "$tmp/d" 2>&1); code=$?
[ $code -eq 2 ] && echo "$out" | grep -q "in_w.npy\|%w" || fail "wrong shape: $code $out"
printf 'not a npy file' > "$tmp/d/in_w.npy"
out=$("$difftest" eval "$prog" --inputs "$tmp/d" 2>&1); code=$?
[ $code -eq 2 ] && echo "$out" | grep -q "in_w.npy: not a .npy file" || fail "garbage npy: $code $out"
"$difftest" eval "$src/corpus/geglu_mlp.ir" --dump "$tmp/g" > /dev/null || fail "geglu dump"
out=$("$difftest" eval "$prog" --inputs "$tmp/g" 2>&1); code=$?
[ $code -eq 2 ] || fail "foreign inputs accepted: $out"
echo ok
