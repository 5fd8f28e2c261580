#!/usr/bin/env bash
# Tack across processes (docs/scaling.md), run by `make scaleout` inside `make test`:
#   - examples/mpi_heat.py on 1 rank and under `mpirun -n 2`, on the CPU and on OpenCL: the same
#     bytes;
#   - examples/cpp_mpi (C++ API + MPI, built against an install of this tree) on 1 and 2 ranks:
#     the same bytes again;
#   - tests/scaleout/cache_race.py: 8 processes compiling one new kernel into one fresh cache.
#   scripts/scaleout_test.sh [BUILD_DIR]     (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=$(realpath "${1:-build}")
PY=$PWD/.venv-docs/bin/python
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

export PYTHONPATH=$PWD/python
export TACK_CACHE_DIR=$tmp/cache
# Root in CI; two ranks on two cores; shared-memory transport without ptrace-based single copy
# (refused in containers).
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader
        --mca btl_vader_single_copy_mechanism none -x PYTHONPATH -x TACK_CACHE_DIR)

"$PY" examples/mpi_heat.py --out "$tmp/py1.npy"
"${MPIRUN[@]}" -n 2 "$PY" examples/mpi_heat.py --out "$tmp/py2.npy"
TACK_EXAMPLES_ARCH=opencl "${MPIRUN[@]}" -x TACK_EXAMPLES_ARCH -n 2 "$PY" examples/mpi_heat.py \
  --out "$tmp/ocl2.npy"

cmake --install "$BUILD" --prefix "$tmp/prefix" >/dev/null
cmake -S examples/cpp_mpi -B "$tmp/cpp_mpi" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/cpp_mpi" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
"$tmp/cpp_mpi/heat_mpi" examples/kernels/heat_step.py --out "$tmp/cpp1.bin"
"${MPIRUN[@]}" -n 2 "$tmp/cpp_mpi/heat_mpi" examples/kernels/heat_step.py --out "$tmp/cpp2.bin"

"$PY" - "$tmp" <<'PYEOF'
import sys, numpy as np
d = sys.argv[1]
ref = np.load(f"{d}/py1.npy").tobytes()
runs = {"python, 2 ranks": np.load(f"{d}/py2.npy").tobytes(),
        "python on OpenCL, 2 ranks": np.load(f"{d}/ocl2.npy").tobytes(),
        "C++, 1 rank": open(f"{d}/cpp1.bin", "rb").read(),
        "C++, 2 ranks": open(f"{d}/cpp2.bin", "rb").read()}
bad = [name for name, data in runs.items() if data != ref]
if bad:
    sys.exit(f"scaleout: not bit-identical to the one-rank Python run: {', '.join(bad)}")
print("scaleout: python 1/2 ranks (CPU), 2 ranks (OpenCL) and C++ 1/2 ranks are bit-identical")
PYEOF

"$PY" tests/scaleout/cache_race.py --procs 8
echo "scaleout: ok"
