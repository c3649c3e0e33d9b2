#!/usr/bin/env bash
# export_backend.sh DIFFTEST SOURCE_DIR OUT_DIR: `difftest export --backend ort` writes the model
# that backend checks (backends::export_onnx_model: the program's hash as the form seed, bf16 edges
# as f32), not the default form-seed-0 export, and the same bytes every time.
set -u
difftest=$1 src=$2 out=$3
fail() { echo "FAIL: $*"; exit 1; }
prog=$src/corpus/geglu_mlp.ir
"$difftest" export "$prog" --onnx "$out/plain.onnx" > /dev/null || fail "the plain export: $?"
"$difftest" export "$prog" --backend ort --onnx "$out/ort.onnx" | grep -q "wrote .*ort.onnx" || fail "the ort export"
"$difftest" export "$prog" --backend ort --onnx "$out/ort2.onnx" > /dev/null || fail "the second ort export"
cmp -s "$out/ort.onnx" "$out/ort2.onnx" || fail "two ort exports differ"
cmp -s "$out/plain.onnx" "$out/ort.onnx" && fail "the ort export is the plain one (bf16 edges and form seed ignored)"
exit 0
