#!/usr/bin/env bash
# The CUDA, HIP and Metal backends end to end on the emulated devices (tests/emulated): every Python
# test parametrized over backends, the public tack-core tests that name the backend (less
# tests/public/internals.txt) and six public examples with --arch BACKEND, and random programs
# through the differential tester, each GPU backend in processes of its own
# (tests/python/conftest.py says why HIP runs apart from PoCL). The public tests need a checkout
# of berkgeveci/tack (scripts/public_checkout.sh finds or clones one; without one that part is
# skipped, and says so). The gtests of tests/unit/cuda, tests/unit/hip and tests/unit/metal run
# in `make unit` (ctest).
#   scripts/emulated_test.sh [BUILD_DIR=build] [PROGRAMS=400] [BACKENDS="cuda hip metal"]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
PROGRAMS=${2:-400}
BACKENDS=${3:-cuda hip metal}
PY=${PYTHON:-$PWD/.venv/bin/python}
EMU=$PWD/$BUILD/emulated
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
export TACK_CACHE_DIR=${TACK_CACHE_DIR:-$PWD/$BUILD/test-cache}
PUBLIC=$(scripts/public_checkout.sh "$BUILD")
for backend in $BACKENDS; do
  case $backend in
    cuda) libs=(TACK_CUDA_LIBRARY="$EMU/libtack_emu_cuda.so" TACK_NVRTC_LIBRARY="$EMU/libtack_emu_nvrtc.so") ;;
    hip) libs=(TACK_HIP_LIBRARY="$EMU/libtack_emu_hip.so" TACK_HIPRTC_LIBRARY="$EMU/libtack_emu_hip.so") ;;
    metal) libs=(TACK_OBJC_LIBRARY="$EMU/libtack_emu_metal.so" TACK_METAL_LIBRARY="$EMU/libtack_emu_metal.so") ;;
    *) echo "emulated_test: unknown backend $backend" >&2; exit 2 ;;
  esac
  if [ ! -f "${libs[0]#*=}" ]; then
    echo "emulated_test: no emulated $backend device in $BUILD (see tests/emulated/CMakeLists.txt)"
    continue
  fi
  echo "emulated_test: $backend: pytest (the cases parametrized over backends)"
  env "${libs[@]}" TACK_TEST_BACKENDS="cpu,$backend" "$PY" -m pytest tests/python -q -k "$backend" \
    -p no:cacheprovider
  if [ -n "$PUBLIC" ]; then
    echo "emulated_test: $backend: the public tack-core tests and examples ($PUBLIC)"
    env "${libs[@]}" TACK_PUBLIC_BACKENDS="$backend" "$PY" tests/public/run_public.py \
      --deselect-file tests/public/internals.txt "$PUBLIC" -q -k "$backend" -p no:cacheprovider
    env "${libs[@]}" "$PY" tests/public/run_examples.py "$PUBLIC" --arch "$backend"
  else
    echo "emulated_test: $backend: public tests skipped (no checkout of berkgeveci/tack; set TACK_PUBLIC_REPO)"
  fi
  echo "emulated_test: $backend: $PROGRAMS random programs"
  env "${libs[@]}" "$PY" tests/random_programs/difftest.py --programs "$PROGRAMS" --seed 1 \
    --backends "$backend"
done
