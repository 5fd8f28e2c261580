#!/usr/bin/env bash
# Random-program differential tester (tests/random_programs): N generated kernels on every
# available backend against their serial Python reference; failures are reduced and printed
# with their seeds. Exit 1 on any failure.
#   scripts/differential.sh [N=2000] [FIRST_SEED=1] [BUILD_DIR=build] [extra difftest.py args]
# SELF_CHECK_BATCHES (default 10): batches of 10 programs the negative controls run per mutation.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-2000}
SEED=${2:-1}
BUILD=${3:-build}
shift $(( $# < 3 ? $# : 3 ))
PY=${PYTHON:-$PWD/.venv/bin/python}
[ -f "$BUILD/build.ninja" ] && cmake --build "$BUILD" --target _tack -j "${JOBS:-$(nproc)}" >/dev/null
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
export TACK_CACHE_DIR=${TACK_CACHE_DIR:-$PWD/$BUILD/test-cache}
"$PY" tests/random_programs/difftest.py --self-check --seed "$SEED" \
  --self-check-batches "${SELF_CHECK_BATCHES:-10}"
# PoCL prints "N warnings generated." for generated self-comparisons; keep the log readable.
"$PY" tests/random_programs/difftest.py --programs "$N" --seed "$SEED" "$@" \
  2> >(grep -v 'warnings\? generated\.$' >&2)
