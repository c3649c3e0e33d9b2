#!/usr/bin/env bash
# fuzz_resume.sh DIFFTEST: a campaign killed with SIGKILL mid-run and resumed with --resume
# journals the same set of verdicts as an uninterrupted run of the same seeds; a second
# campaign into the same directory without --resume is refused.
set -u
difftest=$1
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'kill -9 $pid 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
flags=(--seeds 0..23 --jobs 2 --timeout 60 --random-bindings 0 --opt O0 --orders 0)

"$difftest" fuzz "${flags[@]}" --out "$tmp/whole" > "$tmp/whole.out" 2>&1
[ $? -le 1 ] || fail "uninterrupted campaign: $(cat "$tmp/whole.out")"

"$difftest" fuzz "${flags[@]}" --out "$tmp/killed" > /dev/null 2>&1 &
pid=$!
# Poll until a few programs are journaled (not a timing assertion: it only picks the moment).
for _ in $(seq 1 1200); do
  n=$(cat "$tmp/killed/journal.jsonl" 2>/dev/null | wc -l)
  [ "$n" -ge 4 ] && break
  sleep 0.05
done
kill -9 "$pid"
wait "$pid" 2>/dev/null
before=$(wc -l < "$tmp/killed/journal.jsonl")
[ "$before" -lt 24 ] || fail "the campaign finished before it was killed ($before programs)"

"$difftest" fuzz "${flags[@]}" --out "$tmp/killed" > "$tmp/again.out" 2>&1
[ $? -eq 2 ] || fail "a second campaign into the same --out without --resume was not refused"
grep -q -- "--resume" "$tmp/again.out" || fail "the refusal does not mention --resume: $(cat "$tmp/again.out")"

"$difftest" fuzz "${flags[@]}" --out "$tmp/killed" --resume > "$tmp/resumed.out" 2>&1
[ $? -le 1 ] || fail "resumed campaign: $(cat "$tmp/resumed.out")"
grep -q "$before resumed from the journal" "$tmp/resumed.out" || fail "resume did not read $before records: $(cat "$tmp/resumed.out")"

diff <("$here/fuzz_journal.py" "$tmp/whole/journal.jsonl") <("$here/fuzz_journal.py" "$tmp/killed/journal.jsonl") \
  || fail "verdicts differ between the uninterrupted and the killed-and-resumed campaign"
# A corrupt line in the middle of a journal: reported with its line number and skipped; the
# records after it are kept, and only its program is checked again.
cp -r "$tmp/whole" "$tmp/corrupt"
sed -i '5s/.*/{"seed": 4, "verdict": "ok", "tim/' "$tmp/corrupt/journal.jsonl"
"$difftest" fuzz "${flags[@]}" --out "$tmp/corrupt" --resume > "$tmp/corrupt.out" 2>&1
[ $? -le 1 ] || fail "resume over a corrupt line: $(cat "$tmp/corrupt.out")"
grep -q "journal.jsonl:5: not a journal record" "$tmp/corrupt.out" || fail "the corrupt line was not reported: $(cat "$tmp/corrupt.out")"
grep -q "24 programs (1 checked in this run, 23 resumed from the journal)" "$tmp/corrupt.out" \
  || fail "the records after the corrupt line were not kept: $(cat "$tmp/corrupt.out")"
diff <("$here/fuzz_journal.py" "$tmp/whole/journal.jsonl") <("$here/fuzz_journal.py" "$tmp/corrupt/journal.jsonl") \
  || fail "verdicts differ after resuming over a corrupt line"
echo "ok: killed after $before of 24 programs; resumed campaign matches; a corrupt line costs one program"
