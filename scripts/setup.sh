#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks, idempotently: apt packages once, a Python venv
# with the pip packages. Quick (well under a second) when everything is present.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential cmake ninja-build ccache git pkg-config
  llvm-19-dev clang-19 libclang-rt-19-dev
  libc++-19-dev libc++abi-19-dev  # the libc++ build (scripts/libcxx_build.sh): macOS's library
  googletest libgtest-dev libbenchmark-dev
  clang-format
  pocl-opencl-icd ocl-icd-opencl-dev opencl-headers
  clang-15 llvm-spirv-15 spirv-tools
  libze1 libze-dev
  libamdhip64-dev
  libopenmpi-dev openmpi-bin
  libzstd-dev  # the static-LLVM wheel: LLVMSupport links zstd::libzstd_shared
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi

PY=${PYTHON:-python3}
PIP_PACKAGES=(numpy pytest nanobind scikit-build-core pillow ruff)
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PY" -m venv .venv
fi
stamp=.venv/.tack-pip-stamp
want="${PIP_PACKAGES[*]}"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q "${PIP_PACKAGES[@]}"
  echo "$want" > "$stamp"
fi

# A second venv for the docs and the MPI examples (make docs, make scaleout): MkDocs and mpi4py
# stay out of the main venv. Tack itself comes from PYTHONPATH=python, so it needs numpy too.
DOCS_PIP_PACKAGES=(numpy mpi4py mkdocs mkdocs-material)
if [ ! -x .venv-docs/bin/python ]; then
  echo "setup: creating .venv-docs"
  "$PY" -m venv .venv-docs
fi
stamp=.venv-docs/.tack-pip-stamp
want="${DOCS_PIP_PACKAGES[*]}"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  .venv-docs/bin/pip install -q "${DOCS_PIP_PACKAGES[@]}"
  echo "$want" > "$stamp"
fi
