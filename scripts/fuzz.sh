#!/usr/bin/env bash
# Builds the front-end fuzzer with clang-19 (-fsanitize=fuzzer,address,undefined) and runs it
# for SECONDS seconds on a corpus seeded with every golden kernel. Fails on any crash, hang
# (-timeout) or sanitizer report.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-fuzz}
SECONDS_TO_RUN=${2:-60}
if ! command -v clang++-19 >/dev/null; then echo "fuzz: clang++-19 missing" >&2; exit 1; fi
if [ ! -f "$BUILD/build.ninja" ]; then
  CC=clang-19 CXX=clang++-19 cmake -S . -B "$BUILD" -G Ninja -DTACK_FRONT_ONLY=ON -DTACK_FUZZ=ON \
    -DTACK_BUILD_TESTS=OFF -DTACK_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$BUILD" --target fuzz_frontend -j "$(nproc)"
corpus="$BUILD/corpus"
mkdir -p "$corpus"
find tests/golden examples -name '*.py' -exec cp {} "$corpus/" \; 2>/dev/null || true
echo "fuzz: running ${SECONDS_TO_RUN}s on $(ls "$corpus" | wc -l) corpus files"
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
  "$BUILD/tests/fuzz/fuzz_frontend" "$corpus" -max_total_time="$SECONDS_TO_RUN" -timeout=10 -rss_limit_mb=4096 \
  -print_final_stats=1 -artifact_prefix="$BUILD/" 2>"$BUILD/fuzz.log" || {
  tail -50 "$BUILD/fuzz.log"; echo "fuzz: FAILED (artifacts in $BUILD)" >&2; exit 1; }
grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$BUILD/fuzz.log" || true
echo "fuzz: no crash, no hang, no sanitizer report"
