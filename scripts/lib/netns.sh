# shellcheck shell=bash
# Network-namespace helpers of scripts/netns-demo.sh (sourced, not run). They
# use the demo's globals: prog (for messages) and created_ns (what the
# demo's cleanup deletes).
# shellcheck disable=SC2154  # prog is the demo's

# Waits up to $2 seconds (tenths) for process $1 to end; 0 when it did.
wait_gone() {
  local pid=$1 tenths=$(($2 * 10))
  while kill -0 "$pid" 2>/dev/null; do
    ((tenths-- > 0)) || return 1
    sleep 0.1
  done
  return 0
}

# Kills every process inside namespace $1 (all started by this script).
kill_ns_procs() {
  local pids
  pids=$(ip netns pids "$1" 2>/dev/null) || return 0
  [[ -n $pids ]] || return 0
  # shellcheck disable=SC2086  # a list of pids
  kill -TERM $pids 2>/dev/null
  local p
  for p in $pids; do
    wait_gone "$p" 2 || kill -KILL "$p" 2>/dev/null
  done
}

# run_wait OUT ERR COMMAND...: runs COMMAND in the background, its output in
# OUT and ERR, and waits for it, so that SIGINT/SIGTERM reach the traps at
# once instead of after the command (and the traps' messages reach the
# terminal, not the files); returns its status.
run_wait() {
  local out=$1 err=$2
  shift 2
  "$@" >"$out" 2>"$err" &
  local pid=$! rc=0
  wait "$pid" || rc=$?
  return "$rc"
}

# new_ns NS: a namespace with lo up and IPv6 off for every device made in it.
new_ns() {
  ip netns add "$1"
  created_ns+=("$1")
  ip -n "$1" link set lo up
  if [[ -d /proc/sys/net/ipv6 ]]; then
    ip netns exec "$1" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.all.disable_ipv6=1
  fi
}

# quiet_if [NS] IF: MTU 1500, checksum and segmentation offloads off (a frame
# with a partial checksum would cross af_packet unfinished and TCP would drop
# it), IPv6 off; then up.
quiet_if() {
  local nsx=()
  if [[ $# -eq 2 ]]; then
    nsx=(ip netns exec "$1")
    shift
  fi
  local dev=$1
  "${nsx[@]}" ip link set "$dev" mtu 1500
  "${nsx[@]}" ethtool -K "$dev" tx off rx off tso off gso off gro off >/dev/null ||
    echo "$prog: warning: could not turn every offload off on $dev" >&2
  if [[ -e /proc/sys/net/ipv6/conf/$dev/disable_ipv6 || ${#nsx[@]} -gt 0 ]]; then
    "${nsx[@]}" sh -c "echo 1 > /proc/sys/net/ipv6/conf/$dev/disable_ipv6" 2>/dev/null || true
  fi
  "${nsx[@]}" ip link set "$dev" up
}
