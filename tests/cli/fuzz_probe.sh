#!/usr/bin/env bash
# fuzz_probe.sh DIFFTEST: `fuzz --probe all` checks, journals and saves the probed programs (the
# reproducer returns every value the generated program computes, and replays with plain `run`);
# resuming it without --probe is refused, and a campaign cannot probe values by name.
set -u
difftest=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/out" 2>/dev/null; exit 1; }
flags=(--seeds 0..11 --jobs 2 --random-bindings 0 --opt O0 --orders 0 --inject mul-drops-tail)
returned() { grep -E '^  return ' "$1" | tr ',' '\n' | wc -l; }

"$difftest" fuzz "${flags[@]}" --probe all --out "$tmp/c" > "$tmp/out" 2>&1
[ $? -eq 1 ] || fail "the probed campaign with mul-drops-tail found no failure"
seed=$(grep -oE 'first seed [0-9]+' "$tmp/out" | head -1 | grep -oE '[0-9]+$')
dir=$(ls -d "$tmp/c/failures/mismatch-"* 2>/dev/null | head -1)
[ -n "$seed" ] && [ -n "$dir" ] || fail "no mismatch reproducer"
"$difftest" generate --seed "$seed" > "$tmp/generated.ir" || fail "generate --seed $seed"
probed=$(returned "$dir/program.ir") generated=$(returned "$tmp/generated.ir")
[ "$probed" -gt "$generated" ] || fail "the reproducer returns $probed values, the generated program $generated"
"$difftest" run "$dir/program.ir" --inject mul-drops-tail --opt O0 --orders 0 > "$tmp/run.out" 2>&1
[ $? -eq 1 ] || fail "the saved probed program does not replay: $(cat "$tmp/run.out")"

"$difftest" fuzz "${flags[@]}" --out "$tmp/c" --resume > "$tmp/out" 2>&1
[ $? -eq 2 ] && grep -q '"probe":"all"' "$tmp/out" || fail "a probed campaign resumed without --probe"

"$difftest" fuzz --seeds 0..1 --probe %3 --out "$tmp/named" > "$tmp/out" 2>&1
[ $? -eq 2 ] && grep -q -- "--probe: a campaign probes all values or none" "$tmp/out" || fail "--probe %3 accepted"
echo "ok: seed $seed probed ($probed values returned, $generated generated)"
