#!/usr/bin/env bash
# Until the CPU backend lands: check an example kernel file and print its typed IR.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
TACKC=$BUILD/tools/tackc/tackc
$TACKC --version
$TACKC check examples/kernels/saxpy.py
$TACKC inspect examples/kernels/saxpy.py saxpy --args 'f32[:],f32[:],f32' --mode ir
