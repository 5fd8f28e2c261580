#!/usr/bin/env bash
# The Tack libraries of the public repository (tack-vis, tack-rendering) on our core.
#   scripts/client_libraries.sh CHECKOUT [BACKENDS]      e.g. /path/to/berkgeveci-tack cpu,opencl
# Fetches nothing. Makes a venv (.venv-clients) that sees this repository's `tack` package (a
# .pth file pointing at python/, after a build has put the extension there), installs the two
# libraries from CHECKOUT/packages into it with --no-deps (they declare `tack-core`, which our
# package is), and runs their test suites through tests/public's fixtures on each backend, then
# their examples (tests/public/run_client_examples.py: what cannot run here is listed with why).
# Their `tack/` folders join ours through pkgutil.extend_path: tack.algorithms, tack.data,
# tack.fe, tack.interop and tack.rendering come from them, everything else from us.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CHECKOUT=$(cd "${1:?usage: scripts/client_libraries.sh CHECKOUT [BACKENDS]}" && pwd)
BACKENDS=${2:-cpu,opencl}
VENV=$ROOT/.venv-clients
if [ ! -x "$VENV/bin/python" ]; then
  "$ROOT/.venv/bin/python" -m venv "$VENV"
fi
site=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
shared=$("$ROOT/.venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
# Our package first, then the shared venv's numpy and pytest (never the checkout's tack-core).
printf '%s\n%s\n' "$ROOT/python" "$shared" > "$site/tack-core-dev.pth"
# The shared venv provides numpy and pytest; the libraries' own code is what gets installed.
for pkg in tack-vis tack-rendering; do
  "$VENV/bin/python" -m pip install -q --no-deps --no-build-isolation "$CHECKOUT/packages/$pkg" ||
    "$VENV/bin/python" -m pip install -q --no-deps "$CHECKOUT/packages/$pkg"
done
"$VENV/bin/python" -c 'import tack, tack.rendering, tack.fe; print("tack from", tack.__file__)'
status=0
for pkg in tack-vis tack-rendering; do
  echo "=== $pkg on $BACKENDS"
  TACK_PACKAGE_PATH="$ROOT/python" TACK_PUBLIC_BACKENDS=$BACKENDS PYTHON="$VENV/bin/python" \
    "$VENV/bin/python" "$ROOT/tests/public/run_public.py" "$CHECKOUT" \
    "$CHECKOUT/packages/$pkg/tests" -q -p no:cacheprovider || status=1
done
echo "=== their examples on $BACKENDS"
TACK_PACKAGE_PATH="$ROOT/python" "$VENV/bin/python" "$ROOT/tests/public/run_client_examples.py" \
  "$CHECKOUT" --arch "$BACKENDS" || status=1
exit $status
