#!/usr/bin/env bash
# System test: no control-socket client can hold up a run or its end.
# A client that writes `status` 100,000 times and never reads its replies
# (keeping the socket open), and 300 idle connections beside it: another
# client is still answered, the process holds at most 64 of them, and the
# run ends as it should, in real time at run.duration_s and in virtual time
# on SIGTERM, with its JSON report, its socket file removed and no DPDK
# runtime folder left (/var/run/dpdk/fabemu_<pid>).
#
#   bash tests/system/control_socket.sh FABEMU_BINARY SOURCE_DIR
set -euo pipefail

fabemu=${1:?usage: control_socket.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: control_socket.sh FABEMU_BINARY SOURCE_DIR}
tmp=$(mktemp -d)
# shellcheck source=tests/system/lib/runs.sh
source "$src/tests/system/lib/runs.sh"
need control_socket python3 jq

# Connects the flooder and the idle clients, asks for status on a fresh
# connection, prints how many sockets the run's process holds, and keeps
# every connection open until it is killed.
cat >"$tmp/clients.py" <<'EOF'
import os, socket, sys, time
path, pid = sys.argv[1], int(sys.argv[2])
def connect():
    for _ in range(600):
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            return s
        except OSError:
            time.sleep(0.05)
    sys.exit("control_socket: cannot connect to " + path)
flood = connect()
flood.settimeout(10)
data, sent = b"status\n" * 100000, 0
try:
    while sent < len(data):
        sent += flood.send(data[sent:])
except OSError:
    pass  # closed by the run (the fix), or its buffers full (the bug)
idle = [connect() for _ in range(300)]
ask = connect()
ask.settimeout(20)
ask.sendall(b"status\n")
try:
    reply = ask.makefile().readline().strip()
except OSError as e:
    reply = "no reply: " + str(e)
sockets = sum(1 for fd in os.listdir(f"/proc/{pid}/fd")
              if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:"))
print(reply, flush=True)
print("sockets", sockets, flush=True)
time.sleep(3600)
EOF

# check NAME WANT_STATUS: the run in $run_pid and its clients in $clients_pid.
check() {
  local name=$1 want=$2 status=0
  # A generous bound: a run held up by its control thread never ends.
  for _ in $(seq 600); do kill -0 "$run_pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$run_pid" 2>/dev/null; then
    echo "control_socket: $name: the run did not end"; cat "$tmp/err.txt"; exit 1
  fi
  wait "$run_pid" || status=$?
  if [[ $status -ne $want ]]; then
    echo "control_socket: $name: exit status $status, want $want"; cat "$tmp/err.txt"; exit 1
  fi
  local reply sockets
  reply=$(sed -n 1p "$tmp/clients.txt")
  sockets=$(sed -n 2p "$tmp/clients.txt" | awk '{print $2}')
  [[ $reply == "ok emulated "* ]] || { echo "control_socket: $name: status got '$reply'"; exit 1; }
  # 64 clients, the listening socket and the few of DPDK and the EAL.
  (( sockets <= 64 + 16 )) || { echo "control_socket: $name: the run held $sockets sockets"; exit 1; }
  [[ -s $tmp/r.json ]] && jq -e '.run' "$tmp/r.json" >/dev/null ||
    { echo "control_socket: $name: no JSON report"; cat "$tmp/err.txt"; exit 1; }
  [[ ! -e $tmp/s.sock ]] || { echo "control_socket: $name: the socket file was left"; exit 1; }
  no_leftovers control_socket "$name" "$run_pid"
  kill "$clients_pid" 2>/dev/null || true
  wait "$clients_pid" 2>/dev/null || true
  echo "control_socket: $name: ended (status $status), another client answered, $sockets sockets held"
}

start() {
  rm -f "$tmp/r.json" "$tmp/clients.txt"
  "$fabemu" run "$src/topologies/t3e-4x4x4.yaml" --control "$tmp/s.sock" --json "$tmp/r.json" \
    --quiet "$@" >/dev/null 2>"$tmp/err.txt" &
  run_pid=$!
  pids+=("$run_pid")
  python3 "$tmp/clients.py" "$tmp/s.sock" "$run_pid" >"$tmp/clients.txt" &
  clients_pid=$!
  pids+=("$clients_pid")
  for _ in $(seq 600); do [[ $(wc -l <"$tmp/clients.txt") -ge 2 ]] && break; sleep 0.1; done
}

# Real time: the run ends at run.duration_s on its own.
start --set run.mode=realtime --set run.duration_s=5 --set traffic.load=0.05
check "real time" 0

# Virtual time, far longer than the test: SIGTERM stops it.
start --set run.measure_ns=100000000 --set run.progress_s=0
kill -TERM "$run_pid"
check "virtual time, SIGTERM" 143
