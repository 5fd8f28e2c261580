#!/usr/bin/env bash
# The core, tackc and the Python extension built with clang and libc++ (macOS's compiler and
# standard library), without LLVM (whose Debian libraries are built against libstdc++), then a
# smoke run: tackc checks a kernel and prints its MSL, and the extension (out of tree, next to a
# copy of the pure-Python package) runs a kernel on the emulated Metal device of EMU_BUILD where
# one is built. It catches what only libc++ refuses (a missing include, a libstdc++-only
# extension), every clang warning (an error here), and what libc++ does differently at run time
# (number parsing, hashing, threads). About 3 minutes cold on 2 cores, seconds with ccache.
#   scripts/libcxx_build.sh [BUILD_DIR=build-libcxx] [EMU_BUILD=build]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-libcxx}
EMU_BUILD=${2:-build}
CXX=${TACK_LIBCXX_CXX:-clang++-19}
CC=${TACK_LIBCXX_CC:-clang-19}
if ! command -v "$CXX" >/dev/null || [ ! -e /usr/lib/llvm-19/include/c++/v1/vector ]; then
  echo "libcxx_build: needs $CXX and libc++-19-dev (scripts/setup.sh installs them)" >&2
  exit 1
fi
export CCACHE_BASEDIR=$PWD
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$CXX" \
    -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_FLAGS="-stdlib=libc++" \
    -DCMAKE_EXE_LINKER_FLAGS="-stdlib=libc++" -DCMAKE_SHARED_LINKER_FLAGS="-stdlib=libc++" \
    -DCMAKE_COMPILE_WARNING_AS_ERROR=ON -DTACK_LLVM=OFF -DTACK_BUILD_TESTS=OFF -DTACK_PYTHON=ON -DTACK_PYTHON_INPLACE=OFF \
    -DPython_EXECUTABLE="$PWD/.venv/bin/python" >/dev/null
fi
cmake --build "$BUILD" -j "${JOBS:-2}"
echo "libcxx_build: built with $("$CXX" --version | head -1) and libc++"
if ldd "$BUILD/tools/tackc/tackc" | grep -q 'libstdc++'; then
  echo "libcxx_build: tackc links libstdc++" >&2
  exit 1
fi
"$BUILD/tools/tackc/tackc" check examples/kernels/saxpy.py
"$BUILD/tools/tackc/tackc" inspect examples/kernels/saxpy.py saxpy --target metal --args 'f32[:],f32[:],f32' \
  --mode source | grep -q 'kernel void tack_kernel_saxpy'
echo "libcxx_build: tackc (libc++) checks and generates MSL"

# The extension beside a copy of the package (python/tack keeps the default build's extension).
PKG=$BUILD/python-libcxx
rm -rf "$PKG" && mkdir -p "$PKG" && cp -r python/tack "$PKG/tack"
rm -f "$PKG"/tack/_tack*.so "$PKG"/tack/_tack_llvm*.so
cp "$BUILD"/_tack*.so "$PKG/tack/"
if ldd "$PKG"/tack/_tack*.so | grep -q 'libstdc++'; then
  echo "libcxx_build: the Python extension links libstdc++" >&2
  exit 1
fi
EMU=$PWD/$EMU_BUILD/emulated/libtack_emu_metal.so
if [ ! -f "$EMU" ]; then
  echo "libcxx_build: no emulated Metal device in $EMU_BUILD; the extension only imports"
  PYTHONPATH="$PKG" .venv/bin/python -c 'import tack; print("libcxx_build: import tack", tack.__version__)'
  exit 0
fi
# A kernel's source is read from its file, so the smoke test is one.
cat >"$PKG/smoke.py" <<'PY'
import numpy as np

import tack

assert tack.__file__.endswith("python-libcxx/tack/__init__.py"), tack.__file__


@tack.kernel
def saxpy(x, y, a):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]


tack.init("metal")
x = np.arange(1000, dtype=np.float32)
fx, y = tack.field(tack.f32, 1000), tack.field(tack.f32, 1000)
fx.from_numpy(x)
y.from_numpy(np.ones(1000, dtype=np.float32))
saxpy(fx, y, np.float32(2.5))
np.testing.assert_array_equal(y.to_numpy(), 2.5 * x + 1)
print("libcxx_build: the extension (libc++) ran saxpy on the emulated Metal device")
PY
TACK_OBJC_LIBRARY=$EMU TACK_METAL_LIBRARY=$EMU TACK_CACHE_DIR=$(mktemp -d) PYTHONPATH="$PKG" \
  .venv/bin/python "$PKG/smoke.py"
