#!/usr/bin/env bash
# merge_bench.sh DIFFTEST [WORKDIR]: time and peak memory of `difftest merge` (8 shards) and
# `difftest report` on synthetic campaigns (bench/synthetic_campaign.py) of 250,000 to 1,000,000
# programs, and at 1,000,000 with the same failing programs spread over 10,000 signatures (1
# program each), 100 (100 each) or 1 (10,000 each), and with every program failing in 10
# signatures (100,000 each): time and memory must grow with the programs, not with how many
# programs share a failure. One line per run: programs, failing, signatures, seconds and MB.
set -eu
difftest=$1
work=${2:-$(mktemp -d)}
here=$(dirname "$0")
printf "%-9s %-9s %-10s %-22s %-22s %s\n" programs failing signatures "merge s / peak MB" "report s / peak MB" "journal MB"
one() {  # programs failing_every per_signature
  rm -rf "$work/c"
  python3 "$here/synthetic_campaign.py" "$work/c" --programs "$1" --failing-every "$2" --per-signature "$3"
  /usr/bin/time -f "%e %M" -o "$work/merge.time" "$difftest" merge "$work"/c/shard-* --out "$work/c/merged" > /dev/null || [ $? -eq 1 ]
  /usr/bin/time -f "%e %M" -o "$work/report.time" "$difftest" report "$work/c/merged" > /dev/null
  read -r ms mk < <(tail -1 "$work/merge.time")
  read -r rs rk < <(tail -1 "$work/report.time")
  local failing=$(( $1 / $2 ))
  printf "%-9s %-9s %-10s %-22s %-22s %s\n" "$1" "$failing" $(( (failing + $3 - 1) / $3 )) \
    "$ms / $(( mk / 1024 ))" "$rs / $(( rk / 1024 ))" "$(( $(stat -c %s "$work/c/merged/journal.jsonl") / 1048576 ))"
}
one 250000 100 100
one 500000 100 100
one 1000000 100 100
one 1000000 100 1
one 1000000 100 10000
one 1000000 1 100000
rm -rf "$work/c"
