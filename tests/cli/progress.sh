#!/usr/bin/env bash
# progress.sh DIFFTEST: fuzz, gate, reduce and bisect report progress when their output is a log,
# not a terminal: a plain status line at a cadence (DIFFTEST_PROGRESS_EVERY=0 here: every update)
# and always a last one, so a CI log shows what a long command is doing.
set -u
difftest=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/err" 2>/dev/null | tail -20; exit 1; }
quick=(--opt O0 --orders 0 --random-bindings 0 --timeout 60)

DIFFTEST_PROGRESS_EVERY=0 "$difftest" fuzz --seeds 0..3 "${quick[@]}" --out "$tmp/f" > "$tmp/out" 2> "$tmp/err"
[ $? -le 1 ] || fail "fuzz"
grep -qE "^fuzz: +[0-4]/4 +[0-9.]+/s +failures 0 " "$tmp/err" || fail "fuzz printed no progress line"
# Without the override a log still gets the last status line when the campaign ends.
"$difftest" fuzz --seeds 0..1 "${quick[@]}" --out "$tmp/f2" > "$tmp/out" 2> "$tmp/err"
grep -qE "^fuzz: +2/2 " "$tmp/err" || fail "fuzz printed no final progress line"

mkdir "$tmp/corpus"
cat > "$tmp/corpus/exp.ir" <<'IR'
# expect: ok
program @e(n: 1..4) {
  %a: f32[n, 4] = param
  %y: f32[n, 4] = exp(%a)
  return %y
}
IR
DIFFTEST_PROGRESS_EVERY=0 "$difftest" gate --corpus "$tmp/corpus" --seeds 0..1 "${quick[@]}" --out "$tmp/g" \
  > "$tmp/out" 2> "$tmp/err"
[ $? -eq 0 ] || fail "gate"
grep -q "^gate: corpus 0/1 " "$tmp/err" || fail "gate printed no corpus progress"
grep -q "^gate: seeds " "$tmp/err" || fail "gate printed no seed progress"

cat > "$tmp/mul.ir" <<'IR'
program @m() {
  %a: f32[2, 8] = param
  %b: f32[2, 8] = param
  %y: f32[2, 8] = mul(%a, %b)
  %z: f32[2, 8] = tanh(%y)
  return %z
}
IR
DIFFTEST_PROGRESS_EVERY=0 "$difftest" reduce "$tmp/mul.ir" --opt O1 --orders 0 --inject mul-drops-tail \
  --out "$tmp/r" > "$tmp/out" 2> "$tmp/err"
[ $? -eq 1 ] || fail "reduce"
grep -q "^reduce: bisect .* oracle calls" "$tmp/err" || fail "reduce printed no bisection progress"
grep -q "^reduce: reduce .* oracle calls" "$tmp/err" || fail "reduce printed no reduction progress"
DIFFTEST_PROGRESS_EVERY=0 "$difftest" bisect "$tmp/mul.ir" --opt O1 --orders 0 --inject mul-drops-tail \
  > "$tmp/out" 2> "$tmp/err"
[ $? -eq 1 ] || fail "bisect"
grep -q "^bisect: [0-9]* oracle calls" "$tmp/err" || fail "bisect printed no progress"
echo "ok: fuzz, gate, reduce and bisect report progress in a log"
