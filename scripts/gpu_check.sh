#!/usr/bin/env bash
# The CUDA checks that need an NVIDIA GPU (issue 11), runnable unchanged on a machine with CMake,
# ninja, gcc and a driver but no LLVM and no package registry:
#
#   scripts/gpu_check.sh --prepare      (on a machine with libgtest-dev) copy the googletest
#                                       sources into build-gpu-deps/ (git-ignored: hand it to the
#                                       device run as a carried path, carry=["build-gpu-deps"])
#   scripts/gpu_check.sh --build-only   configure and build the TACK_LLVM=OFF tree only
#   scripts/gpu_check.sh                build, then run and print every figure:
#     1. the backend suite on cuda (tests/unit/cuda: differential against a host reference,
#        queue order, per-launch scalars under 4 threads, a context the test makes through the
#        driver API adopted, reductions) and the shared GPU layer's tests;
#     2. bench_cuda: saxpy/triad bandwidth as a fraction of a device-to-device copy, launch
#        overhead against a raw cuLaunchKernel of the same PTX, the first call's source;
#     3. a second process over the same TACK_CACHE_DIR: the disk cache serves the PTX;
#     4. DLPack in and out with CuPy / PyTorch, field_from_ptr, memory spaces
#        (scripts/gpu_dlpack_check.py over the Python extension built in the same tree);
#     5. hardware textures: tack.texture3d sampled through a CUDA texture object against the
#        NumPy trilinear reference within 3/256 (scripts/gpu_texture_check.py; step 1's
#        CudaTextures.HardwareSamplesMatchTheTrilinearReference checks the C++ API's path).
# Exit status: 0 when every step passed.
set -uo pipefail
cd "$(dirname "$0")/.."
DEPS=build-gpu-deps
BUILD=${BUILD:-build-gpu}
JOBS=${JOBS:-$(nproc)}

if [ "${1:-}" = "--prepare" ]; then
  rm -rf "$DEPS" && mkdir -p "$DEPS"
  cp -r /usr/src/googletest "$DEPS/googletest" || { echo "no /usr/src/googletest"; exit 1; }
  # nanobind (sources + CMake package) for the Python extension, from this checkout's venv.
  nb=$(.venv/bin/python -m nanobind --cmake_dir 2>/dev/null) && cp -r "$(dirname "$nb")" "$DEPS/nanobind"
  echo "googletest and nanobind sources in $DEPS"
  exit 0
fi

GTEST=()
# The carried sources win over an installed GTest, so every machine builds the same one.
[ -f "$DEPS/googletest/CMakeLists.txt" ] && GTEST=(-DTACK_GTEST_SOURCE_DIR="$PWD/$DEPS/googletest" -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON)
set -e
cmake -S . -B "$BUILD" -G Ninja -DTACK_LLVM=OFF -DCMAKE_BUILD_TYPE=Release "${GTEST[@]}" >/dev/null
cmake --build "$BUILD" -j "$JOBS" --target test_gpu test_cuda bench_cuda tackc
set +e
[ "${1:-}" = "--build-only" ] && { echo "gpu_check: built $BUILD"; exit 0; }

# NVRTC ships with the toolkit, often outside the loader's path.
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [ -d "$d" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done

fail=0
step() { echo; echo "== $*"; }
export TACK_CACHE_DIR
TACK_CACHE_DIR=$(mktemp -d /tmp/tack-gpu-check-XXXXXX)

step "devices"
"$BUILD/tools/tackc/tackc" devices | sed -n '/^cuda/,/^[a-z]/p'
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

step "shared GPU layer (tests/unit/gpu)"
"$BUILD/tests/test_gpu" --gtest_brief=1 || fail=1

step "CUDA backend suite (tests/unit/cuda), first process: fills $TACK_CACHE_DIR"
"$BUILD/tests/test_cuda" --gtest_brief=1 2>&1 | tee /tmp/tack-gpu-check-cuda.log
[ "${PIPESTATUS[0]}" -eq 0 ] || fail=1
if grep -q "SKIPPED" /tmp/tack-gpu-check-cuda.log; then
  echo "gpu_check: CUDA tests were skipped (no device?)"; fail=1
fi

step "bench_cuda, first process"
"$BUILD/bench_cuda" || fail=1

step "bench_cuda, second process over the same disk cache (expect: NVRTC builds 0, loads 1)"
out=$("$BUILD/bench_cuda" 2>&1); rc=$?
printf '%s\n' "$out"
[ $rc -eq 0 ] || fail=1
printf '%s\n' "$out" | grep -q "NVRTC builds 0, disk-cache loads 1" || { echo "gpu_check: the disk cache did not serve the second process"; fail=1; }

step "CUDA suite again, second process (its kernels come from the disk cache)"
"$BUILD/tests/test_cuda" --gtest_brief=1 --gtest_filter='Cuda.*' || fail=1

step "DLPack with CuPy / PyTorch, memory spaces (Python extension, built here)"
PY=${PYTHON:-$(command -v python3)}
NB=()
[ -d "$DEPS/nanobind/cmake" ] && NB=(-Dnanobind_DIR="$PWD/$DEPS/nanobind/cmake")
# Not copied into python/tack (TACK_PYTHON_INPLACE=OFF): this tree's extension has no CPU
# backend, so it runs from a package copy under $BUILD/py instead.
if cmake -S . -B "$BUILD" -DTACK_PYTHON=ON -DTACK_PYTHON_INPLACE=OFF -DPython_EXECUTABLE="$PY" \
     "${NB[@]}" >/dev/null && cmake --build "$BUILD" -j "$JOBS" --target _tack >/dev/null; then
  rm -rf "$BUILD/py" && mkdir -p "$BUILD/py" && cp -r python/tack "$BUILD/py/"
  cp "$BUILD"/_tack*.so "$BUILD/py/tack/"
  PYTHONPATH="$PWD/$BUILD/py" "$PY" scripts/gpu_dlpack_check.py || fail=1
  step "hardware textures against the NumPy trilinear reference"
  PYTHONPATH="$PWD/$BUILD/py" "$PY" scripts/gpu_texture_check.py || fail=1
else
  echo "gpu_check: the Python extension did not build (nanobind / Python headers?)"; fail=1
fi

rm -rf "$TACK_CACHE_DIR"
echo
[ $fail -eq 0 ] && echo "gpu_check: all steps passed" || echo "gpu_check: FAILED"
exit $fail
