#!/usr/bin/env bash
# System test: a virtual-time run stopped by a signal ends cleanly. SIGINT
# and SIGTERM each stop a long run within a second or two, with the exit
# status 128 + the signal, the summary on stdout, a JSON report marked
# "interrupted" with what was measured so far, and no DPDK runtime folder
# left behind (/var/run/dpdk/fabemu_<pid>).
#
#   bash tests/system/signals.sh FABEMU_BINARY SOURCE_DIR
set -euo pipefail

fabemu=${1:?usage: signals.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: signals.sh FABEMU_BINARY SOURCE_DIR}
command -v jq >/dev/null || { echo "signals: jq is missing (scripts/lib/setup.sh installs it)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for sig in INT TERM; do
  # About a minute of work if nothing stops it.
  "$fabemu" run "$src/topologies/t3e-8x8x8.yaml" --json "$tmp/r.json" \
    --set run.measure_ns=5000000 --set run.progress_s=0 --set run.workers=1 \
    >"$tmp/out.txt" 2>"$tmp/err.txt" &
  pid=$!
  sleep 2
  kill -s "$sig" "$pid"
  start=$(date +%s)
  status=0
  wait "$pid" || status=$?
  took=$(( $(date +%s) - start ))
  want=$(( 128 + $(kill -l "$sig") ))
  if [[ $status -ne $want ]]; then
    echo "signals: SIG$sig: exit status $status, want $want"; cat "$tmp/err.txt"; exit 1
  fi
  if (( took > 10 )); then
    echo "signals: SIG$sig: the run took $took s to stop"; exit 1
  fi
  grep -q "interrupted by SIG$sig" "$tmp/err.txt" || { echo "signals: SIG$sig: no message"; cat "$tmp/err.txt"; exit 1; }
  grep -q "^packets" "$tmp/out.txt" || { echo "signals: SIG$sig: no summary"; cat "$tmp/out.txt"; exit 1; }
  [[ $(jq -r .run.interrupted "$tmp/r.json") == true ]] || { echo "signals: SIG$sig: JSON not marked interrupted"; exit 1; }
  delivered=$(jq -r '.packets.delivered // .delivered_packets // empty' "$tmp/r.json")
  end_ns=$(jq -r .run.end_ns "$tmp/r.json")
  jq -e '.run.end_ns > 0' "$tmp/r.json" >/dev/null || { echo "signals: SIG$sig: end_ns $end_ns"; exit 1; }
  if [[ -e /var/run/dpdk/fabemu_$pid ]]; then
    echo "signals: SIG$sig: /var/run/dpdk/fabemu_$pid left behind"; exit 1
  fi
  echo "signals: SIG$sig stopped the run in ${took} s (status $status, emulated ${end_ns} ns${delivered:+, $delivered delivered})"
done
