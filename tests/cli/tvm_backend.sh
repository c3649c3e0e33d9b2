#!/usr/bin/env bash
# tvm_backend.sh DIFFTEST SOURCE_DIR BUILD_DIR: Apache TVM under test (`--backend tvm`, the
# manifest backend of backends/tvm/, apache-tvm installed by scripts/setup.sh): TVM 0.27 listed
# with its levels; a corpus program parsed by TVM's TVMScript parser and ok at every level, in
# two random orders and in its shape-specialized compile; the same seed drawing the same orders;
# a known FuseTIR finding reduced with its culprit found by disabling passes, its
# repro_tvmscript.py run on the pinned TVM (FAIL at the failing level, PASS at the baseline and
# with the culprit disabled), the module before the culprit kept, and report.md in TVM's bug
# template; an op whose legalization TVM
# limits in code `unsupported` with the reason.
set -u
difftest=$1 src=$2 build=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/out" 2>/dev/null; exit 1; }
python=$build/tvm/venv/bin/python
. "$(dirname "$0")/reproducer_run.sh"

"$difftest" backends > "$tmp/out" 2>&1 || fail "difftest backends"
grep -A2 "^tvm " "$tmp/out" | grep -q "version 0.27.0.post1; levels O0, build, zero, dlight" ||
  fail "tvm 0.27.0.post1 is not listed with its levels"
grep -A2 "^tvm " "$tmp/out" | grep -q "^         available" || fail "tvm is not installed"

"$difftest" run "$src/corpus/norms_and_softmax.ir" --backend tvm > "$tmp/out" 2>&1 ||
  fail "the norms and softmax of the corpus should be ok at every TVM level"
for v in O0 build zero dlight order1 order2 dlight-specialized O0~zero O0~dlight; do
  grep -Eq "^  $v +.* ok " "$tmp/out" || fail "$v did not run ok"
done
grep -q "^  order1 = --backend tvm --opt none --orders 1  # .*LegalizeOps" "$tmp/out" ||
  fail "order1 is not shown with the flags that replay it and its steps (LegalizeOps always among them)"
"$difftest" run "$src/corpus/norms_and_softmax.ir" --backend tvm --opt none --orders 1 > "$tmp/replay" 2>&1 ||
  fail "replaying order1 failed"
grep "^  order1 = " "$tmp/out" | cmp -s - <(grep "^  order1 = " "$tmp/replay") || fail "the replay drew another order1"

# A seed names one program and its orders, on every run.
"$difftest" --seed 3 --backend tvm --opt O0 > "$tmp/a" 2>&1
"$difftest" --seed 3 --backend tvm --opt O0 > "$tmp/b" 2>&1
grep "order[12] = " "$tmp/a" > "$tmp/a.orders"
grep "order[12] = " "$tmp/b" > "$tmp/b.orders"
[ "$(wc -l < "$tmp/a.orders")" -eq 2 ] || fail "seed 3 does not show two random orders"
cmp -s "$tmp/a.orders" "$tmp/b.orders" || fail "seed 3 drew other orders on a second run"

# A known finding (corpus/external/tvm/): reduced, the culprit found by disabling passes.
"$difftest" reduce "$src/corpus/external/tvm/fuse_tir_equal_shapes_written_differently.ir" --backend tvm --opt O0,zero \
  --orders 0 --out "$tmp/r" > "$tmp/out" 2>&1
[ $? -eq 1 ] || fail "reduce should end with the FuseTIR failure reproduced"
grep -q "^culprit: (.) FuseTIR — the first pass application after which the failure" "$tmp/out" ||
  fail "the culprit is not FuseTIR"
for f in repro_tvmscript.py tvm_levels.py program.py expected.json report.md repro.ir; do
  [ -s "$tmp/r/$f" ] || fail "no $f"
done
reproduce repro_tvmscript.py "$python" "$tmp/r/repro_tvmscript.py"
grep -q "^FAIL level 'zero': InternalError: .*Inconsistent buffers" "$tmp/repro" || fail "the reproducer does not fail zero"
grep -q "^PASS level 'O0'" "$tmp/repro" || fail "the reproducer does not pass the baseline"
grep -q "^PASS level 'zero' with FuseTIR disabled" "$tmp/repro" || fail "the reproducer does not pass without FuseTIR"
for section in "### Expected behavior" "### Actual behavior" "### Environment" "### Steps to reproduce" "### Triage"; do
  grep -q "^$section" "$tmp/r/report.md" || fail "report.md lacks '$section' (TVM's bug template)"
done
grep -q "^Apache TVM 0.27.0.post1 (pip wheel" "$tmp/r/report.md" || fail "report.md does not name TVM's version"
grep -q "^culprit: (.) FuseTIR" "$tmp/r/report.md" || fail "report.md does not give the culprit search"
# The module as FuseTIR received it (FuseTIR raised: no module after it), named by the report.
grep -q "^The module before FuseTIR is \`culprit_before.py\`; FuseTIR did not return one." "$tmp/r/report.md" ||
  fail "report.md does not name the module before the culprit"
grep -q "def fused_.*atan2" "$tmp/r/culprit_before.py" || fail "culprit_before.py is not the fused module FuseTIR received"

# What TVM's legalization limits in code is unsupported, with the reason.
"$difftest" run "$src/corpus/kv_cache_slicing.ir" --backend tvm --opt O0 --orders 0 > "$tmp/out" 2>&1
grep -q "unsupported .*TVM's slice_scatter (topi.slice_scatter, the legalization of R.slice_scatter) takes only a constant" \
  "$tmp/out" || fail "a symbolic slice_scatter is not unsupported with the reason"
echo "PASS"
