#!/usr/bin/env bash
# System test: a virtual-time run stopped by a signal ends cleanly. SIGINT,
# SIGTERM and SIGHUP each stop a long run within a second or two, with the
# exit status 128 + the signal, the summary on stdout, a JSON report marked
# "interrupted" with what was measured so far, a capture whose every block
# is whole, and no DPDK runtime folder left behind (/var/run/dpdk/fabemu_<pid>).
# So does closing the run's terminal (SIGHUP, then writes that fail). A
# second signal ends the run at once but leaves neither its control socket,
# a part-written report nor the runtime folder; and neither does a reader
# of `run --json -` that goes away, nor DPDK failing to start.
#
#   bash tests/system/signals.sh FABEMU_BINARY SOURCE_DIR
set -euo pipefail

fabemu=${1:?usage: signals.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: signals.sh FABEMU_BINARY SOURCE_DIR}
tmp=$(mktemp -d)
# shellcheck source=tests/system/lib/runs.sh
source "$src/tests/system/lib/runs.sh"
need signals jq python3

# Every pcapng block of FILE is whole: its two lengths agree, to the end.
whole_capture() {
  python3 - "$1" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
at = 0
while at < len(data):
    if at + 12 > len(data):
        sys.exit(f"a cut block header at byte {at}")
    n = struct.unpack_from("<I", data, at + 4)[0]
    if n < 12 or at + n > len(data) or struct.unpack_from("<I", data, at + n - 4)[0] != n:
        sys.exit(f"a cut block at byte {at}")
    at += n
PY
}

for sig in INT TERM HUP; do
  # About a minute of work if nothing stops it.
  "$fabemu" run "$src/topologies/t3e-8x8x8.yaml" --json "$tmp/r.json" \
    --set run.measure_ns=5000000 --set run.progress_s=0 --set run.workers=1 \
    --capture router=0 --capture-file "$tmp/c.pcapng" \
    >"$tmp/out.txt" 2>"$tmp/err.txt" &
  pid=$!
  pids+=("$pid")
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
  no_leftovers signals "SIG$sig" "$pid"
  whole_capture "$tmp/c.pcapng" || { echo "signals: SIG$sig: the capture was cut"; exit 1; }
  echo "signals: SIG$sig stopped the run in ${took} s (status $status, emulated ${end_ns} ns${delivered:+, $delivered delivered})"
done

# The run's terminal closes: SIGHUP, then every write to it fails (EIO).
tty_status=0
python3 - "$fabemu" "$src/topologies/t3e-8x8x8.yaml" "$tmp/tty.json" "$tmp/tty-pid" <<'PY' || tty_status=$?
import os, pty, select, sys, time
fabemu, spec, out, pid_file = sys.argv[1:]
pid, fd = pty.fork()
if pid == 0:
    os.execv(fabemu, [fabemu, "run", spec, "--json", out, "--set", "run.measure_ns=5000000",
                      "--set", "run.progress_s=0.2", "--set", "run.workers=1"])
open(pid_file, "w").write(str(pid))
seen, deadline = b"", time.time() + 60
while b"emulated" not in seen and time.time() < deadline:  # a progress line: it runs
    if select.select([fd], [], [], 1)[0]:
        try:
            seen += os.read(fd, 4096)
        except OSError:
            break
os.close(fd)  # the terminal goes away
_, status = os.waitpid(pid, 0)
if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 129:
    sys.exit(f"signals: closed terminal: wait status {status:#x}, want exit 129")
PY
[[ -s $tmp/tty-pid ]] && pids+=("$(cat "$tmp/tty-pid")")
(( tty_status == 0 )) || exit 1
[[ $(jq -r .run.interrupted "$tmp/tty.json") == true ]] ||
  { echo "signals: closed terminal: no JSON report marked interrupted"; exit 1; }
no_leftovers signals "closed terminal" "$(cat "$tmp/tty-pid")"
echo "signals: a closed terminal stopped the run (status 129) with its report"

# A second signal ends the run at once, wherever it is, leaving nothing
# behind: no socket file, no empty or part-written report, no runtime folder.
for pause in 0 0.3; do
  rm -f "$tmp/r.json"
  "$fabemu" run "$src/topologies/t3e-8x16x8.yaml" --json "$tmp/r.json" --control "$tmp/s.sock" \
    --set run.measure_ns=5000000 --set run.progress_s=0 --set run.workers=1 --quiet \
    >/dev/null 2>"$tmp/err.txt" &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 300); do [[ -S $tmp/s.sock ]] && break; sleep 0.1; done
  sleep 1
  kill -INT "$pid"
  sleep "$pause"
  kill -INT "$pid" 2>/dev/null || true
  wait "$pid" || true
  [[ ! -e $tmp/s.sock ]] || { echo "signals: second signal: the socket file was left"; exit 1; }
  if [[ -e $tmp/r.json ]]; then
    jq -e .run "$tmp/r.json" >/dev/null || { echo "signals: second signal: a broken report"; exit 1; }
  fi
  if compgen -G "$tmp/.r.json.partial-*" >/dev/null; then
    echo "signals: second signal: a part-written report was left"; exit 1
  fi
  no_leftovers signals "second signal" "$pid"
done
echo "signals: a second signal ended the run leaving nothing behind"

# A reader of the JSON report that goes away (SIGPIPE), and DPDK failing
# to start: each exits 1 with the reason and leaves no runtime folder.
mkfifo "$tmp/pipe"
head -c 100 "$tmp/pipe" >/dev/null &
"$fabemu" run "$src/topologies/t3e-4x4x4.yaml" --json - >"$tmp/pipe" 2>"$tmp/err.txt" &
pid=$!
pids+=("$pid")
status=0
wait "$pid" || status=$?
[[ $status -eq 1 ]] || { echo "signals: closed pipe: status $status, want 1"; exit 1; }
grep -q "cannot write the JSON report: standard output: Broken pipe" "$tmp/err.txt" ||
  { echo "signals: closed pipe: no message"; cat "$tmp/err.txt"; exit 1; }
no_leftovers signals "closed pipe" "$pid"
status=0
"$fabemu" run "$src/topologies/t3e-4x4x4.yaml" --quiet --eal --vdev=nosuch0 2>"$tmp/err.txt" &
pid=$!
pids+=("$pid")
wait "$pid" || status=$?
[[ $status -eq 1 ]] && grep -q "DPDK EAL failed to start" "$tmp/err.txt" ||
  { echo "signals: DPDK start failure: status $status"; cat "$tmp/err.txt"; exit 1; }
no_leftovers signals "DPDK start failure" "$pid"
echo "signals: a closed pipe and a failed DPDK start left nothing behind"
