#!/usr/bin/env bash
# How far past their budget do the budgeted commands run? Each row runs one command with a time
# budget and prints its wall time, the budget and the overrun. A measurement: it asserts nothing.
#
#   bench/budget_overrun.sh DIFFTEST [--per-core N]
#
# With --per-core N, N busy processes per core run alongside (started, tracked and stopped as
# bench/load_test.sh does). The rows: `fuzz --time 60` on the clean compiler and with a fault
# that hangs programs; `gate --budget 120` over the corpus and 1000 seeds; `reduce --time 30` of
# a large failing program (bisection included; unlimited, it takes about a minute); and a
# reduction of a hang without a time limit (the time to its fixpoint).
set -uo pipefail
difftest=${1:?usage: bench/budget_overrun.sh DIFFTEST [--per-core N]}
per_core=0
[ "${2:-}" = --per-core ] && per_core=${3:?--per-core needs a number}
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
owner=$$
busy=()
stop() {
  ((${#busy[@]})) && kill "${busy[@]}" 2>/dev/null && wait "${busy[@]}" 2>/dev/null
  rm -rf "$tmp"
}
trap stop EXIT
trap 'exit 130' INT TERM HUP
for ((i = 0; i < $(nproc) * per_core; i++)); do
  ( trap - EXIT INT TERM HUP
    while kill -0 "$owner" 2>/dev/null; do for ((k = 0; k < 20000; k++)); do :; done; done ) &
  busy+=($!)
done

row() {  # row NAME BUDGET COMMAND...
  local name=$1 budget=$2
  shift 2
  local t0 t1
  t0=$(date +%s.%N)
  "$@" > "$tmp/last.log" 2>&1
  local code=$?
  t1=$(date +%s.%N)
  awk -v n="$name" -v b="$budget" -v t0="$t0" -v t1="$t1" -v c="$code" 'BEGIN {
    w = t1 - t0
    if (b > 0) printf "| %s | %d | %.1f | %.1f | %+.1f%% |\n", n, c, b, w, 100 * (w - b) / b
    else printf "| %s | %d | none | %.1f | – |\n", n, c, w
  }'
}

# A large failing program whose reduction takes about a minute on an idle 2-core machine: seed
# 10 (34 ops) with reduction-init-per-tile, a ScheduleMatmul fault that O3 bisection must find.
"$difftest" fuzz --seeds 10..10 --inject reduction-init-per-tile --out "$tmp/find" > /dev/null 2>&1
mismatch=$(ls -d "$tmp"/find/failures/mismatch-* 2>/dev/null | head -1)
# A hang as a campaign saves it (its verdict.json records the hang and the work before it).
"$difftest" fuzz --seeds 0..3 --jobs 2 --timeout 2 --inject codegen-stuck-loop --out "$tmp/findhang" > /dev/null 2>&1
hang=$(ls -d "$tmp"/findhang/failures/timeout-* 2>/dev/null | head -1)

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $((${#busy[@]})) busy processes"
echo "| command | exit | budget s | wall s | overrun |"
echo "|---|---:|---:|---:|---:|"
row "fuzz --time 60 --jobs 2 (clean)" 60 "$difftest" fuzz --time 60 --jobs 2 --out "$tmp/f1"
row "fuzz --time 60 --jobs 2 --inject codegen-stuck-loop" 60 \
  "$difftest" fuzz --time 60 --jobs 2 --inject codegen-stuck-loop --out "$tmp/f2"
row "gate --seeds 0..999 --budget 120 --jobs 2 (corpus/)" 120 \
  bash -c "cd '$src' && '$difftest' gate --seeds 0..999 --budget 120 --jobs 2 --out '$tmp/g'"
if [ -n "$mismatch" ]; then
  row "reduce --time 30 --jobs 2 (seed 10, reduction-init-per-tile, 34 ops)" 30 \
    "$difftest" reduce "$mismatch/program.ir" --time 30 --jobs 2 --out "$tmp/r1"
fi
if [ -n "$hang" ]; then
  row "reduce --jobs 2 (a codegen-stuck-loop campaign's first hang, no time limit: to its fixpoint)" 0 \
    "$difftest" reduce "$hang/program.ir" --jobs 2 --out "$tmp/r2"
  grep -E "^reduced" "$tmp/last.log"
fi
