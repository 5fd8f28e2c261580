#!/usr/bin/env bash
# Runs the public Tack test suite (a checkout of berkgeveci/tack) against this package.
#   scripts/public_tests.sh PUBLIC_CHECKOUT [pytest args...]
#   scripts/public_tests.sh --status OUT.md PUBLIC_CHECKOUT [test files or dirs...]
# The package under test is $TACK_PACKAGE_PATH (a folder holding tack/), default python/;
# TACK_PUBLIC_BACKENDS=cpu,opencl restricts the backend fixtures; TACK_PUBLIC_EXTRA_PATH adds
# folders after our package (CHECKOUT/packages/tack-vis/src for the tack-vis tests).
# Shims and fixtures: tests/public/ (see tack_public_plugin.py).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=${PYTHON:-$ROOT/.venv/bin/python}
exec "$PY" "$ROOT/tests/public/run_public.py" "$@"
