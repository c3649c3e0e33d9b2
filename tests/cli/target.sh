#!/usr/bin/env bash
# target.sh DIFFTEST SOURCE_DIR: --target picks the machine the schedules and the JIT target
# (AVX2 code checked on any host that runs it), a bad target is a usage error, the target is
# recorded in every verdict and replayed from it, and a campaign resumes only on its own target.
set -u
difftest=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/out" 2>/dev/null; exit 1; }

"$difftest" --seed 1 --target avx2 > "$tmp/out" 2>&1 || fail "--seed 1 --target avx2 did not pass"
grep -q "^seed 1 .* for target avx2" "$tmp/out" || fail "the verdict does not name the target"

"$difftest" --seed 1 --target sse2 > "$tmp/out" 2>&1
[ $? -eq 2 ] || fail "an unknown target is not a usage error"
grep -q "error\[usage\]: --target: unknown target 'sse2' (known: avx512, avx2, avx)" "$tmp/out" || fail "message"

"$difftest" compile "$src/corpus/gemma3_local_attention.ir" --opt O3 --target avx2 > "$tmp/out" 2>&1 ||
  fail "compile --target avx2"
grep -q "^target(avx2)$" "$tmp/out" || fail "the loop module does not say its target"
grep -q ", 0, 8) vectorized" "$tmp/out" || fail "no 8-lane f32 loop for avx2"
grep -q ", 0, 32) vectorized" "$tmp/out" && fail "a 32-wide matmul tile row for avx2 (two 8-lane vectors make 16)"
# Any target's loop IR prints on any host; avx512's tile rows are two 16-lane vectors.
"$difftest" compile "$src/corpus/gemma3_local_attention.ir" --opt O3 --target avx512 > "$tmp/out" 2>&1 ||
  fail "compile --target avx512"
grep -q "^target(" "$tmp/out" && fail "the text default target printed"
grep -q ", 0, 32) vectorized" "$tmp/out" || fail "no 32-wide matmul tile row for avx512"
# And its LLVM IR after the O3 level's passes, for either target, on any host: the tile rows'
# products are as wide as the loop IR's rows.
for t in avx2:16 avx512:32; do
  "$difftest" compile "$src/corpus/gemma3_local_attention.ir" --opt O3 --target "${t%:*}" --emit llvm-opt \
    > "$tmp/out" 2>&1 || fail "compile --emit llvm-opt --target ${t%:*}"
  grep -q "fmul <${t#*:} x float>" "$tmp/out" || fail "no ${t#*:}-lane f32 product in the ${t%:*} LLVM IR"
done
grep -q "fmul <16 x float>" "$tmp/out" && fail "avx512's LLVM IR has avx2's rows"
"$difftest" compile "$src/corpus/gemma3_local_attention.ir" --passes LegalizeOps --passes-llvm 4 > "$tmp/out" 2>&1
[ $? -eq 2 ] || fail "--passes-llvm 4 is not a usage error"

flags=(--seeds 5..10 --jobs 1 --random-bindings 0 --opt O1 --orders 0 --inject mul-drops-tail --out "$tmp/c")
"$difftest" fuzz "${flags[@]}" --target avx2 > "$tmp/out" 2>&1
[ $? -eq 1 ] || fail "the faulty campaign found nothing"
verdict=$(ls "$tmp"/c/failures/*/verdict.json | head -1)
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["target"] == "avx2"' "$verdict" ||
  fail "$verdict does not record the target"
"$difftest" bisect "$(dirname "$verdict")/program.ir" > "$tmp/out" 2>&1
grep -q "target avx2 recorded beside .*: compiled for it" "$tmp/out" || fail "bisect did not replay the target"
grep -q "LegalizeOps" "$tmp/out" || fail "bisect did not find the faulty pass"

# A campaign resumes only on the target it began with (the schedules differ between targets).
"$difftest" fuzz "${flags[@]}" --target avx --resume > "$tmp/out" 2>&1
[ $? -eq 2 ] || fail "a campaign on avx2 resumed on avx"
grep -q "other settings" "$tmp/out" || fail "the refusal does not say why"
echo "ok: --target"
