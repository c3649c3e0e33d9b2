#!/usr/bin/env bash
# tvm_reproducers.sh DIFFTEST SOURCE_DIR TVM_PYTHON: the repro_tvmscript.py of reduced builtin
# failures runs on Apache TVM 0.27 as the set-up installs it (backends/tvm/requirements.lock):
# TVM parses the module (Relax, and the T.prim_funcs called through R.call_tir with dims as
# primitive arguments), builds it at opt_level 0..3 and runs it on the failing inputs. The
# failures are faults planted in difftest's own compiler, so TVM computes each right: PASS at
# every level, exit 0. One entry of each form: a prim_func with a dim (attention with a window),
# a q4f16_1 dequantize, a symbolic reshape, a matmul.
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
echo PASS
