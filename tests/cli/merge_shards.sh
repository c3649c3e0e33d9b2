#!/usr/bin/env bash
# merge_shards.sh DIFFTEST CORPUS: a campaign run as 8 shards on this machine (two at a time),
# one of them killed by its time limit and resumed, merged with `difftest merge`, equals the
# same campaign run unsharded: the same seeds with the same verdicts and signatures, the same
# failure classes with the same seeds, the same reproducer directories. The merge before the
# killed shard was resumed names what is missing; the one after equals the unsharded campaign.
set -u
difftest=$1
corpus=$2
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
flags=(--seeds 0..159 --inject mul-drops-tail --opt O0,O2 --orders 0 --random-bindings 0 --timeout 60)

"$difftest" fuzz "${flags[@]}" --jobs 2 --out "$tmp/all" > "$tmp/all.out" 2>&1
[ $? -eq 1 ] || fail "the unsharded campaign found no failure or failed to run: $(tail -5 "$tmp/all.out")"
for pair in "0 1" "2 4" "5 6" "7"; do
  for i in $pair; do
    "$difftest" fuzz "${flags[@]}" --shard "$i/8" --out "$tmp/s$i" > "$tmp/s$i.out" 2>&1 &
  done
  wait
done
# Shard 3/8 stops after its time limit, part of its seeds journaled, as a killed shard would.
"$difftest" fuzz "${flags[@]}" --shard 3/8 --time 2 --out "$tmp/s3" > "$tmp/s3.out" 2>&1
shards=("$tmp/s5" "$tmp/s2" "$tmp/s7" "$tmp/s0" "$tmp/s3" "$tmp/s6" "$tmp/s1" "$tmp/s4")  # any order
"$difftest" merge "${shards[@]}" --out "$tmp/merged" > "$tmp/merge1.out" 2>&1
[ $? -eq 1 ] || fail "merge did not report the failures: $(cat "$tmp/merge1.out")"
partial=$("$here/fuzz_journal.py" "$tmp/merged/journal.jsonl" | wc -l)
[ "$partial" -lt 160 ] || fail "shard 3/8 was not cut short by its time limit (the test proves nothing)"
"$difftest" fuzz "${flags[@]}" --shard 3/8 --resume --out "$tmp/s3" > "$tmp/s3r.out" 2>&1
[ $? -le 1 ] || fail "shard 3/8 did not resume: $(tail -3 "$tmp/s3r.out")"
"$difftest" merge "${shards[@]}" --out "$tmp/merged" --known "$corpus" > "$tmp/merge2.out" 2>&1
[ $? -eq 1 ] || fail "the second merge did not report the new failures: $(cat "$tmp/merge2.out")"

python3 - "$tmp/all" "$tmp/merged" "$partial" <<'PY' || exit 1
import json, os, sys
unsharded, merged, partial = sys.argv[1], sys.argv[2], int(sys.argv[3])
def journal(d):
    out = {}
    for line in open(os.path.join(d, "journal.jsonl")):
        r = json.loads(line)
        out.setdefault(r["seed"], []).append((r["verdict"], r.get("signature"), r.get("hash")))
    return out
a, m = journal(unsharded), journal(merged)
assert len(a) == 160, f"the unsharded campaign journaled {len(a)} seeds"
assert all(len(v) == 1 for v in m.values()), "the merged journal has a seed twice"
assert {s: v[0] for s, v in a.items()} == {s: v[0] for s, v in m.items()}, "the verdicts differ"
seeds = [json.loads(l)["seed"] for l in open(os.path.join(merged, "journal.jsonl"))]
assert seeds == sorted(seeds), "the merged journal is not in seed order"
def classes(d):
    s = json.load(open(os.path.join(d, "summary.json")))
    return s, {f["signature"]: (f["kind"], f["first_seed"], f["programs"], f["seeds"]) for f in s["failures"]}
sa, ca = classes(unsharded)
sm, cm = classes(merged)
assert ca == cm, f"the failure classes differ:\n{ca}\n{cm}"
assert len(ca) >= 2, f"only {len(ca)} signatures: the test proves little"
assert sa["counts"] == sm["counts"] and sa["programs"] == sm["programs"] == 160
assert sorted(os.listdir(os.path.join(unsharded, "failures"))) == sorted(os.listdir(os.path.join(merged, "failures")))
for f in sm["failures"]:
    assert os.path.isfile(os.path.join(f["saved_in"], "program.ir")), f"no reproducer for {f['signature']}"
    assert len(f["shards"]) >= 1
gate = json.load(open(os.path.join(merged, "gate.json")))
assert [c["name"] for c in gate["cases"]] == [f"shard {i}/8" for i in range(8)], gate["cases"]
assert sum(sum(int(n) for n in c["detail"].replace(",", "").split()[1::2]) for c in gate["cases"]) == 160
print(f"8 shards merged equal the unsharded campaign: 160 seeds, {len(ca)} signatures "
      f"(a merge with shard 3/8 cut short had {partial} seeds)")
PY
# New before known: the corpus's mul-drops-tail entry is known, the rest lead as NEW.
new_at=$(grep -n "NEW failure signatures" "$tmp/merge2.out" | cut -d: -f1)
known_at=$(grep -n "^known: .* known root causes" "$tmp/merge2.out" | cut -d: -f1)
[ -n "$new_at" ] && [ -n "$known_at" ] && [ "$new_at" -lt "$known_at" ] || fail "new failures do not lead: $(cat "$tmp/merge2.out")"
grep -q "mul-drops-tail (1 signature)" "$tmp/merge2.out" || fail "the known root cause is not counted: $(cat "$tmp/merge2.out")"
echo ok
