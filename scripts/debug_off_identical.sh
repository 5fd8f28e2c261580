#!/usr/bin/env bash
# Debug mode must cost nothing when it is off (issue 10): the code a plain variant compiles to
# is byte-identical to what a build without debug mode produces. This renders every kernel of
# the golden corpus (each `# inspect:` line of tests/golden/accept) for every target: LLVM IR
# (`source` and `optimized`) and the OpenCL C, CUDA, HIP and MSL source, with a reference
# tackc (a build of main, or of the commit before debug mode) and with this tree's, and
# compares the two byte for byte; it also checks that `--debug` changes every output.
#   scripts/debug_off_identical.sh REF_TACKC [NEW_TACKC]
set -uo pipefail
cd "$(dirname "$0")/.."
REF=${1:?usage: scripts/debug_off_identical.sh REF_TACKC [NEW_TACKC]}
NEW=${2:-build/tools/tackc/tackc}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
n=0; same=0; differ=0; unchanged_debug=0
while IFS= read -r entry; do
  f=${entry%%:*}; spec=${entry#*:# inspect: }
  kernel=${spec%% *}; args=${spec#* --args }
  for target in cpu:source cpu:optimized opencl:source cuda:source hip:source metal:source; do
    t=${target%%:*}; mode=${target#*:}
    run() { "$1" inspect "$f" "$kernel" --args "$args" --target "$t" --mode "$mode" "${@:2}" 2>&1; echo "rc=$?"; }
    n=$((n + 1))
    run "$REF" > "$out/ref"; run "$NEW" > "$out/new"
    if cmp -s "$out/ref" "$out/new"; then
      same=$((same + 1))
    else
      differ=$((differ + 1)); echo "DIFFERS $f $kernel $target"; diff "$out/ref" "$out/new" | head -5
    fi
    if grep -q '^rc=0$' "$out/new"; then
      run "$NEW" --debug > "$out/debug"
      cmp -s "$out/new" "$out/debug" && { unchanged_debug=$((unchanged_debug + 1)); echo "DEBUG SAME $f $kernel $target"; }
    fi
  done
done < <(grep -H '^# inspect: ' tests/golden/accept/*.py)
echo "debug off: $same/$n outputs byte-identical to $REF; debug on: $unchanged_debug unchanged"
[ "$differ" -eq 0 ] && [ "$unchanged_debug" -eq 0 ]
