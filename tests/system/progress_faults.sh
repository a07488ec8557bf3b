#!/usr/bin/env bash
# System test: the progress line of a virtual-time run with faults says
# which of them have taken effect and how many links and routers are dead
# after them (the same counts as the summary's faults line).
#
#   bash tests/system/progress_faults.sh FABEMU_BINARY SOURCE_DIR
set -euo pipefail

fabemu=${1:?usage: progress_faults.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: progress_faults.sh FABEMU_BINARY SOURCE_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "progress_faults: $*"; exit 1; }

# Long enough in emulated time for several progress lines on a slow host.
"$fabemu" run "$src/topologies/t3e-4x4x4.yaml" \
  --set 'faults=["5us link=r0:p0 down", "1ms router=3 down"]' \
  --set run.progress_s=0.05 --set run.measure_ns=3000000 >"$tmp/out.txt" 2>"$tmp/err.txt" ||
  { cat "$tmp/err.txt"; fail "the run failed"; }
tr '\r' '\n' <"$tmp/err.txt" | grep '^\[fabemu\] .*emulated' >"$tmp/progress.txt" ||
  fail "no progress line: $(cat "$tmp/err.txt")"
# Every line names the faults; the last one (after 1 ms) has both applied.
if grep -v '| faults [0-2] of 2 applied' "$tmp/progress.txt"; then
  fail "a progress line without the fault state"
fi
tail -1 "$tmp/progress.txt" | grep -q 'faults 2 of 2 applied: 7 dead links, 1 dead router$' ||
  fail "last progress line: $(tail -1 "$tmp/progress.txt")"
grep -q '^faults     2 given, 2 applied: .* 7 dead links and 1 dead router' "$tmp/out.txt" ||
  fail "the summary's faults line disagrees: $(grep '^faults' "$tmp/out.txt")"
echo "progress_faults: $(wc -l <"$tmp/progress.txt") progress lines; last: $(tail -1 "$tmp/progress.txt")"
