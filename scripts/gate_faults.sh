#!/usr/bin/env bash
# gate_faults.sh DIFFTEST [COUNT]: with each of COUNT faults of the catalog on, `difftest gate`
# over corpus/faults (one reduced reproducer per fault, each expected to pass with its fault off)
# must fail (exit 1): the gate still catches a broken pass. `--fail-on outlier`: a fault the
# statistical tier finds (bf16-round-truncates: outliers and bias only) must fail it too. The short timeout is for
# codegen-stuck-loop, whose hangs each cost it; nothing else comes near it on these programs. The sample rotates
# with the commit (its hash picks where in the sorted catalog to start), so successive commits
# cover every fault while each CI run checks only a few; the same commit checks the same ones.
set -uo pipefail
cd "$(dirname "$0")/.."
difftest=$1
count=${2:-3}
mapfile -t faults < <("$difftest" list-faults | awk '{print $1}')
n=${#faults[@]}
[ "$n" -gt 0 ] || { echo "gate_faults: list-faults printed nothing"; exit 1; }
rev=$(git rev-parse --short=7 HEAD 2>/dev/null || date +%j)
start=$(( 16#$rev % n ))
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
for ((i = 0; i < count && i < n; ++i)); do
  fault=${faults[$(( (start + i) % n ))]}
  "$difftest" gate --corpus corpus/faults --inject "$fault" --fail-fast --fail-on outlier --timeout 2 --out "$out/gate" > "$out/log" 2>&1
  code=$?
  if [ "$code" -eq 1 ]; then
    echo "gate_faults: $fault: the gate failed, as it must, at $(grep '^NEW' "$out/log" | head -1 | awk '{print $2}')"
  else
    echo "gate_faults: $fault: the gate exited $code instead of 1"
    cat "$out/log"
    status=1
  fi
done
exit $status
