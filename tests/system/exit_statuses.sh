#!/usr/bin/env bash
# System test: every row of docs/commands.md's "Exit status" table, one
# command each that must give that status, checked with what the command
# says about it (a grep of standard error; of standard output for a 0). A
# status that changes fails here. Rows another test covers are named where
# they would be, with that test:
#  - run 3 (a real-time run stopped by run.overload: stop) and run's 1 when
#    the host could not keep real time: realtime_overload.sh;
#  - run 129, 130, 143 (a virtual-time run stopped by a signal), with what
#    the report then holds: signals.sh (143 is also checked here);
#  - sweep 1 when a point's run fails: sweep.sh (a stand-in fabemu);
#  - pcap 0 when the reader of `-` stops reading: pcap_analyzer.sh;
#  - scripts/lib/replay_pcap.py's 0, 1, 2: replay_pcap.sh;
#  - describe 1 for unroutable pairs in a healthy fabric or a cycle the
#    routing promises not to have, and analyze table4 1 for unroutable
#    streams: no valid spec or option gives them with fabemu's routings (they
#    guard against a fabemu bug); describe's are shown with routings broken
#    on purpose in tests/unit/describe_status_test.cpp, table4's is a count
#    its unit tests (analyze_table4_test.cpp) check is 0.
# Short windows throughout: a few seconds in all.
#
#   bash tests/system/exit_statuses.sh FABEMU_BINARY SOURCE_DIR
set -euo pipefail

fabemu=${1:?usage: exit_statuses.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: exit_statuses.sh FABEMU_BINARY SOURCE_DIR}
tmp=$(mktemp -d)
# shellcheck source=tests/system/lib/runs.sh
source "$src/tests/system/lib/runs.sh"
need exit_statuses python3

torus=$src/topologies/t3e-4x4x4.yaml
flatfly=$src/topologies/flatfly-4x3.yaml
short=(--set run.measure_ns=2000 --set run.workers=1)
rows=0

