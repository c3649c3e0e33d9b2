#!/usr/bin/env bash
# fuzz_shards.sh DIFFTEST: --shard 0/3, 1/3 and 2/3 together cover exactly the seeds of the
# unsharded campaign, each once, with the same verdicts; a malformed shard is a usage error.
set -u
difftest=$1
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
flags=(--seeds 5..22 --jobs 2 --timeout 60 --random-bindings 0 --opt O0 --orders 0)

"$difftest" fuzz "${flags[@]}" --out "$tmp/all" > /dev/null 2>&1
[ $? -le 1 ] || fail "unsharded campaign failed to run"
for i in 0 1 2; do
  "$difftest" fuzz "${flags[@]}" --shard "$i/3" --out "$tmp/s$i" > /dev/null 2>&1
  [ $? -le 1 ] || fail "shard $i/3 failed to run"
  while read -r seed _; do
    [ $((seed % 3)) -eq "$i" ] || fail "shard $i/3 ran seed $seed"
  done < <("$here/fuzz_journal.py" "$tmp/s$i/journal.jsonl")
done
[ "$("$here/fuzz_journal.py" "$tmp/all/journal.jsonl" | wc -l)" -eq 18 ] || fail "the unsharded campaign did not run 18 seeds"
diff <("$here/fuzz_journal.py" "$tmp/all/journal.jsonl") \
     <("$here/fuzz_journal.py" "$tmp/s0/journal.jsonl" "$tmp/s1/journal.jsonl" "$tmp/s2/journal.jsonl") \
  || fail "the shards together differ from the unsharded campaign"
for bad in 3/3 1 a/3 1/0; do
  "$difftest" fuzz --seeds 0..1 --shard "$bad" --out "$tmp/bad" > "$tmp/bad.out" 2>&1
  [ $? -eq 2 ] && grep -q -- "--shard" "$tmp/bad.out" || fail "--shard $bad was not a usage error naming --shard"
done
echo "ok: 3 shards cover the 18 seeds exactly once"
