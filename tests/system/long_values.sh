#!/usr/bin/env bash
# System test: a long value (100 kB) in a spec, a --set, a fault, a capture
# tap or a command-line argument is refused with a short message that cuts
# it ("... (N bytes)", as control/spec/spec_error.h's printable() does), not
# echoed whole.
#
#   bash tests/system/long_values.sh FABEMU_BINARY SOURCE_DIR
set -uo pipefail

fabemu=${1:?usage: long_values.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: long_values.sh FABEMU_BINARY SOURCE_DIR}
spec=$src/topologies/t3e-4x4x4.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
long=$(head -c 100000 /dev/zero | tr '\0' x)

fail=0
# what, allowed exit statuses (a regex), command...
short_refusal() {
  local what=$1 want=$2 status=0 bytes
  shift 2
  timeout 120 "$@" >"$tmp/out.txt" 2>"$tmp/err.txt" || status=$?
  bytes=$(wc -c <"$tmp/err.txt")
  if [[ ! $status =~ ^($want)$ ]]; then
    echo "FAIL: $what: exit status $status, expected $want: $(head -c 300 "$tmp/err.txt")"
    fail=1
  elif ((bytes > 2000)); then
    echo "FAIL: $what: a message of $bytes bytes: $(head -c 300 "$tmp/err.txt")"
    fail=1
  elif ! grep -qF '... (10' "$tmp/err.txt"; then
    echo "FAIL: $what: the message does not say how long the value was: $(cat "$tmp/err.txt")"
    fail=1
  else
    echo "ok: $what ($bytes bytes)"
  fi
}

short_refusal "a fault in --set faults" 2 "$fabemu" check "$spec" --set "faults=['$long']"
short_refusal "a fault's time" 2 "$fabemu" check "$spec" --set "faults=['${long} link=r0:p0 down']"
short_refusal "a fault's BER" 2 "$fabemu" check "$spec" --set link.retry=true \
  --set "faults=['0ns link=r0:p0 ber=$long']"
printf 'faults: ["%s"]\n' "$long" >"$tmp/fault.yaml"
short_refusal "a fault in the file" 2 "$fabemu" check "$tmp/fault.yaml"
short_refusal "a capture tap" 2 "$fabemu" check "$spec" --set "capture.taps=['$long']"
short_refusal "a capture tap's kind" 2 "$fabemu" check "$spec" --set "capture.taps=['${long}=1']"
short_refusal "run --capture" 2 "$fabemu" run "$spec" --capture "$long"
short_refusal "a topology family" 2 "$fabemu" check "$spec" --set "topology.family=$long"
short_refusal "an unknown option" 2 "$fabemu" check "$spec" "--$long"
short_refusal "describe --at" 2 "$fabemu" describe "$spec" --at "$long"
short_refusal "an unknown subcommand" 2 "$fabemu" "$long"
short_refusal "an unknown analyze table" 2 "$fabemu" analyze "$long"
short_refusal "analyze --sizes" 2 "$fabemu" analyze table4 --sizes "$long"
short_refusal "a control socket path" 1 "$fabemu" fault --control "/tmp/$long" status
short_refusal "a JSON path that cannot be written" "1|2" "$fabemu" run "$spec" -q \
  --json "/nonexistent/$long" --set run.warmup_ns=0 --set run.measure_ns=100 --set run.drain_ns=1000
exit $fail
