#!/usr/bin/env bash
# ONNX Runtime through difftest, measured: a campaign's throughput through the ladder of levels
# and the time a culprit search and a reduction take on ORT's findings. Prints; asserts nothing.
#
#   bench/ort_ladder.sh DIFFTEST [--seeds A..B] [--jobs J] [--time SECONDS]
#
# Campaign: `difftest fuzz --backend ort --seeds A..B --jobs J` (default 0..199, 2 jobs): programs
# per second, the verdict counts and the time per program by stage (summary.json). With --time
# (the hour's campaign: --seeds 20000..59999 --time 3600) it stops after SECONDS and reduces every
# distinct failure (--reduce), listing each with its culprit, sizes and time. Then, for each
# known ORT bug in corpus/external/ort: wall time of `difftest bisect` and of `difftest reduce`.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: bench/ort_ladder.sh DIFFTEST [--seeds A..B] [--jobs J]" >&2; exit 2; }
difftest=$1
shift
seeds=0..199 jobs=2 time_flags=()
while [ $# -gt 0 ]; do
  case $1 in
    --seeds) seeds=${2:?--seeds needs A..B}; shift 2 ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    --time) time_flags=(--time "${2:?--time needs seconds}" --reduce --reduce-time 120); shift 2 ;;
    *) echo "unknown flag $1" >&2; exit 2 ;;
  esac
done
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "avx512f: $(grep -qw avx512f /proc/cpuinfo && echo yes || echo no)"
"$difftest" backends | sed -n '/^ort/,+2p'
"$difftest" fuzz --backend ort --seeds "$seeds" --jobs "$jobs" "${time_flags[@]}" --out "$tmp/c" > "$tmp/fuzz" 2>&1 || true
python3 - "$tmp/c/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
n, secs = s["programs"], s["seconds"]
print(f"campaign: {n} programs in {secs:.1f} s: {n / secs:.2f} programs/s")
print("verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(s["counts"].items())))
t = s["times_ms"]
print("ms per program: " + ", ".join(f"{k[:-3]} {v / n:.1f}" for k, v in t.items() if not isinstance(v, dict)))
for f in s["failures"]:
    print(f"finding: {f['signature']} (first seed {f['first_seed']}, {f['programs']} programs)")
try:
    reductions = json.load(open(sys.argv[1].replace("summary.json", "reductions.json")))
except OSError:
    reductions = []
for r in reductions:
    print(f"reduced: {r['signature'][:100]}: {r['ops_before']} -> {r['ops_after']} ops, culprit {r['culprit']}, "
          f"{r['seconds']:.1f} s")
PY
for ir in "$src"/corpus/external/ort/*.ir; do
  grep -q '^# compiler: ort' "$ir" || continue  # the export's regression entries expect ok
  t0=$(date +%s.%N)
  "$difftest" bisect "$ir" --backend ort > "$tmp/bisect" 2>&1 || true
  t1=$(date +%s.%N)
  "$difftest" reduce "$ir" --backend ort --out "$tmp/r" > "$tmp/reduce" 2>&1 || true
  t2=$(date +%s.%N)
  python3 -c 'import sys; print(f"{sys.argv[1]}: bisect {float(sys.argv[3]) - float(sys.argv[2]):.2f} s ({sys.argv[5]}), reduce with reports {float(sys.argv[4]) - float(sys.argv[3]):.2f} s")' \
    "$(basename "$ir")" "$t0" "$t1" "$t2" "$(grep -m1 '^culprit' "$tmp/bisect" | cut -c1-60)"
  rm -rf "$tmp/r"
done
