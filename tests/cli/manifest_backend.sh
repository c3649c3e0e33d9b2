#!/usr/bin/env bash
# manifest_backend.sh DIFFTEST SOURCE_DIR: a compiler difftest was not built with, checked through a
# manifest (`--backend path/to/manifest.json`) and the stand-in worker of tests/backends/standin
# (Python, its `commute` step swaps sub's operands): its verdicts (ok at the baseline, the planted
# bug a mismatch at `fast`, a crash, a hang), the bug bisected by disable-list to `commute`,
# reduced and reported with the manifest's reproducer template; malformed manifests are refused
# with the file and the field.
source "$(dirname "$0")/standin_setup.sh" "$@"

# A campaign finds the planted bug at `fast` and nowhere at the baseline.
"$difftest" fuzz --seeds 10..19 --jobs 1 --backend "$m" --out "$tmp/f" > "$tmp/out" 2>&1
[ $? -eq 1 ] || fail "the campaign should fail on the planted bug"
grep -Eq "^ +[0-9]+ programs +first seed [0-9]+ +mismatch\|fast\|compare\|output of sub$" "$tmp/out" ||
  fail "no mismatch of sub at level fast"
grep -q "|plain|" "$tmp/out" && fail "the baseline level, which applies no step, failed"
failure=$(ls -d "$tmp"/f/failures/mismatch-* | head -1)

# Bisected by disabling steps, reduced, reported with the template filled in.
"$difftest" reduce "$failure/program.ir" --backend "$m" --out "$tmp/r" > "$tmp/out" 2>&1
[ $? -eq 1 ] || fail "reduce should end with the failure reproduced"
grep -q "^culprit: (2) commute" "$tmp/out" || fail "the culprit is not the commute step"
grep -q "smallest failing pass list: commute$" "$tmp/out" || fail "the culprit list is not commute alone"
grep -Eq "= sub\(%[A-Za-z0-9_]+, %[A-Za-z0-9_]+\)" "$tmp/r/repro.ir" || fail "the reduced program lost its sub"
[ "$(grep -c ' = ' "$tmp/r/repro.ir")" -le 3 ] || fail "the program was not reduced to its sub: $(cat "$tmp/r/repro.ir")"
grep -q "standin level=fast model=program.ir" "$tmp/r/repro.sh" || fail "the reproducer template was not filled in"
grep -q '"disable": \[' "$tmp/r/expected.json" || fail "expected.json has no disable list"
grep -q "^# mismatch in commute (fast)" "$tmp/r/report.md" || fail "the report does not blame commute"
grep -q "standin 1.0 (stand-in)" "$tmp/r/report.md" || fail "the report does not name the worker's version"

# The same found by an opt-bisect counter, and not searched where the manifest declares no search.
sed 's/"culprit_search": "disable-list"/"culprit_search": "opt-bisect"/' "$m" > "$tmp/si/bisect.json"
"$difftest" bisect "$tmp/r/repro.ir" --backend "$tmp/si/bisect.json" --opt fast > "$tmp/out" 2>&1
grep -q "^culprit: (2) commute" "$tmp/out" || fail "opt-bisect did not find the commute step"
sed 's/"culprit_search": "disable-list"/"culprit_search": "none"/' "$m" > "$tmp/si/none.json"
"$difftest" bisect "$tmp/r/repro.ir" --backend "$tmp/si/none.json" --opt fast > "$tmp/out" 2>&1
grep -q "culprit: not searched — standin's manifest declares no culprit search" "$tmp/out" ||
  fail "a manifest without a culprit search should say so"

# A crash and a hang of the worker are verdicts of the level, not difftest's crash.
cat > "$tmp/crash.ir" <<'IR'
program @crash_me() {
  %x: f32[4] = param
  %y: f32[4] = neg(%x)
  return %y
}
IR
sed 's/@crash_me/@hang_me/' "$tmp/crash.ir" > "$tmp/hang.ir"
"$difftest" run "$tmp/crash.ir" --backend "$m" > "$tmp/out" 2>&1
[ $? -eq 1 ] || fail "a worker crash should fail the run"
grep -Eq "^  plain .* ok " "$tmp/out" || fail "the baseline should run the program"
grep -Eq "^  fast .* compile_crash +the standin worker was killed by signal 11" "$tmp/out" || fail "no compile_crash"
"$difftest" run "$tmp/hang.ir" --backend "$m" --opt fast --timeout 0.5 > "$tmp/out" 2>&1
[ $? -eq 1 ] || fail "a worker hang should fail the run"
grep -Eq "^  fast .* timeout " "$tmp/out" || fail "no timeout"

# Bad manifests and levels are refused with the file and the field.
"$difftest" run "$tmp/crash.ir" --backend "$m" --opt turbo > "$tmp/out" 2>&1
[ $? -eq 2 ] && grep -q "standin has no level 'turbo' (levels: plain, fast, narrow, rounded)" "$tmp/out" || fail "an unknown level"
sed 's/"model_format": "ir"/"model_format": "tflite"/' "$m" > "$tmp/si/bad.json"
"$difftest" run "$tmp/crash.ir" --backend "$tmp/si/bad.json" > "$tmp/out" 2>&1
[ $? -eq 2 ] && grep -q "bad.json: field \"model_format\": 'tflite' is not a format" "$tmp/out" || fail "a bad format"
sed 's/"baseline": "plain",/"baseline": "plane",/' "$m" > "$tmp/si/bad.json"
"$difftest" run "$tmp/crash.ir" --backend "$tmp/si/bad.json" > "$tmp/out" 2>&1
[ $? -eq 2 ] && grep -q "field \"baseline\": names no level ('plane'" "$tmp/out" || fail "a baseline naming no level"
sed 's/"levels": \[/"levels": [[/' "$m" > "$tmp/si/bad.json"
"$difftest" run "$tmp/crash.ir" --backend "$tmp/si/bad.json" > "$tmp/out" 2>&1
[ $? -eq 2 ] && grep -Eq "bad.json:[0-9]+:[0-9]+: .*not valid JSON" "$tmp/out" || fail "malformed JSON without its place"
sed 's#"{manifest_dir}/standin_worker.py"#"{manifest_dir}/standin_worker.py"#; s#"@PYTHON@"#"/nonexistent/python3"#' \
  "$src/tests/backends/standin/standin.json.in" > "$tmp/si/bad.json"
"$difftest" run "$tmp/crash.ir" --backend "$tmp/si/bad.json" > "$tmp/out" 2>&1
[ $? -eq 2 ] && grep -q "it cannot run here: its worker program '/nonexistent/python3'" "$tmp/out" ||
  fail "a worker that is not installed should be an error, not a pass"
echo ok
