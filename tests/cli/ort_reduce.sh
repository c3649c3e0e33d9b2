#!/usr/bin/env bash
# ort_reduce.sh DIFFTEST SOURCE_DIR ORT_DIR PYTHON: `difftest reduce --backend ort` on an ONNX Runtime
# finding writes report.md in ORT's bug template naming the culprit transformer, the optimized
# graphs with and without it, the nearest legitimate form the ensemble computes and its distance,
# and two self-checking reproducers: repro.js, run here with the
# pinned onnxruntime-node, must exit 1 (the bug reproduces) and pass at 'disabled' and with the
# culprit disabled; repro.py must at least compile (this machine has no onnxruntime for Python).
# A session ORT refuses (a rewrite rule that throws) is reported as a model that fails to run,
# and repro.js prints it as the failing level's FAIL.
set -u
difftest=$1 src=$2 ort_dir=$3 python=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/out" 2>/dev/null; exit 1; }
. "$(dirname "$0")/reproducer_run.sh"
"$python" -c "import onnxruntime" 2> /dev/null || fail "$python has no onnxruntime (scripts/setup.sh installs it)"

"$difftest" reduce "$src/corpus/external/ort/matmul_scale_fusion_f64_alpha.ir" --backend ort \
  --out "$tmp/r" > "$tmp/out" 2>&1
[ $? -eq 1 ] || fail "reduce should exit 1 (a failure reduced)"
for f in report.md repro.py repro.js model.onnx optimized_with_culprits.onnx optimized_without_culprits.onnx; do
  [ -s "$tmp/r/$f" ] || fail "no $f"
done
grep -q "^### Describe the issue" "$tmp/r/report.md" || fail "report.md is not in ORT's template"
grep -q "Disabling MatMulScaleFusion" "$tmp/r/report.md" || fail "report.md does not name the culprit"
# The finding against the closest correct implementation, not only the reference (issue 42).
grep -qE "The nearest legitimate result the ensemble computes at that element is member [0-9] \(.*\): .*; the result is [0-9.e+-]+ from it" \
  "$tmp/r/report.md" || fail "report.md does not name the nearest legitimate form and its distance"
grep -q "^### ONNX Runtime Version or Commit ID" "$tmp/r/report.md" || fail "report.md has no version section"
# Both reproducers, the same verdicts.
for repro in repro.py repro.js; do
  if [ $repro = repro.py ]; then
    reproduce $repro "$python" "$tmp/r/repro.py"
  else
    reproduce $repro env NODE_PATH="$ort_dir/node_modules" node "$tmp/r/repro.js"
  fi
  grep -q "^FAIL level 'extended'" "$tmp/repro" || fail "$repro does not fail the level"
  grep -q "^PASS level 'disabled'" "$tmp/repro" || fail "$repro does not pass 'disabled'"
  grep -q "^PASS level 'extended' with MatMulScaleFusion disabled" "$tmp/repro" || fail "$repro: culprit not confirmed"
done
"$difftest" reduce "$src/corpus/external/ort/relu_clip_fusion_f64_exception.ir" --backend ort \
  --out "$tmp/c" > "$tmp/out" 2>&1
[ $? -eq 1 ] || fail "reduce of the throwing rule should exit 1"
grep -q "this model fails to run at graph optimization level" "$tmp/c/report.md" || fail "report.md: not a failure to run"
grep -q "A valid model that cannot run" "$tmp/c/report.md" || fail "report.md: urgency of a wrong result"
grep -q "silent wrong result" "$tmp/c/report.md" && fail "report.md calls a refused session a silent wrong result"
for repro in repro.py repro.js; do
  if [ $repro = repro.py ]; then
    reproduce "$repro of the refused session" "$python" "$tmp/c/repro.py"
  else
    reproduce "$repro of the refused session" env NODE_PATH="$ort_dir/node_modules" node "$tmp/c/repro.js"
  fi
  grep -q "^FAIL level 'basic': .*FuseReluClip" "$tmp/repro" || fail "$repro does not show the refused session"
  grep -q "^PASS level 'disabled'" "$tmp/repro" || fail "$repro (refused session) does not pass 'disabled'"
done
echo ok
