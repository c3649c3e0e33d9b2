#!/usr/bin/env bash
# user_mistakes.sh DIFFTEST SOURCE_DIR [--table]: every user mistake below is exit 2 with a
# message naming the flag or the file (and never exit 3, which means a bug in difftest). With
# --table it asserts nothing and prints one row per case: the exit code and the message's first
# line (how the closing notes compare two builds).
set -u
difftest=$1
src=$2
table=${3:-}
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
failed=0

# Inputs the cases use.
touch "$tmp/a-file"
mkdir -p "$tmp/a-dir" "$tmp/empty-dir"
cat > "$tmp/big.ir" <<'IR'
# expect: ok
program @big(n: 1..1000000) {
  %a: f32[n, n] = param
  %y: f32[n, n] = exp(%a)
  return %y
}
IR
cat > "$tmp/typo.ir" <<'IR'
# expect: ok
# bnd: n=3
program @mul(n: 1..8) {
  %a: f32[n, 4] = param
  %y: f32[n, 4] = exp(%a)
  return %y
}
IR
printf '{"difftest_baseline": 2, "signatures": []}\n' > "$tmp/v2.json"
printf '{"signatures": []}\n' > "$tmp/noversion.json"
printf '{"difftest_baseline": 1, "signatures": ["not a signature"]}\n' > "$tmp/badsig.json"
small=$src/corpus/q4_0_roundtrip.ir
quick=(--opt O0 --orders 0 --random-bindings 0)

# name | regex the output must match | arguments
cases=(
  "save into a file|--save $tmp/a-file/x: cannot create|--seed 1 ${quick[*]} --save $tmp/a-file/x"
  "save into /proc|--save /proc/difftest-x: cannot create|--seed 1 ${quick[*]} --save /proc/difftest-x"
  "fuzz --out a file|--out $tmp/a-file: exists and is not a directory|fuzz --seeds 0..1 ${quick[*]} --out $tmp/a-file"
  "fuzz --out in /proc|--out /proc/difftest-x: cannot create|fuzz --seeds 0..1 ${quick[*]} --out /proc/difftest-x"
  "gate --junit in /proc|--junit /proc/x.xml|gate --corpus none --junit /proc/x.xml --out $tmp/g1"
  "gate --json a directory|--json $tmp/a-dir: is a directory|gate --corpus none --json $tmp/a-dir --out $tmp/g2"
  "gate --out a file|--out $tmp/a-file: exists and is not a directory|gate --corpus none --out $tmp/a-file"
  "gate --baseline a directory|--baseline $tmp/a-dir: is a directory|gate --corpus none --baseline $tmp/a-dir --out $tmp/g3"
  "gate --baseline a directory, updating|--baseline $tmp/a-dir: is a directory|gate --corpus none --baseline $tmp/a-dir --update-baseline --out $tmp/g4"
  "baseline of another version|v2.json: .difftest_baseline. is 2|gate --corpus none --baseline $tmp/v2.json --out $tmp/g5"
  "baseline without a version|noversion.json: no .difftest_baseline. version key|gate --corpus none --baseline $tmp/noversion.json --out $tmp/g6"
  "baseline with a bad signature|badsig.json: .signatures.\\[0\\] 'not a signature' is not a failure signature|gate --corpus none --baseline $tmp/badsig.json --out $tmp/g7"
  "reduce --out a file|--out $tmp/a-file: exists and is not a directory|reduce $small --out $tmp/a-file"
  "a dim range too large to check|@big under n=[0-9]+ needs .* GiB for the reference and its error bounds|run $tmp/big.ir ${quick[*]}"
  "eval beyond the memory limit|@big under n=50000 needs .* GiB|eval $tmp/big.ir --bind n=50000 --bounds"
  "eval --dump into a file|--dump $tmp/a-file: exists and is not a directory|eval $small --dump $tmp/a-file"
  "a negative seed|--seed: '-1' is not a whole number|--seed -1"
  "a seed past 64 bits|--seed: '99999999999999999999' is larger than 2\\^64-1|--seed 99999999999999999999"
  "a seed range past 64 bits|--seeds: '0..99999999999999999999' has a number larger than 2\\^64-1|fuzz --seeds 0..99999999999999999999 --out $tmp/f1"
  "a negative lambda|--lambda: '-1' must be > 0|eval $small --bounds --bound-mode probabilistic --lambda -1"
  "a timeout that is not a number|--timeout: 'nan' is not a finite number|--seed 1 --timeout nan"
  "an infinite timeout|--timeout: '1e999' is not a finite number|--seed 1 --timeout 1e999"
  "a negative fuzz time|--time: '-5' must be >= 0|fuzz --time -5 --out $tmp/f2"
  "a negative gate budget|--budget: '-1' must be >= 0|gate --budget -1 --out $tmp/g8"
  "no fuzz jobs|--jobs: Value 0 not in range|fuzz --seeds 0..1 --jobs 0 --out $tmp/f3"
  "too many random bindings|--random-bindings: Value 100 not in range|--seed 1 --random-bindings 100"
  "a pass list without LegalizeOps|--passes: the pass list has no LegalizeOps|--seed 1 --opt none --orders 0 --passes FoldConstant"
  "a graph pass after LegalizeOps|--passes: graph pass FoldConstant after LegalizeOps|run $small --opt none --orders 0 --passes LegalizeOps,FoldConstant"
  "resume without a campaign|--resume: $tmp/empty-dir holds no campaign|fuzz --seeds 0..1 --resume --out $tmp/empty-dir"
  "a misspelt corpus header|typo.ir:2:1: error\\[syntax\\]: unknown header '# bnd:'|gate --corpus $tmp/typo.ir --out $tmp/g9"
  "a generator weight past 32 bits|--weights: 'exp=99999999999': a weight is at most 1000000|generate --seed 1 --weights exp=99999999999"
  "a binding past 18 digits|--bind: expected NAME=VALUE|eval $small --bind n=9999999999999999999"
  "a bisect limit past 32 bits|--bisect-limit|compile $small --bisect-limit 99999999999999999999"
)

if [ "$table" = --table ]; then
  echo "| mistake | exit | message |"
  echo "|---|---:|---|"
fi
for c in "${cases[@]}"; do
  name=${c%%|*}
  rest=${c#*|}
  regex=${rest%%|*}
  args=${rest#*|}
  # shellcheck disable=SC2086 # the arguments are words
  out=$(timeout 600 "$difftest" $args 2>&1)
  code=$?
  first=$(printf '%s\n' "$out" | grep -m1 -E 'error|warning|internal|cannot|needs|terminate|what\(\)' || printf '%s\n' "$out" | head -1)
  if [ "$table" = --table ]; then
    printf '| %s | %s | `%s` |\n' "$name" "$code" "$(printf '%s' "${first//$tmp/TMP}" | cut -c1-150)"
    continue
  fi
  if [ "$code" -ne 2 ]; then
    echo "FAIL: $name: exit $code, expected 2: difftest $args"
    printf '%s\n' "$out" | head -5
    failed=1
  elif ! printf '%s\n' "$out" | grep -qE -- "$regex"; then
    echo "FAIL: $name: the message does not match /$regex/"
    printf '%s\n' "$out" | head -5
    failed=1
  fi
done
[ "$table" = --table ] && exit 0
[ $failed -eq 0 ] && echo "ok: ${#cases[@]} user mistakes, each exit 2 with the flag or file named"
exit $failed
