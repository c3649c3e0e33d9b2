#!/usr/bin/env bash
# fuzz_shards.sh DIFFTEST: --shard 0/3, 1/3 and 2/3 together cover exactly the seeds of the
# unsharded campaign, each once, with the same verdicts; a malformed shard is a usage error.
# Without --shard, a Kubernetes Indexed Job's or a Slurm array's task variables give the same
# shards, and --shard wins over them.
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
journal() { "$here/fuzz_journal.py" "$1/journal.jsonl"; }
for i in 0 1 2; do
  JOB_COMPLETION_INDEX=$i DIFFTEST_SHARD_COUNT=3 "$difftest" fuzz "${flags[@]}" --out "$tmp/k$i" > "$tmp/k$i.out" 2>&1
  [ $? -le 1 ] || fail "Indexed Job task $i failed to run: $(cat "$tmp/k$i.out")"
  grep -q "shard $i/3 from JOB_COMPLETION_INDEX" "$tmp/k$i.out" || fail "task $i did not say its shard: $(cat "$tmp/k$i.out")"
  diff <(journal "$tmp/k$i") <(journal "$tmp/s$i") || fail "Indexed Job task $i is not shard $i/3"
  SLURM_ARRAY_TASK_ID=$((i + 1)) SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=3 \
    "$difftest" fuzz "${flags[@]}" --out "$tmp/u$i" > "$tmp/u$i.out" 2>&1
  [ $? -le 1 ] || fail "Slurm task $((i + 1)) failed to run: $(cat "$tmp/u$i.out")"
  diff <(journal "$tmp/u$i") <(journal "$tmp/s$i") || fail "Slurm array task $((i + 1)) (of 1-3) is not shard $i/3"
done
JOB_COMPLETION_INDEX=2 DIFFTEST_SHARD_COUNT=3 "$difftest" fuzz "${flags[@]}" --shard 0/3 --out "$tmp/flag" > /dev/null 2>&1
diff <(journal "$tmp/flag") <(journal "$tmp/s0") || fail "--shard 0/3 did not win over JOB_COMPLETION_INDEX"
JOB_COMPLETION_INDEX=1 "$difftest" fuzz --seeds 0..1 --out "$tmp/bad" > "$tmp/bad.out" 2>&1
[ $? -eq 2 ] && grep -q "DIFFTEST_SHARD_COUNT" "$tmp/bad.out" || fail "an index without a count was not a usage error naming DIFFTEST_SHARD_COUNT"
SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_COUNT=3 SLURM_ARRAY_TASK_STEP=2 "$difftest" fuzz --seeds 0..1 --out "$tmp/bad" > "$tmp/bad.out" 2>&1
[ $? -eq 2 ] && grep -q "SLURM_ARRAY_TASK_STEP" "$tmp/bad.out" || fail "a stepped array was not a usage error naming SLURM_ARRAY_TASK_STEP"
echo "ok: 3 shards cover the 18 seeds exactly once, and the schedulers' tasks are those shards"
