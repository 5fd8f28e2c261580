#!/usr/bin/env bash
# The demo: tackc on an example kernel file, then a real Python program on the CPU (Mandelbrot,
# written to a PNG, with its timings).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
TACKC=$BUILD/tools/tackc/tackc
$TACKC --version
$TACKC check examples/kernels/saxpy.py
$TACKC inspect examples/kernels/saxpy.py saxpy --args 'f32[:],f32[:],f32' --mode ir
cmake --build "$BUILD" --target _tack >/dev/null
PYTHONPATH=python .venv/bin/python examples/mandelbrot.py --out "$BUILD/mandelbrot.png"
