#!/usr/bin/env bash
# Builds every benchmark program in Release and runs each one.
#   scripts/bench.sh [BUILD_DIR]
#   scripts/bench.sh --peers [peers.py args...]
# --peers (make bench-peers): installs Numba, Warp and Quadrants into .venv-peers (a venv of its
# own, on the same Python as .venv; never a dependency of the package), builds the Python
# extension in build-release and runs benchmarks/peers.py against it.
# BUILD_DIR is used when it is configured as Release; otherwise (`make bench` passes the default
# RelWithDebInfo tree) a separate Release tree, build-release, is configured next to it, since
# timings of an -O2 -g1 build say little. bench_algorithms.py runs last, on python/ with the
# extension `make build` put there (its kernels are LLVM O3 either way). Results print as
# tables; bench_cpu also writes benchmarks/results/cpu.json. Benchmarks report ratios against
# baselines measured in the same run and exit non-zero only when a program fails or a result is
# wrong, never on a slow number: the machines are shared and noisy.
set -uo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--peers" ]; then
  shift
  PEERS=.venv-peers
  BASE_PY=$(.venv/bin/python -c 'import sys; print(sys.base_prefix)')/bin/python3
  if [ ! -x "$PEERS/bin/python" ]; then
    "$BASE_PY" -m venv "$PEERS" || exit 1
  fi
  for pkg in numpy numba warp-lang quadrants; do
    "$PEERS/bin/python" -m pip show -q "$pkg" >/dev/null 2>&1 ||
      "$PEERS/bin/python" -m pip install -q "$pkg" || echo "bench.sh: $pkg did not install; skipped"
  done
  REL=build-release
  if [ ! -f "$REL/build.ninja" ] || ! grep -q '^TACK_PYTHON:BOOL=ON' "$REL/CMakeCache.txt"; then
    cmake -S . -B "$REL" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTACK_BUILD_TESTS=OFF \
      -DTACK_PYTHON=ON -DTACK_PYTHON_INPLACE=OFF -DPython_EXECUTABLE="$PWD/.venv/bin/python" || exit 1
  fi
  cmake --build "$REL" --target _tack -j "$(nproc)" || exit 1
  # The package from python/ with the Release extension next to it.
  PKG=$REL/python-package/tack
  rm -rf "$PKG" && mkdir -p "$PKG"
  for f in python/tack/*; do
    case "$f" in *.so|*/__pycache__) ;; *) ln -s "$PWD/$f" "$PKG/" ;; esac
  done
  cp "$REL"/_tack*.so "$PKG/"
  exec env PYTHONPATH="$PWD/$REL/python-package" "$PEERS/bin/python" benchmarks/peers.py "$@"
fi

BUILD=${1:-build-release}
if [ -f "$BUILD/CMakeCache.txt" ] && ! grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' "$BUILD/CMakeCache.txt"; then
  BUILD=build-release
fi
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTACK_BUILD_TESTS=OFF || exit 1
fi

targets=$(cmake --build "$BUILD" --target help | sed -n 's/^\(bench_[A-Za-z0-9_]*\): .*/\1/p' | grep -v '_baselines$')
if [ -z "$targets" ]; then echo "bench.sh: no benchmark targets in $BUILD"; exit 1; fi
# shellcheck disable=SC2086
cmake --build "$BUILD" --target $targets -j "$(nproc)" || exit 1

fail=0
for t in $targets; do
  echo "=== $t"
  if ! "$BUILD/benchmarks/$t"; then echo "bench.sh: $t failed"; fail=1; fi
done
# Templates are a feature of the Python package: this one runs against python/ once the
# extension is built there (`make build` copies it in); the kernels are JIT-compiled at the same
# optimization level whatever the extension's build type.
if ls python/tack/_tack*.so >/dev/null 2>&1; then
  echo "=== bench_templates"
  if ! PYTHONPATH=python .venv/bin/python benchmarks/bench_templates.py; then
    echo "bench.sh: bench_templates failed"; fail=1
  fi
else
  echo "bench.sh: bench_templates skipped (no extension in python/tack; run make build)"
fi

# What answering Ctrl-C costs: chunked CPU launches and interruptible device waits.
if ls python/tack/_tack*.so >/dev/null 2>&1; then
  echo "=== bench_interrupts.py"
  if ! PYTHONPATH=python .venv/bin/python benchmarks/bench_interrupts.py; then
    echo "bench.sh: bench_interrupts failed"; fail=1
  fi
fi

# tack.algorithms (issue 10): benchmarks/bench_algorithms.py against NumPy and the C++ OpenMP
# baselines (a shared library built here), on the package in python/ with the extension that
# `make build` puts there.
if ls python/tack/_tack*.so >/dev/null 2>&1 && [ -x .venv/bin/python ]; then
  baselines=()
  if cmake --build "$BUILD" --target bench_algorithms_baselines -j "$(nproc)"; then
    baselines=(--baselines "$BUILD/benchmarks/libbench_algorithms_baselines.so")
  fi
  echo "=== bench_algorithms.py"
  if ! PYTHONPATH=python .venv/bin/python benchmarks/bench_algorithms.py ${baselines[@]+"${baselines[@]}"}; then
    echo "bench.sh: bench_algorithms.py failed"; fail=1
  fi
else
  echo "bench.sh: bench_algorithms.py skipped (no Python extension in python/tack: make build)"
fi
exit $fail
