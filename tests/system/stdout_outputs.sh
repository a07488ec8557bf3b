#!/usr/bin/env bash
# System test: `-` is standard output for every --json of the C++ commands
# (issue 36 item 4), with the human text on standard error then. Each
# command's standard output must parse as one JSON document (jq), the text
# it would have printed there must be on standard error, and no file named
# "-" may appear. A real-time run is among them: DPDK writes its log on
# standard output, which must not reach the pipe either.
#
#   bash tests/system/stdout_outputs.sh FABEMU_BINARY SOURCE_DIR
set -euo pipefail

fabemu=${1:?usage: stdout_outputs.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: stdout_outputs.sh FABEMU_BINARY SOURCE_DIR}
command -v jq >/dev/null || { echo "stdout_outputs: jq is missing (scripts/lib/setup.sh installs it)"; exit 77; }
fabemu=$(realpath "$fabemu")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"  # a file named "-" would appear here
spec=$src/topologies/t3e-4x4x4.yaml
short=(--set run.warmup_ns=1000 --set run.measure_ns=3000)

# expect TEXT JQ COMMAND...: exit 0, stdout one JSON document for which JQ
# holds, TEXT (a line the command prints for people) on stderr.
expect() {
  local text=$1 check=$2 status=0
  shift 2
  "$fabemu" "$@" >"$tmp/out.json" 2>"$tmp/err.txt" || status=$?
  if [[ $status -ne 0 ]]; then
    echo "stdout_outputs: FAIL $* exited $status:"; cat "$tmp/err.txt"; exit 1
  fi
  if ! jq -e "$check" "$tmp/out.json" >/dev/null; then
    echo "stdout_outputs: FAIL $*: standard output is not the JSON ($check):"
    head -c 600 "$tmp/out.json"; exit 1
  fi
  if ! grep -qF -- "$text" "$tmp/err.txt"; then
    echo "stdout_outputs: FAIL $*: '$text' is not on standard error:"; cat "$tmp/err.txt"; exit 1
  fi
  [[ ! -e $tmp/- ]] || { echo "stdout_outputs: FAIL $*: wrote a file named '-'"; exit 1; }
  echo "stdout_outputs: ok   $*"
}

expect "throughput accepted" '.schema_version >= 1 and .delivered_packets > 0' \
  run "$spec" "${short[@]}" --json -
expect "behind the wall clock" '.run.mode == "realtime"' \
  run "$spec" --set run.mode=realtime --set run.duration_s=0.2 --set traffic.load=0.05 \
  --set run.progress_s=0 --json -
expect "bisection" '.routers == 64 and .endpoint_list[0].id == 0' describe "$spec" --json -
expect "Assumptions:" '.analysis == "table4" and (.rows | length) == 1' \
  analyze table4 --sizes 64 --permutations 2 --json -
expect "Assumptions:" '.analysis == "table2" and (.rows | length) == 1' \
  analyze table2 --sizes 576 --json -
expect "of the cost" '(.claims | length) > 0' analyze cost --sizes 1K --json -

# Two outputs cannot share standard output: refused before anything runs.
status=0
"$fabemu" run "$spec" --json - --capture all --capture-file - >"$tmp/out.json" 2>"$tmp/err.txt" ||
  status=$?
if [[ $status -ne 2 ]] || [[ -s $tmp/out.json ]] ||
   ! grep -qF -- "--json - and --capture-file - both go to standard output" "$tmp/err.txt"; then
  echo "stdout_outputs: FAIL --json - --capture-file -: exit $status"; cat "$tmp/err.txt"; exit 1
fi
echo "stdout_outputs: ok   run --json - --capture-file - is refused (exit 2)"

# A pipe, as a user types it: the JSON alone reaches jq.
"$fabemu" run "$spec" "${short[@]}" --json - 2>/dev/null | jq -e '.delivered_packets > 0' >/dev/null ||
  { echo "stdout_outputs: FAIL run --json - | jq"; exit 1; }
echo "stdout_outputs: all checks passed"
