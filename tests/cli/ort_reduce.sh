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
"$python" "$tmp/r/repro.py" > "$tmp/py" 2>&1
code=$?
cat "$tmp/py" >> "$tmp/out"
[ $code -eq 1 ] || fail "repro.py exit code $code, expected 1 (the bug reproduces)"
grep -q "^FAIL level 'extended'" "$tmp/py" || fail "repro.py does not fail the level"
grep -q "^PASS level 'disabled'" "$tmp/py" || fail "repro.py does not pass 'disabled'"
grep -q "^PASS level 'extended' with MatMulScaleFusion disabled" "$tmp/py" || fail "repro.py: culprit not confirmed"
NODE_PATH="$ort_dir/node_modules" node "$tmp/r/repro.js" > "$tmp/js" 2>&1
code=$?
cat "$tmp/js" >> "$tmp/out"
[ $code -eq 1 ] || fail "repro.js exit code $code, expected 1 (the bug reproduces)"
grep -q "^FAIL level 'extended'" "$tmp/js" || fail "repro.js does not fail the level"
grep -q "^PASS level 'disabled'" "$tmp/js" || fail "repro.js does not pass 'disabled'"
grep -q "^PASS level 'extended' with MatMulScaleFusion disabled" "$tmp/js" || fail "repro.js: culprit not confirmed"
"$difftest" reduce "$src/corpus/external/ort/relu_clip_fusion_f64_exception.ir" --backend ort \
  --out "$tmp/c" > "$tmp/out" 2>&1
[ $? -eq 1 ] || fail "reduce of the throwing rule should exit 1"
grep -q "this model fails to run at graph optimization level" "$tmp/c/report.md" || fail "report.md: not a failure to run"
grep -q "A valid model that cannot run" "$tmp/c/report.md" || fail "report.md: urgency of a wrong result"
grep -q "silent wrong result" "$tmp/c/report.md" && fail "report.md calls a refused session a silent wrong result"
"$python" "$tmp/c/repro.py" > "$tmp/py" 2>&1
code=$?
cat "$tmp/py" >> "$tmp/out"
[ $code -eq 1 ] || fail "repro.py of the refused session: exit code $code, expected 1"
grep -q "^FAIL level 'basic': .*FuseReluClip" "$tmp/py" || fail "repro.py does not show the refused session"
grep -q "^PASS level 'disabled'" "$tmp/py" || fail "repro.py (refused session) does not pass 'disabled'"
NODE_PATH="$ort_dir/node_modules" node "$tmp/c/repro.js" > "$tmp/js" 2>&1
code=$?
cat "$tmp/js" >> "$tmp/out"
[ $code -eq 1 ] || fail "repro.js of the refused session: exit code $code, expected 1"
grep -q "^FAIL level 'basic': .*FuseReluClip" "$tmp/js" || fail "repro.js does not show the refused session"
grep -q "^PASS level 'disabled'" "$tmp/js" || fail "repro.js (refused session) does not pass 'disabled'"
echo ok
