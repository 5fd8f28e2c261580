#!/usr/bin/env bash
# `make wheel-test`: builds the wheel (`pip wheel .`, LLVM linked statically per pyproject.toml's
# TACK_LLVM_STATIC), installs it into a fresh venv, and checks that it is self-contained:
#   - the extension and its CPU code generator (_tack_llvm.so, which carries LLVM and is opened
#     when a CPU backend starts) need no libLLVM and no vendor runtime (OpenCL, Level Zero,
#     CUDA, HIP are dlopen'd by their backends) and export no LLVM symbols;
#   - it carries the stubs of the device-only intrinsics and the py.typed marker;
#   - with LD_LIBRARY_PATH empty and outside the source tree it imports and runs a kernel;
#   - `import tack` stays within 15 ms of CPU time (median of 7 fresh processes; the wall clock
#     is printed too, but on a loaded machine it mostly measures waiting for a core).
# Before the wheel, `pip install .` into a fresh venv, then `python -m tack` and an example.
# Prints the pip install time, the wheel size, the extension's DT_NEEDED list and the import time.
#   scripts/wheel_test.sh [OUT_DIR]      (default: build-wheel/dist; the CMake build is cached
#                                          in build-wheel/ between runs)
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
OUT=$(realpath -m "${1:-build-wheel/dist}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PY=${PYTHON:-python3}

rm -rf "$OUT" && mkdir -p "$OUT"
# First `pip install .` into a fresh venv, as docs/getting-started.md tells a user, timed (the
# CMake build it leaves in build-wheel/ makes the wheel below a repack).
"$PY" -m venv "$tmp/src-venv"
"$tmp/src-venv/bin/pip" install -q --upgrade pip
start=$(date +%s)
CMAKE_BUILD_PARALLEL_LEVEL=${JOBS:-2} "$tmp/src-venv/bin/pip" install -q .
echo "pip install .: $(($(date +%s) - start)) s ($(nproc) cores; build-wheel/ $([ -n "$(ls -A build-wheel 2>/dev/null)" ] && echo kept between runs))"
(cd "$tmp" && env -u PYTHONPATH TACK_CACHE_DIR="$tmp/cache" "$tmp/src-venv/bin/python" -m tack |
  grep '^  cpu (CPU): available$' >/dev/null) ||
  { echo "wheel_test: after pip install ., python -m tack does not list the cpu backend"; exit 1; }
(cd "$tmp" && env -u PYTHONPATH TACK_CACHE_DIR="$tmp/cache" "$tmp/src-venv/bin/python" \
  "$REPO/examples/hello.py" >/dev/null) ||
  { echo "wheel_test: after pip install ., examples/hello.py fails"; exit 1; }
echo "wheel_test: pip install . then python -m tack and examples/hello.py ran"

"$PY" -m venv "$tmp/build-venv"
"$tmp/build-venv/bin/pip" install -q --upgrade pip
CMAKE_BUILD_PARALLEL_LEVEL=${JOBS:-2} "$tmp/build-venv/bin/pip" wheel . --no-deps -w "$OUT" -q
wheel=$(ls "$OUT"/tack_core-*.whl)
echo "wheel: $(basename "$wheel") $(du -h "$wheel" | cut -f1) ($(stat -c %s "$wheel") bytes)"

"$PY" -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q "$wheel"
# The extension and the CPU code generator it opens when a CPU backend starts (_tack_llvm.so).
for ext in "$tmp"/venv/lib/python3*/site-packages/tack/_tack*.so; do
  echo "$(basename "$ext"): $(du -h "$ext" | cut -f1); needs: $(readelf -d "$ext" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')"
  if ldd "$ext" | grep -Ei 'libLLVM|libclang|libOpenCL|libze_|libcuda|libnvrtc|libamdhip|libhiprtc|libz3|not found'; then
    echo "wheel_test: $(basename "$ext") links a library it must not (above)"; exit 1
  fi
  if readelf --dyn-syms -W "$ext" | awk '$7 != "UND"' | grep -q '_ZN4llvm'; then
    echo "wheel_test: $(basename "$ext") exports LLVM symbols"; exit 1
  fi
done
ls "$tmp"/venv/lib/python3*/site-packages/tack/_tack_llvm.so >/dev/null ||
  { echo "wheel_test: the wheel has no _tack_llvm.so (TACK_LLVM_LAZY)"; exit 1; }
# The stubs of the device-only intrinsics and the marker that type checkers read them by.
for f in py.typed _intrinsics.pyi math.pyi; do
  ls "$tmp"/venv/lib/python3*/site-packages/tack/$f >/dev/null ||
    { echo "wheel_test: the wheel has no tack/$f"; exit 1; }
done

cd "$tmp"
# A file, not stdin: kernels need their source.
cat > "$tmp/run_kernel.py" <<'PYEOF'
import numpy as np
import tack
assert "site-packages" in tack.__file__, tack.__file__

@tack.kernel
def saxpy(x, y, a):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]

x = tack.field_like(np.arange(1000, dtype=np.float32))
y = tack.ones(tack.f32, 1000)
saxpy(x, y, 2.0)
assert np.array_equal(y.to_numpy(), 2.0 * np.arange(1000, dtype=np.float32) + 1.0)
print("wheel_test: saxpy ran from the installed wheel")
PYEOF
run_kernel() {
  env -u PYTHONPATH LD_LIBRARY_PATH= TACK_CACHE_DIR="$tmp/cache" "$tmp/venv/bin/python" run_kernel.py
}
run_kernel
# python -m tack and the wheel's tackc script: the core's command line inside the extension.
env -u PYTHONPATH TACK_CACHE_DIR="$tmp/cache" "$tmp/venv/bin/python" -m tack | grep '^  cpu (CPU): available$' >/dev/null ||
  { echo "wheel_test: python -m tack does not list the cpu backend as available"; exit 1; }
env -u PYTHONPATH "$tmp/venv/bin/tackc" --version | grep '^tackc ' >/dev/null ||
  { echo "wheel_test: the wheel has no working tackc script"; exit 1; }
env -u PYTHONPATH TACK_CACHE_DIR="$tmp/cache" "$tmp/venv/bin/tackc" cache info >/dev/null
# Again as on a machine with no LLVM and no GPU SDK: in a private mount namespace every LLVM
# and vendor library of this machine is hidden (needs root; skipped where unshare is refused).
hide='mkdir -p /tmp/tack-empty
for d in /usr/lib/llvm-*; do mount --bind /tmp/tack-empty "$d"; done
for f in /usr/lib/x86_64-linux-gnu/lib{LLVM,clang,OpenCL,ze_,amdhip64,hiprtc,cuda,nvrtc}*.so*; do
  [ -f "$f" ] && [ ! -L "$f" ] && mount --bind /dev/null "$f"
done
true'
if unshare -m true 2>/dev/null; then
  export -f run_kernel; export tmp
  unshare -m bash -c "$hide; run_kernel" | sed 's/$/ (no LLVM, no GPU SDK visible)/'
else
  echo "wheel_test: unshare not permitted here; skipped the run with LLVM hidden"
fi

read -r wall cpu < <(env -u PYTHONPATH LD_LIBRARY_PATH= "$tmp/venv/bin/python" \
  "$REPO/scripts/import_time.py" 7)
echo "import tack: ${wall} ms wall, ${cpu} ms CPU (medians of 7 fresh processes)"
awk -v ms="$cpu" 'BEGIN { exit !(ms <= 15) }' || { echo "wheel_test: import tack over 15 ms CPU"; exit 1; }
echo "wheel_test: ok"
