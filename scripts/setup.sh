#!/usr/bin/env bash
# Installs whatever Debian packages are missing, then configures and builds difftest.
#   scripts/setup.sh              release build of the difftest binary alone in build/ (the
#                                 README's first command: a verdict minutes after the clone)
#   scripts/setup.sh --all        the same and every test and benchmark (scripts/test.sh)
#   scripts/setup.sh --sanitize   AddressSanitizer + UndefinedBehaviorSanitizer build of everything in build-asan/
# Needs root or sudo only when a package is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ llvm-14-dev libeigen3-dev libopenblas-dev librapidcheck-dev nlohmann-json3-dev
          libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev libfmt-dev python3 python3-numpy python3-venv
          libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata)
# The tests open campaign reports in a headless browser: Debian's Chromium (tests/cli/report_browser.sh).
[ "${1:-}" = "--all" ] && packages+=(chromium)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js and npm run ONNX Runtime (the ort backend); Debian's nodejs has no npm of its own.
command -v node > /dev/null || missing+=(nodejs)
command -v npm > /dev/null || missing+=(npm)
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

build_dir=build
# -O2 without debug information, and the sanitizer build at -O1 with line tables only: enough
# for readable sanitizer reports, and it keeps CI's two builds from a clean clone short.
cmake_args=(-G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG")
build_targets=(--target difftest)
if [ "${1:-}" = "--sanitize" ]; then
  build_dir=build-asan
  cmake_args=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
              -DDIFFTEST_SANITIZE=ON)
  build_targets=()
elif [ "${1:-}" = "--all" ]; then
  build_targets=()
elif [ -n "${1:-}" ]; then
  echo "usage: scripts/setup.sh [--all | --sanitize]" >&2
  exit 2
fi
cmake -S . -B "$build_dir" "${cmake_args[@]}" > /dev/null
# ONNX Runtime for the ort backend: the pinned onnxruntime-node (backends/onnxruntime/package-lock.json)
# into the build tree, from the npm registry only (its install script, which would fetch GPU
# binaries from elsewhere, is skipped: the CPU library ships in the package).
ort_dir="$build_dir/onnxruntime-node"
if ! cmp -s "$ort_dir/package-lock.json" "$ort_dir/node_modules/.package-lock.json.installed" 2> /dev/null; then
  (cd "$ort_dir" && ONNXRUNTIME_NODE_INSTALL=skip npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  cp "$ort_dir/package-lock.json" "$ort_dir/node_modules/.package-lock.json.installed"
fi
# Python packages of the backends (backends/*/requirements.lock: OpenVINO, ONNX Runtime's Python
# binding, Apache TVM), each into a virtual environment of its own in the build tree (build/<backend>/venv),
# from PyPI only, every file checked against the lock's hashes.
for lock in backends/*/requirements.lock; do
  venv="$build_dir/$(basename "$(dirname "$lock")")/venv"
  if ! cmp -s "$lock" "$venv/requirements.lock.installed" 2> /dev/null; then
    rm -rf "$venv"
    /usr/bin/python3 -m venv "$venv"  # Debian's CPython 3.11, whichever python3 is first on PATH
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --require-hashes --only-binary :all: \
      -r "$lock"
    cp "$lock" "$venv/requirements.lock.installed"
  fi
done
# The checkers of the deploy templates' tests (deploy/requirements.lock), for the test builds only.
if [ "${1:-}" = "--all" ]; then
  venv="$build_dir/deploy/venv"
  if ! cmp -s deploy/requirements.lock "$venv/requirements.lock.installed" 2> /dev/null; then
    rm -rf "$venv"
    /usr/bin/python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --require-hashes --only-binary :all: \
      -r deploy/requirements.lock
    cp deploy/requirements.lock "$venv/requirements.lock.installed"
  fi
fi
cmake --build "$build_dir" "${build_targets[@]}"
