#!/usr/bin/env bash
# Runs the public tack-core examples 11, 21, 23, 24, 29 and 41 (a checkout of berkgeveci/tack)
# unchanged against this package, at sizes that run in seconds.
#   scripts/public_examples.sh PUBLIC_CHECKOUT [--arch cpu,opencl] [NAME ...]
# See tests/public/run_examples.py for what passing means and how opencl is selected.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=${PYTHON:-$ROOT/.venv/bin/python}
exec "$PY" "$ROOT/tests/public/run_examples.py" "$@"
