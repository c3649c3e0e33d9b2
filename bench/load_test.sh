#!/usr/bin/env bash
# A clean campaign on an oversubscribed machine: are the verdicts the same as on an idle one?
#
#   bench/load_test.sh DIFFTEST [--per-core N] [--seeds A..B] [--jobs J] [--out DIR] [--require-ok]
#                      [-- EXTRA FUZZ FLAGS...]
#
# Starts N busy processes per core (default 4), each a shell loop the script tracks by process
# id, runs `DIFFTEST fuzz --seeds A..B --jobs J` on the clean compiler, prints the verdict
# counts, the load average and the wall time, and stops every busy process whatever happens
# (normal exit, an error, Ctrl-C, or a kill of this script: each busy loop also ends on its own
# once this script's process is gone). With --require-ok it exits 1 unless every verdict is
# `ok` (the ctest version, tests/CMakeLists.txt: `bench.load_test_short`).
set -euo pipefail

usage() {
  echo "usage: bench/load_test.sh DIFFTEST [--per-core N] [--seeds A..B] [--jobs J] [--out DIR] [--require-ok] [-- FLAGS...]" >&2
  exit 2
}
[ $# -ge 1 ] || usage
difftest=$1
shift
per_core=4 seeds=0..199 jobs=2 out="" require_ok=0
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --per-core) per_core=${2:?--per-core needs a number}; shift 2 ;;
    --seeds) seeds=${2:?--seeds needs A..B}; shift 2 ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    --require-ok) require_ok=1; shift ;;
    --) shift; extra=("$@"); break ;;
    *) echo "load_test.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ $per_core =~ ^[0-9]+$ ]] || { echo "load_test.sh: --per-core: '$per_core' is not a number" >&2; exit 2; }
[ -x "$difftest" ] || { echo "load_test.sh: '$difftest' is not an executable" >&2; exit 2; }

cores=$(nproc)
owner=$$
busy_pids=()
work=$(mktemp -d)
stop_busy() {
  if ((${#busy_pids[@]})); then
    kill "${busy_pids[@]}" 2>/dev/null || true
    wait "${busy_pids[@]}" 2>/dev/null || true
  fi
  busy_pids=()
}
trap 'stop_busy; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM HUP
[ -n "$out" ] || out=$work/campaign
log=$work/fuzz.log

for ((i = 0; i < cores * per_core; i++)); do
  # Busy in user space; every few thousand iterations it checks that this script still runs.
  ( trap - EXIT INT TERM HUP
    while kill -0 "$owner" 2>/dev/null; do for ((k = 0; k < 20000; k++)); do :; done; done ) &
  busy_pids+=($!)
done
echo "load: ${#busy_pids[@]} busy processes on $cores cores (pids ${busy_pids[*]})"
sleep 2  # let the load average rise before the campaign starts

start=$(date +%s.%N)
set +e
"$difftest" fuzz --seeds "$seeds" --jobs "$jobs" --out "$out" "${extra[@]}" > "$log" 2>&1
code=$?
set -e
end=$(date +%s.%N)
load=$(cut -d' ' -f1-3 /proc/loadavg)
stop_busy

echo "campaign: fuzz --seeds $seeds --jobs $jobs ${extra[*]} (exit $code) in $(awk "BEGIN{printf \"%.1f\", $end-$start}") s"
echo "load average at its end (1, 5, 15 min): $load"
grep -v '^journal:' "$log" || true
summary=$out/summary.json
if [ ! -f "$summary" ]; then
  echo "load_test.sh: no summary.json in $out" >&2
  exit 1
fi
# The verdict counts, from summary.json: "counts": {"ok": 200, "timeout": 3}
counts=$(tr -d '\n ' < "$summary" | grep -o '"counts":{[^}]*}' | sed 's/"counts"://')
echo "verdict counts: $counts"
if [ "$require_ok" = 1 ]; then
  if ! [[ $counts =~ ^\{\"ok\":[0-9]+\}$ ]]; then
    echo "FAILED: a verdict other than ok under load; the first such records:"
    grep -v '"verdict":"ok"' "$out/journal.jsonl" | head -5
    exit 1
  fi
  echo "every verdict ok under load"
fi
