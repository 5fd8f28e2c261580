#!/usr/bin/env bash
# Builds the Python extension (tack._tack) in BUILD_DIR and runs the Python tests against the
# package in python/ (the build copies the extension into python/tack/).
#   scripts/python_test.sh [BUILD_DIR] [pytest args...]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-python}
shift || true
PY=${PYTHON:-$PWD/.venv/bin/python}
if [ ! -f "$BUILD/build.ninja" ] || ! grep -q '^TACK_PYTHON:BOOL=ON' "$BUILD/CMakeCache.txt"; then
  cmake -S . -B "$BUILD" -G Ninja -DTACK_PYTHON=ON -DPython_EXECUTABLE="$PY"
fi
cmake --build "$BUILD" --target _tack -j "${JOBS:-$(nproc)}"
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
exec "$PY" -m pytest tests/python -q "$@"