fail() { echo "FAIL exit_statuses: $*"; exit 1; }
# shown COMMAND...: the command as a row prints it, paths cut short.
shown() {
  local line="$*"
  line=${line//"$fabemu"/fabemu}
  line=${line//"$src/"/}
  echo "${line//"$tmp"/TMP}"
}

# expect STATUS out|err TEXT COMMAND...: COMMAND exits STATUS and its
# standard output or error holds TEXT.
expect() {
  local want=$1 stream=$2 text=$3 status=0
  shift 3
  "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || status=$?
  if [[ $status -ne $want ]] || ! grep -qF -- "$text" "$tmp/$stream"; then
    fail "$(shown "$@") exited $status, want $want with '$text' on std$stream; stderr: $(head -c 600 "$tmp/err")"
  fi
  rows=$((rows + 1))
  echo "OK   $want  $(shown "$@")"
}

# to_full COMMAND...: COMMAND with its standard output on a full disk.
to_full() { "$@" >/dev/full; }

# stopped SIG TEXT COMMAND...: COMMAND (a Python tool), once it catches
# SIGTERM (it sets its handlers for the three signals together), stopped by
# SIG exits 128 + SIG and says TEXT. The handler shows in /proc/PID/status
# (SigCgt, bit 14) once the process is Python (before, it is this shell's
# fork, which has handlers of its own, or fabemu on its way to exec).
stopped() {
  local sig=$1 text=$2 status=0 pid mask=0 want
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err" </dev/null &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 600); do
    if [[ $(readlink "/proc/$pid/exe" 2>/dev/null) == */python3* ]]; then
      mask=$(awk '/^SigCgt:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
      (( 16#${mask:-0} & (1 << 14) )) && break
    fi
    sleep 0.05
  done
  kill -s "$sig" "$pid"
  wait "$pid" || status=$?
  want=$((128 + $(kill -l "$sig")))
  if [[ $status -ne $want ]] || ! grep -qF -- "$text" "$tmp/err"; then
    fail "SIG$sig to $(shown "$@") exited $status, want $want with '$text'; stderr: $(head -c 600 "$tmp/err")"
  fi
  rows=$((rows + 1))
  echo "OK   $want  $(shown "$@") stopped by SIG$sig"
}

echo "--- fabemu"
expect 0 out "Usage: fabemu" "$fabemu" --help
expect 0 out "(commit " "$fabemu" --version
expect 1 err "fabemu: cannot write to standard output" to_full "$fabemu" --help
expect 2 err "a subcommand is required" "$fabemu"
expect 2 err "unknown subcommand 'chek'" "$fabemu" chek
expect 2 err "--sett is not an option of check: did you mean --set?" "$fabemu" check "$torus" --sett a=1

echo "--- check"
expect 0 out ": ok (" "$fabemu" check "$torus"
expect 1 err "fabemu check: cannot write to standard output" to_full "$fabemu" check "$torus"
expect 2 err "unknown key 'bogus' in 'run'" "$fabemu" check "$torus" --set run.bogus=1
expect 2 err "cannot read the spec file" "$fabemu" check "$tmp/none.yaml"

echo "--- describe"
expect 0 out "acyclic" "$fabemu" describe "$torus"
# A degraded fabric's unroutable pairs are what its faults do: not a failure.
expect 0 out "DEGRADED" "$fabemu" describe "$torus" --set 'faults=["0ns router=5 down"]'
expect 1 err "cannot write the JSON: /dev/full" "$fabemu" describe "$torus" --json /dev/full
expect 1 err "fabemu describe: cannot write to standard output" to_full "$fabemu" describe "$torus"
expect 2 err "is not an emulated time" "$fabemu" describe "$torus" --at soon
expect 2 err "--json $tmp/none/d.json: the directory" "$fabemu" describe "$torus" --json "$tmp/none/d.json"

echo "--- run"
expect 0 out "packets" "$fabemu" run "$torus" "${short[@]}" --capture router=0 \
  --capture-file "$tmp/c.pcapng"
expect 1 err "did not drain within run.drain_ns" "$fabemu" run "$torus" "${short[@]}" --quiet \
  --set traffic.load=0.9 --set run.drain_ns=1
# Endpoint 5 stops taking packets for good: what waits for it never moves.
expect 1 err "the fabric stalled" "$fabemu" run "$torus" --quiet --set run.workers=1 \
  --set traffic.load=0.2 --set run.warmup_ns=2000 --set run.measure_ns=10000 \
  --set run.drain_ns=1000000 --set 'faults=["5us endpoint=5 stop"]'
expect 1 err "cannot write the JSON report: /dev/full" "$fabemu" run "$torus" "${short[@]}" \
  --quiet --json /dev/full
expect 1 err "the capture is incomplete" "$fabemu" run "$torus" "${short[@]}" --quiet \
  --capture router=0 --capture-file /dev/full
expect 1 err "cannot write the summary to standard output" \
  to_full "$fabemu" run "$torus" "${short[@]}"
expect 1 err "DPDK EAL failed to start" "$fabemu" run "$torus" "${short[@]}" --quiet \
  --eal --vdev=nosuch0
expect 2 err "unknown key 'bogus' in 'run'" "$fabemu" run "$torus" --set run.bogus=1
expect 2 err "capture tap 'link=r999:p0'" "$fabemu" run "$torus" --capture link=r999:p0
expect 2 err "--json $tmp/none/r.json" "$fabemu" run "$torus" --json "$tmp/none/r.json"

echo "--- fault (and run 143)"
"$fabemu" run "$torus" --control "$tmp/s.sock" --set run.measure_ns=50000000 \
  --set run.workers=1 --quiet >/dev/null 2>"$tmp/run.err" &
run_pid=$!
pids+=("$run_pid")
for _ in $(seq 300); do [[ -S $tmp/s.sock ]] && break; sleep 0.1; done
expect 0 out "ok emulated" "$fabemu" fault --control "$tmp/s.sock" status
expect 1 err "the run refused 1 of 2 requests (the replies say why)" "$fabemu" fault --control "$tmp/s.sock" status \
  "link=r0:p99 down"
kill -TERM "$run_pid"
status=0
wait "$run_pid" || status=$?
if [[ $status -ne 143 ]] || ! grep -qF "interrupted by SIGTERM" "$tmp/run.err"; then
  fail "run stopped by SIGTERM exited $status, want 143: $(cat "$tmp/run.err")"
fi
rows=$((rows + 1))
echo "OK   143  run stopped by SIGTERM"
expect 1 err "cannot reach the control socket" "$fabemu" fault --control "$tmp/s.sock" status
expect 2 err "nothing to send" "$fabemu" fault --control "$tmp/s.sock" ""
expect 2 err "--control is required" "$fabemu" fault status

echo "--- sweep"
sweep=("$fabemu" sweep "$flatfly" --loads 0.1 --set run.measure_ns=1000)
expect 0 out "saturation throughput" "${sweep[@]}"
expect 1 err "cannot write /dev/full: No space left on device" "${sweep[@]}" --json /dev/full
expect 2 err "--loads 'x'" "$fabemu" sweep "$flatfly" --loads x
expect 2 err "unknown key 'bogus' in 'run'" "${sweep[@]}" --set run.bogus=1
for sig in HUP INT TERM; do
  stopped "$sig" "stopped by signal $(kill -l "$sig")" \
    "$fabemu" sweep "$torus" --loads 0.1 --set run.measure_ns=50000000 --set run.workers=1
done

echo "--- pcap"
expect 0 out "fabric packets" "$fabemu" pcap "$tmp/c.pcapng"
head -c 3000 "$tmp/c.pcapng" >"$tmp/cut.pcapng"
expect 1 err "truncated block at offset" "$fabemu" pcap "$tmp/cut.pcapng"
echo "not a capture" >"$tmp/text.pcapng"
expect 1 err "not a pcapng" "$fabemu" pcap "$tmp/text.pcapng"
expect 1 err "cannot write /dev/full: No space left on device" "$fabemu" pcap "$tmp/c.pcapng" \
  --json /dev/full
expect 2 err "no such file" "$fabemu" pcap "$tmp/none.pcapng"
expect 2 err "--json $tmp/none/p.json" "$fabemu" pcap "$tmp/c.pcapng" --json "$tmp/none/p.json"
# A FIFO with no writer: opening it waits for ever, until the signal.
mkfifo "$tmp/fifo"
for sig in HUP INT TERM; do
  stopped "$sig" "stopped by SIG$sig" "$fabemu" pcap "$tmp/fifo"
done

echo "--- analyze"
t4=("$fabemu" analyze table4 --sizes 64 --permutations 10 --network torus)
expect 0 out "Table 4" "${t4[@]}"
expect 1 err "cannot write the JSON: /dev/full" "${t4[@]}" --json /dev/full
expect 2 err "'x' is not a size" "$fabemu" analyze table4 --sizes x
t2=("$fabemu" analyze table2 --sizes 64)
expect 0 out "Table 2" "${t2[@]}"
expect 1 err "cannot write the JSON: /dev/full" "${t2[@]}" --json /dev/full
expect 2 err "--torus-dims" "$fabemu" analyze table2 --torus-dims 64=4x4
expect 0 out "Cost per node" "$fabemu" analyze cost
expect 1 err "cannot write the JSON: /dev/full" "$fabemu" analyze cost --json /dev/full
expect 1 err "fabemu analyze: cannot write to standard output" to_full "$fabemu" analyze cost
expect 2 err "'x' is not a size" "$fabemu" analyze cost --sizes x
expect 2 err "no table named" "$fabemu" analyze
expect 2 err "unknown table 'table3'" "$fabemu" analyze table3

echo "--- spec-reference"
expect 0 out "| \`run.measure_ns\`" "$fabemu" spec-reference
expect 1 err "fabemu spec-reference: cannot write to standard output" \
  to_full "$fabemu" spec-reference

echo "exit_statuses: all $rows rows passed"
