#!/usr/bin/env bash
# Prints the path of a checkout of the public Tack repository (berkgeveci/tack) for the steps of
# `make test` that run its tests, cloning it into BUILD/public-tack from TACK_PUBLIC_REPO (a git
# repository or URL; default: this machine's mirror) when that is not there yet. Prints nothing
# and exits 0 when there is no source: the caller then says the step is skipped.
#   scripts/public_checkout.sh [BUILD_DIR=build]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
SOURCE=${TACK_PUBLIC_REPO:-/work/.mirror/berkgeveci+tack/repo}
DEST=$PWD/$BUILD/public-tack
if [ -d "$DEST/packages/tack-core/tests" ]; then
  echo "$DEST"
elif [ -e "$SOURCE" ] || [[ $SOURCE == *://* ]]; then
  rm -rf "$DEST"
  git clone -q "$SOURCE" "$DEST" >&2 && echo "$DEST"
fi
