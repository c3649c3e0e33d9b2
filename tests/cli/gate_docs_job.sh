#!/usr/bin/env bash
# gate_docs_job.sh DIFFTEST DOCS_GATE_MD: the gate step of the GitHub Actions job in
# docs/gate.md, exactly as written there, runs in a fresh repository that has no corpus and no
# baseline yet: it passes, says what it did and how to create a baseline, and leaves the reports
# and the failures directory the job's later steps upload. Only the job's env values (the seed
# range and budget) are made smaller, as a user could.
set -u
difftest=$1
doc=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/out" 2>/dev/null | tail -30; exit 1; }

# The folded `run: >` block of the "Gate" step: its lines, joined by spaces.
command=$(awk '
  /- name: Gate$/ { in_step = 1; next }
  in_step && /run: >/ { in_run = 1; next }
  in_run && /^ *- (name|uses):/ { exit }
  in_run && NF { sub(/^ +/, ""); printf "%s ", $0 }
' "$doc")
[ -n "$command" ] || fail "no Gate step with a 'run: >' block in $doc"
command=${command//'${{ matrix.shard }}'/0}
case $command in *'${{'*) fail "an expression the test cannot stand in for: $command" ;; esac

repo=$tmp/compiler-repo
mkdir -p "$repo/difftest/build"
ln -s "$(realpath "$difftest")" "$repo/difftest/build/difftest"
(cd "$repo" && DIFFTEST_SEEDS=0..7 DIFFTEST_BUDGET=600 bash -c "$command") > "$tmp/out" 2>&1
code=$?
[ $code -eq 0 ] || fail "the documented gate step exited $code in a fresh repository: $command"
grep -q "note: no corpus/ here" "$tmp/out" || fail "it did not say there is no corpus"
grep -q "note: no baseline difftest-baseline.json yet: .*--update-baseline" "$tmp/out" || fail "it did not say how to create a baseline"
grep -q "gate: passed" "$tmp/out" || fail "no passed summary"
for f in gate-0.xml gate-0.json difftest-gate/campaign/failures; do
  [ -e "$repo/$f" ] || fail "the job's upload step expects $f"
done
echo "ok: the documented gate step runs in a fresh repository: $command"
