#!/usr/bin/env bash
# clang-format over every C++ file we own; --check fails on the first unformatted file.
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(git ls-files --cached --others --exclude-standard -- '*.cpp' '*.hpp' '*.h' | grep -v '^tests/golden/' || true)
[ -z "$files" ] && exit 0
if [ "${1:-}" = "--check" ]; then
  clang-format --dry-run --Werror $files
  if [ -x .venv/bin/ruff ] && [ -d python ]; then .venv/bin/ruff check python tests/python tests/docs tests/scaleout tests/random_programs examples scripts 2>/dev/null || .venv/bin/ruff check python; fi
else
  clang-format -i $files
fi
