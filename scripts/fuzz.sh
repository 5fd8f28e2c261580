#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-19 (-fsanitize=fuzzer,address,undefined) and runs
# each on a corpus seeded with every golden kernel and example:
#   fuzz_frontend     lex, parse, validate, lower, passes          SECONDS
#   fuzz_compile      ... plus LLVM IR and the four C dialects     SECONDS / 2
#   fuzz_cache_entry  the disk-cache entry decoder                 SECONDS / 6
#   fuzz_arguments    tackc's --args and --shapes parsers          SECONDS / 6
# Fails on any crash, hang (-timeout), leak or sanitizer report.
#   scripts/fuzz.sh [BUILD=build-fuzz] [SECONDS=60] [TARGETS="fuzz_frontend fuzz_compile fuzz_cache_entry fuzz_arguments"]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-fuzz}
SECONDS_TO_RUN=${2:-60}
TARGETS=${3:-fuzz_frontend fuzz_compile fuzz_cache_entry fuzz_arguments}
if ! command -v clang++-19 >/dev/null; then echo "fuzz: clang++-19 missing" >&2; exit 1; fi
# The compile-path target needs the code generators: an older front-only tree is reconfigured.
if [ -f "$BUILD/CMakeCache.txt" ] && grep -q '^TACK_FRONT_ONLY:BOOL=ON' "$BUILD/CMakeCache.txt"; then
  rm -rf "$BUILD"
fi
if [ ! -f "$BUILD/build.ninja" ]; then
  CC=clang-19 CXX=clang++-19 cmake -S . -B "$BUILD" -G Ninja -DTACK_FUZZ=ON -DTACK_PYTHON=OFF \
    -DTACK_BUILD_TESTS=OFF -DTACK_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
# shellcheck disable=SC2086
cmake --build "$BUILD" --target $TARGETS -j "${JOBS:-$(nproc)}"
corpus="$BUILD/corpus"
mkdir -p "$corpus" "$BUILD/corpus-cache"
find tests/golden examples -name '*.py' -exec cp {} "$corpus/" \; 2>/dev/null || true
for target in $TARGETS; do
  case $target in
    fuzz_compile) t=$((SECONDS_TO_RUN / 2)); dir=$corpus-compile; mkdir -p "$dir"; cp "$corpus"/* "$dir"/ ;;
    fuzz_cache_entry) t=$((SECONDS_TO_RUN / 6)); dir=$BUILD/corpus-cache ;;
    fuzz_arguments) t=$((SECONDS_TO_RUN / 6)); dir=$BUILD/corpus-arguments; mkdir -p "$dir"
      printf 'f32[:],f32x3[:,:],tex3d,i32\n64;32,32;4,4,4' >"$dir/seed"
      printf 'f32x2x2[],u8[:,:,:,:]\n;1,2,3,4' >"$dir/seed2" ;;
    *) t=$SECONDS_TO_RUN; dir=$corpus ;;
  esac
  [ "$t" -ge 1 ] || t=1
  echo "fuzz: $target for ${t}s on $(ls "$dir" | wc -l) corpus files"
  log="$BUILD/$target.log"
  bin=$(find "$BUILD" -name "$target" -type f -perm -u+x | head -1)
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
    "$bin" "$dir" -max_total_time="$t" -timeout=10 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$BUILD/$target-" 2>"$log" || {
    tail -50 "$log"; echo "fuzz: $target FAILED (artifacts in $BUILD)" >&2; exit 1; }
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$log" || true
done
echo "fuzz: no crash, no hang, no sanitizer report"
