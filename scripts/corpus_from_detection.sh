#!/usr/bin/env bash
# Writes corpus/faults/<fault>.ir from a detection-benchmark run kept with --keep DIR: for each
# fault, the reduced reproducer of the first failure of the campaign from seed 0, with the
# headers the gate needs (# fault, # expect, # passes, # llvm, # fma, # bind; docs/gate.md). The
# expected signature is what `difftest gate` shows for the reproducer with the fault on; a
# reproducer that fails with the fault off, or shows nothing, is reported and skipped.
#   scripts/corpus_from_detection.sh build/difftest KEEP_DIR [corpus/faults]
set -u
difftest=$(realpath "$1")
keep=$2
out=${3:-corpus/faults}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
for fdir in "$keep"/*/; do
  fault=$(basename "$fdir")
  [ "$fault" = clean ] && continue
  red=$(ls -d "$fdir"from-0/failures/*/reduced 2>/dev/null | head -1)
  if [ -z "$red" ]; then echo "$fault: no reduction from seed 0"; continue; fi
  seed=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get('seed','?'))" "$(dirname "$red")/verdict.json")
  python3 - "$red/verdict.json" > "$work/header" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
p = j["pipeline"]
print("# passes: " + ",".join(p["minimal_passes"]))
if p["llvm_opt_level"]: print("# llvm: %d" % p["llvm_opt_level"])
if p["fma_contraction"]: print("# fma: on")
if j["binding"]: print("# bind: " + ",".join("%s=%d" % kv for kv in sorted(j["binding"].items())))
print("# culprit: %s %d %d" % (j["culprit"]["pass"], j["reduction"]["ops_before"], j["reduction"]["ops_after"]))
PY
  read -r _ _ culprit before after < <(grep '^# culprit:' "$work/header")
  sed -i '/^# culprit:/d' "$work/header"
  # A placeholder expectation: the gate then reports what the fault shows as a lost detection.
  { echo "# fault: $fault"; echo "# expect: mismatch|placeholder"; cat "$work/header" "$red/repro.ir"; } > "$work/probe.ir"
  "$difftest" gate --corpus "$work/probe.ir" --timeout 10 --out "$work/gate" --json "$work/gate.json" > /dev/null 2>&1
  sig=$(python3 - "$work/gate.json" <<'PY'
import json, sys
case = json.load(open(sys.argv[1]))["cases"][0]
if any(not s.startswith("lost-detection") for s in case["new"]):
    print("CLEAN-FAILS")
elif "; with " in case["detail"]:
    shown = case["detail"].split("; with ", 1)[1].split(": ", 1)[1]
    print("" if shown == "no failure" else shown.split("; ")[0])
PY
)
  if [ -z "$sig" ] || [ "$sig" = CLEAN-FAILS ]; then echo "$fault: no usable signature (${sig:-none shown})"; continue; fi
  {
    echo "# fault: $fault"
    echo "# expect: $sig"
    cat "$work/header"
    echo "# what: the reduced reproducer of $fault (docs/faults.md): the first failure of a detection-benchmark"
    echo "#       campaign from seed 0 (seed $seed, \`difftest generate --seed $seed\`), reduced $before -> $after ops by"
    echo "#       \`difftest reduce\`, which named $culprit as the culprit."
    cat "$red/repro.ir"
  } > "$out/$fault.ir"
  echo "$fault: $sig"
done
