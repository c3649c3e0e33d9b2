# Sourced by the CLI tests of external compilers: reproduce NAME CMD... runs a self-checking
# reproducer, appends its output to $tmp/out, keeps it in $tmp/repro, and fails unless it exits 1
# (the failure reproduces). Needs $tmp and fail().
reproduce() {
  local name=$1
  shift
  "$@" > "$tmp/repro" 2>&1
  local code=$?
  cat "$tmp/repro" >> "$tmp/out"
  [ $code -eq 1 ] || fail "$name exit code $code, expected 1 (the failure reproduces)"
}
