#!/usr/bin/env bash
# Golden tests for the front end.
#   tests/golden/reject/NAME.py  `tackc check` must exit 1 and print exactly NAME.expected
#   tests/golden/accept/NAME.py  `tackc check` must exit 0; each line `# inspect: KERNEL --args SIG`
#                                runs `tackc inspect NAME.py KERNEL --args SIG --mode ir`; the
#                                outputs, concatenated, must equal NAME.ir
#   tests/golden/codegen/NAME.py each line `# codegen: KERNEL OPTIONS...` runs `tackc inspect
#                                NAME.py KERNEL OPTIONS...` (generated code); the outputs, each
#                                after a `// tackc inspect ...` line, must equal NAME.expected.
#                                LLVM IR's host lines (target triple, datalayout, attribute
#                                groups: the CPU and its features) are left out.
# --update rewrites NAME.ir and NAME.expected (review the diff before committing).
set -uo pipefail
cd "$(dirname "$0")/.."
TACKC=${1:-build/tools/tackc/tackc}
UPDATE=${2:-}
fail=0; count=0

for f in tests/golden/reject/*.py; do
  [ -e "$f" ] || continue
  count=$((count + 1))
  exp="${f%.py}.expected"
  out=$("$TACKC" check "$f" 2>&1); rc=$?
  if [ $rc -ne 1 ]; then echo "FAIL $f: exit status $rc, expected 1"; fail=$((fail + 1)); continue; fi
  if [ ! -f "$exp" ] || [ "$out" != "$(cat "$exp")" ]; then
    echo "FAIL $f: diagnostic differs"; diff <(printf '%s\n' "$out") "$exp" | head -20; fail=$((fail + 1))
  fi
done

for f in tests/golden/accept/*.py; do
  [ -e "$f" ] || continue
  count=$((count + 1))
  out=$("$TACKC" check "$f" 2>&1); rc=$?
  if [ $rc -ne 0 ]; then echo "FAIL $f: tackc check exit $rc"; printf '%s\n' "$out" | head; fail=$((fail + 1)); continue; fi
  actual=""
  while IFS= read -r line; do
    spec=${line#\# inspect: }
    kernel=${spec%% *}; args=${spec#* --args }
    actual+=$("$TACKC" inspect "$f" "$kernel" --args "$args" --mode ir 2>&1)$'\n'
  done < <(grep '^# inspect: ' "$f")
  exp="${f%.py}.ir"
  if [ "$UPDATE" = "--update" ]; then printf '%s' "$actual" > "$exp"; continue; fi
  # Command substitution drops trailing newlines on both sides alike.
  if [ ! -f "$exp" ] || [ "$(printf '%s' "$actual")" != "$(cat "$exp")" ]; then
    echo "FAIL $f: IR differs"; diff <(printf '%s' "$actual") "$exp" | head -20; fail=$((fail + 1))
  fi
done

# Generated code with the host's CPU left out, so the goldens hold on any x86-64 or arm64 host.
portable() { sed -e '/^attributes #/d' -e '/^target datalayout = /d' -e '/^target triple = /d'; }

for f in tests/golden/codegen/*.py; do
  [ -e "$f" ] || continue
  count=$((count + 1))
  actual=""
  while IFS= read -r line; do
    spec=${line#\# codegen: }
    eval "set -- $spec"
    actual+="// tackc inspect $spec"$'\n'$("$TACKC" inspect "$f" "$@" 2>&1 | portable)$'\n'
  done < <(grep '^# codegen: ' "$f")
  exp="${f%.py}.expected"
  if [ "$UPDATE" = "--update" ]; then printf '%s' "$actual" > "$exp"; continue; fi
  if [ ! -f "$exp" ] || [ "$(printf '%s' "$actual")" != "$(cat "$exp")" ]; then
    echo "FAIL $f: generated code differs"; diff <(printf '%s' "$actual") "$exp" | head -20; fail=$((fail + 1))
  fi
done

echo "golden: $((count - fail))/$count passed"
[ $fail -eq 0 ]
