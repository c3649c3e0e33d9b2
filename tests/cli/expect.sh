#!/usr/bin/env bash
# expect.sh CODE REGEX COMMAND...: runs COMMAND, passes when it exits with CODE and its output
# (stdout and stderr) matches the extended regular expression REGEX.
set -u
want_code=$1
regex=$2
shift 2
out=$("$@" 2>&1)
code=$?
if [ "$code" -ne "$want_code" ]; then
  printf 'exit code %s, expected %s\n%s\n' "$code" "$want_code" "$out"
  exit 1
fi
if ! printf '%s\n' "$out" | grep -qE -- "$regex"; then
  printf 'output does not match /%s/:\n%s\n' "$regex" "$out"
  exit 1
fi
exit 0
