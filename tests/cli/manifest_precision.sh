#!/usr/bin/env bash
# manifest_precision.sh DIFFTEST SOURCE_DIR: a level that computes in bf16 (the stand-in's `narrow`,
# which rounds its f32 results to bf16 as an inference precision of bf16 would) is judged against the
# program computed in bf16 (its manifest's `precision`) and passes, while the same results at a level
# that declares no precision (`rounded`) are a mismatch; a level that `needs` a capability the
# worker does not report is left out of the default check; a bad precision is refused by field.
source "$(dirname "$0")/standin_setup.sh" "$@"
cat > "$tmp/p.ir" <<'IR'
program @layer(n: 1..16) {
  %x: f32[n, 24] = param
  %w: f32[24, 8] = param
  %y: f32[n, 8] = matmul(%x, %w)
  %e: f32[n, 8] = exp(%y)
  %s: f32[n, 8] = softmax(%y, axis=-1)
  return %e, %s
}
IR

"$difftest" run "$tmp/p.ir" --backend "$m" --opt rounded > "$tmp/out" 2>&1
[ $? -eq 1 ] || fail "bf16-rounded results should fail against the f32 program's allowance"
grep -Eq "^  rounded .* mismatch " "$tmp/out" || fail "no mismatch at rounded"

"$difftest" run "$tmp/p.ir" --backend "$m" --opt narrow > "$tmp/out" 2>&1
[ $? -eq 0 ] || fail "bf16-rounded results are within the program computed in bf16"
grep -Eq "^  narrow .* ok " "$tmp/out" || fail "narrow did not pass"

# The default check: `narrow` needs BF16, which the worker reports only when told to.
"$difftest" run "$tmp/p.ir" --backend "$m" > "$tmp/out" 2>&1
[ $? -eq 0 ] || fail "the default check without narrow should pass"
grep -q "narrow" "$tmp/out" && fail "narrow ran though the worker does not report BF16"
STANDIN_CAPABILITIES=BF16,AMX "$difftest" run "$tmp/p.ir" --backend "$m" > "$tmp/out" 2>&1
[ $? -eq 0 ] || fail "the default check with narrow should pass"
grep -Eq "^  narrow .* ok " "$tmp/out" || fail "narrow did not run where the worker reports BF16"
grep -Eq "^  plain~narrow .* ok " "$tmp/out" || fail "narrow was not cross-checked with the baseline"

sed 's/"precision": "bf16"/"precision": "f64"/' "$m" > "$tmp/si/bad.json"
"$difftest" run "$tmp/p.ir" --backend "$tmp/si/bad.json" > "$tmp/out" 2>&1
[ $? -eq 2 ] || fail "a precision other than bf16 or f16 should be a usage error"
grep -q 'field "levels\[2\].precision": .f64. is not bf16 or f16' "$tmp/out" || fail "the error does not name the field"
echo "PASS"
