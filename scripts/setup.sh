#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks, idempotently: apt packages once, a Python venv
# with the pip packages. Quick (well under a second) when everything is present. It asks dpkg
# what is installed first, so a machine with the packages needs neither apt nor root; on a
# system without dpkg it checks the tools the build needs and names what is missing
# (docs/getting-started.md, Requirements).
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential cmake ninja-build ccache git pkg-config
  python3-dev python3-venv  # the extension's headers; the .venv below (a fresh Debian has neither)
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
if command -v dpkg-query >/dev/null; then
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
else
  # Not Debian: the build's own tools, by the commands CMake looks for. The test-only packages
  # (PoCL, hipRTC, MPI, ...) are left to the tests, which skip or say what they lack.
  lacking=()
  for tool in cmake ninja c++ git; do command -v "$tool" >/dev/null || lacking+=("$tool"); done
  command -v llvm-config-19 >/dev/null || command -v llvm-config >/dev/null ||
    [ -n "${LLVM_DIR:-}" ] || lacking+=("LLVM 19 (llvm-config, or LLVM_DIR)")
  if ((${#lacking[@]})); then
    echo "setup: this system has no dpkg, and the build needs: ${lacking[*]}" >&2
    echo "setup: install them with its package manager (docs/getting-started.md, Requirements)" >&2
    exit 1
  fi
fi
if ((${#missing[@]})); then
  if ! command -v apt-get >/dev/null; then
    echo "setup: missing Debian packages and no apt-get: ${missing[*]}" >&2; exit 1
  fi
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null ||
      { echo "setup: not root and no sudo; as root: apt-get install ${missing[*]}" >&2; exit 1; }
    SUDO=sudo
  fi
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi

PY=${PYTHON:-python3}
PIP_PACKAGES=(numpy pytest nanobind scikit-build-core pillow ruff mypy basedpyright)
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
DOCS_PIP_PACKAGES=(numpy mpi4py mkdocs mkdocs-material "mkdocstrings[python]")
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
