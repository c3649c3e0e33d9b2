# Sourced by the CLI tests of the stand-in compiler (tests/backends/standin): sets $difftest, $src,
# a temporary $tmp removed on exit, fail(), and $m, the stand-in's manifest written into $tmp/si
# beside its worker. Arguments: DIFFTEST SOURCE_DIR.
set -u
difftest=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/out" 2>/dev/null; exit 1; }
/usr/bin/python3 -c "import numpy" 2>/dev/null || fail "/usr/bin/python3 with numpy (python3-numpy) is needed"
m=$tmp/si/standin.json
mkdir "$tmp/si"
cp "$src/tests/backends/standin/standin_worker.py" "$src/tests/backends/standin/repro.sh.in" "$tmp/si/"
sed "s#@DIFFTEST@#$difftest#; s#@PYTHON@#/usr/bin/python3#" "$src/tests/backends/standin/standin.json.in" > "$m"
