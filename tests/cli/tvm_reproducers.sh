#!/usr/bin/env bash
# tvm_reproducers.sh DIFFTEST SOURCE_DIR TVM_PYTHON: the repro_tvmscript.py of reduced builtin
# failures runs on Apache TVM 0.27 as the set-up installs it (backends/tvm/requirements.lock):
# TVM parses the module (Relax, and the T.prim_funcs called through R.call_tir with dims as
# primitive arguments), builds it at opt_level 0..3 and runs it on the failing inputs. The
# failures are faults planted in difftest's own compiler, so TVM computes each right: PASS at
# every level, exit 0. One entry of each form: a prim_func with a dim (attention with a window),
# a q4f16_1 dequantize, a symbolic reshape, a matmul. Then a program exported with its reference.
set -u
difftest=$1 src=$2 python=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/out" 2>/dev/null; exit 1; }
"$python" -c "import tvm" 2>/dev/null || fail "no TVM at $python: run scripts/setup.sh"
for name in decompose-window-off-by-one q4f16-1-zero-point-8 fold-constant-symbolic-shape matmul-vector-tail-dropped; do
  "$difftest" reduce "$src/corpus/faults/$name.ir" --inject "$name" --out "$tmp/$name" > "$tmp/out" 2>&1
  [ $? -eq 1 ] || fail "$name: the planted fault should reduce"
  (cd "$tmp/$name" && "$python" repro_tvmscript.py > "$tmp/out" 2>&1) || fail "$name: TVM did not run its reproducer"
  for level in 0 1 2 3; do
    grep -q "^PASS opt_level=$level" "$tmp/out" || fail "$name: no PASS at opt_level $level"
  done
done
# A program with no failure, exported with its reference (`difftest export --tvmscript`): every
# level judged, PASS at each; the reference altered by hand makes each level FAIL and exit 1.
"$difftest" export "$src/corpus/norms_and_softmax.ir" --tvmscript "$tmp/norms.py" > "$tmp/out" 2>&1 ||
  fail "export --tvmscript"
(cd "$tmp" && "$python" norms.py > "$tmp/out" 2>&1) || fail "TVM did not pass the exported program"
[ "$(grep -c '^PASS opt_level=' "$tmp/out")" -eq 4 ] || fail "not PASS at the four opt_levels"
# The first reference value's top byte (little-endian f64) set to 0x7f, about 1e300 times larger:
# the same module must now be judged wrong at every level.
sed -E 's/"ref_hex":"(.{14})../"ref_hex":"\17f/' "$tmp/norms.py" > "$tmp/wrong.py"
(cd "$tmp" && "$python" wrong.py > "$tmp/out" 2>&1) && fail "an altered reference should fail"
[ "$(grep -c '^FAIL opt_level=' "$tmp/out")" -eq 4 ] || fail "not FAIL at the four opt_levels"
# Quantization written as T.prim_funcs (q4_0's scales and packing): TVM 0.27 takes them only as
# scheduled TIR, the body one root sblock (without it, an internal error in HasReshapePattern).
"$difftest" export "$src/corpus/q4_0_roundtrip.ir" --tvmscript "$tmp/q4.py" > "$tmp/out" 2>&1 || fail "export q4_0"
(cd "$tmp" && "$python" q4.py > "$tmp/out" 2>&1) || fail "TVM did not pass q4_0_roundtrip"
[ "$(grep -c '^PASS opt_level=' "$tmp/out")" -eq 4 ] || fail "q4_0_roundtrip: not PASS at the four opt_levels"
"$difftest" export "$src/corpus/norms_and_softmax.ir" --tvmscript "$tmp/x.py" --onnx "$tmp/x.onnx" > "$tmp/out" 2>&1
[ $? -eq 2 ] && grep -q "give --onnx FILE or --tvmscript FILE (one of them)" "$tmp/out" || fail "both outputs at once"
echo PASS
