#!/usr/bin/env bash
# Builds every benchmark program in Release and runs each one.
#   scripts/bench.sh [BUILD_DIR]
# BUILD_DIR is used when it is configured as Release; otherwise (`make bench` passes the default
# RelWithDebInfo tree) a separate Release tree, build-release, is configured next to it, since
# timings of an -O2 -g1 build say little. Results print as tables; bench_cpu also writes
# benchmarks/results/cpu.json. Benchmarks report ratios against baselines measured in the same
# run and exit non-zero only when a program fails or a result is wrong, never on a slow number:
# the machines are shared and noisy.
set -uo pipefail
cd "$(dirname "$0")/.."
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
exit $fail
