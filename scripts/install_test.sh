#!/usr/bin/env bash
# Installs a built tree into a temporary prefix, then configures, builds and runs the consumer
# project tests/install (find_package(Tack CONFIG REQUIRED), Tack::tack) against it.
#   scripts/install_test.sh [BUILD_DIR]     (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=$(realpath "${1:-build}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake --build "$BUILD" --target tack tackc
cmake --install "$BUILD" --prefix "$tmp/prefix" >/dev/null
test -x "$tmp/prefix/bin/tackc" || { echo "install_test: tackc was not installed"; exit 1; }
"$tmp/prefix/bin/tackc" --version

cmake -S tests/install -B "$tmp/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/consumer"
"$tmp/consumer/app"
echo "install_test: ok"
