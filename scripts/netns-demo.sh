#!/usr/bin/env bash
# Real TCP/IP across an emulated fabric: two network namespaces (hosts h0 and
# h1) each get a veth pair whose root-side end fabemu opens through DPDK's
# net_af_packet, bound to two fabric endpoints far apart; ping and iperf3 then
# run from h0 to h1 through the emulated routers, and the demo prints what the
# fabric measured. `--baseline` runs the same traffic over one plain veth pair.
#
#   scripts/netns-demo.sh                                  # T3E 4x4x4 torus
#   scripts/netns-demo.sh topologies/yarc-r2-1024.yaml --set topology.endpoints=64
#   scripts/netns-demo.sh --baseline                       # plain veth, for comparison
#   scripts/netns-demo.sh --help
set -euo pipefail

prog=netns-demo.sh

# Started in the background by another shell script, the demo inherits SIGINT
# ignored, and bash cannot trap a signal ignored on entry: start again with it
# restored, so that `kill -INT` cleans up as Ctrl-C does.
sigign=$(awk '/^SigIgn:/ { print $2 }' /proc/$$/status 2>/dev/null || true)
if [[ -z ${FABEMU_DEMO_REEXEC:-} && -n $sigign ]] && ((0x$sigign & 2)); then
  FABEMU_DEMO_REEXEC=1 exec env --default-signal=INT "$0" "$@"
fi

usage() {
  cat <<'EOF'
Usage: scripts/netns-demo.sh [FILE] [fabemu run options...]
       scripts/netns-demo.sh --baseline
       scripts/netns-demo.sh --help

Sends real TCP/IP traffic across an emulated fabric. Two network namespaces,
hosts h0 (10.77.0.1/24) and h1 (10.77.0.2/24), each get a veth pair (eth0
inside, offloads off, MTU 1500, IPv6 off); fabemu runs FILE (default
topologies/t3e-4x4x4.yaml) in real time with the root-side ends as its DPDK
ports (net_af_packet), h0 and h1 bound to two endpoints far apart. The demo
waits for the fabric to answer ping, runs `ping -c 10 -i 0.2` and iperf3 from
h0 to h1, stops fabemu with SIGINT and prints what the fabric measured: frames
in and out of each host port, frame latency, hops, credit stalls and real-time
lateness. Everything it creates (namespaces, veths, processes, temporary
files) is removed on exit, Ctrl-C or SIGTERM. Must run as root.

Extra options go to `fabemu run` after the demo's own, so they can override
them (e.g. --set run.time_scale=10, --set run.workers=2).

Options (first argument only):
  --baseline   no fabemu: join h0 eth0 and h1 eth0 by one plain veth pair (same
               addresses, offloads off, MTU 1500) and run the same ping and
               iperf3, to compare with the throughput across the fabric
  -h, --help   this text

Endpoints: on a torus, endpoint 0 and the first endpoint of the router
farthest from router 0, (kx/2, ky/2, kz/2); on a Clos (and any other family),
endpoint 0 and the last endpoint.

Environment:
  FABEMU_DEMO_EP0, FABEMU_DEMO_EP1  fabric endpoints of h0 and h1 (override the choice)
  FABEMU_DEMO_SECONDS     iperf3 duration in seconds (default 5)
  FABEMU_DEMO_UP_S        how long to wait for the first ping reply (default 20)
  FABEMU_DEMO_OUT         keep fabemu's JSON report and log, ping's and iperf3's
                          output in this directory
  FABEMU_DEMO_HTTP_MB     also download a file of this many MB of random bytes
                          over HTTP from h1 to h0 while iperf3 runs (python3
                          http.server, curl), and compare its SHA-256
  FABEMU_DEMO_HTTP_RATE   curl --limit-rate for that download (e.g. 2M), so that
                          it lasts through the faults
  FABEMU_DEMO_FAULTS      faults while the traffic runs, "S:REQUEST;S:REQUEST..."
                          (S seconds after iperf3 starts; REQUEST as for
                          `fabemu fault`, several at once separated by commas,
                          e.g. "2:link=r0:p33 down,link=r0:p34 down;5:link=r0:p33 up");
                          fabemu then serves a control socket
  FABEMU_DEMO_NO_BUILD=1  do not install packages or build: use $FABEMU_BUILD/fabemu
  FABEMU_BUILD            build directory (default <repo>/build)

Exit status: 0 when ping got replies and iperf3 moved data (and, when asked
for, the download arrived intact, every fault was taken and iperf3 moved data
after the last one); 1 when the fabric did not come up, ping got no reply,
iperf3 moved nothing, the download was damaged, a fault was refused or fabemu
failed; 2 on a bad command line or spec.
EOF
}

die() {
  echo "$prog: $*" >&2
  exit 1
}

baseline=0
if [[ $# -gt 0 ]]; then
  case $1 in
    -h | --help)
      usage
      exit 0
      ;;
    --baseline)
      baseline=1
      shift
      if [[ $# -gt 0 ]]; then
        echo "$prog: --baseline takes no FILE and no fabemu options (got: $*)" >&2
        exit 2
      fi
      ;;
  esac
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "$prog: must run as root: network namespaces, veth pairs and af_packet need CAP_NET_ADMIN" >&2
  echo "  try: sudo $0 $*" >&2
  exit 1
fi

# shellcheck source=scripts/lib/setup.sh
source "$(dirname "$0")/lib/setup.sh"

spec=$FABEMU_ROOT/topologies/t3e-4x4x4.yaml
if [[ $baseline -eq 0 && $# -gt 0 && $1 != -* ]]; then
  spec=$1
  shift
fi
seconds=${FABEMU_DEMO_SECONDS:-5}
up_s=${FABEMU_DEMO_UP_S:-20}
[[ $seconds =~ ^[1-9][0-9]*$ ]] || die "FABEMU_DEMO_SECONDS must be a whole number of seconds >= 1, got '$seconds'"
[[ $up_s =~ ^[1-9][0-9]*$ ]] || die "FABEMU_DEMO_UP_S must be a whole number of seconds >= 1, got '$up_s'"
http_mb=${FABEMU_DEMO_HTTP_MB:-0}
http_rate=${FABEMU_DEMO_HTTP_RATE:-}
[[ $http_mb =~ ^[0-9]+$ ]] || die "FABEMU_DEMO_HTTP_MB must be a whole number of MB, got '$http_mb'"
[[ -z $http_rate || $http_rate =~ ^[0-9]+[kKmMgG]?$ ]] ||
  die "FABEMU_DEMO_HTTP_RATE must be a rate as curl --limit-rate takes it (e.g. 2M), got '$http_rate'"
fault_plan=()  # "SECONDS REQUEST"
if [[ -n ${FABEMU_DEMO_FAULTS:-} ]]; then
  [[ $baseline -eq 0 ]] || die "FABEMU_DEMO_FAULTS needs a fabric (not --baseline)"
  IFS=';' read -r -a fault_items <<<"$FABEMU_DEMO_FAULTS"
  for item in "${fault_items[@]}"; do
    [[ $item =~ ^[[:space:]]*([0-9]+(\.[0-9]+)?):(.+)$ ]] ||
      die "FABEMU_DEMO_FAULTS: '$item' is not SECONDS:REQUEST (e.g. 2:link=r0:p33 down)"
    fault_plan+=("${BASH_REMATCH[1]} ${BASH_REMATCH[3]}")
  done
fi

if [[ ${FABEMU_DEMO_NO_BUILD:-0} != 1 ]]; then
  fabemu_install_packages
  if [[ $baseline -eq 0 ]]; then
    # shellcheck disable=SC2119  # no extra cmake arguments
    fabemu_build
  fi
fi
fabemu=$FABEMU_BUILD/fabemu
if [[ $baseline -eq 0 && ! -x $fabemu ]]; then
  die "no fabemu binary at $fabemu (unset FABEMU_DEMO_NO_BUILD to build it, or set FABEMU_BUILD)"
fi
missing=()
tools=(ip ethtool ping iperf3 jq ss timeout)
[[ $http_mb -gt 0 ]] && tools+=(curl python3 sha256sum)
for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  die "missing tools: ${missing[*]} (run without FABEMU_DEMO_NO_BUILD=1 to install them)"
fi

# ---------------------------------------------------------------------------
# Names: unique per run, so demos can run side by side and leftovers are
# recognisable. Interface names stay within 15 characters (pid <= 4194304).
id=$$
ns0=fabemu-h0-$id
ns1=fabemu-h1-$id
if0=fe0-$id
if1=fe1-$id
ip0=10.77.0.1
ip1=10.77.0.2
plen=24

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fabemu-netns-demo.XXXXXX")
created_ns=()
created_links=()  # root-namespace interfaces, or "NS/IF" inside a namespace
fabemu_pid=

# wait_gone, kill_ns_procs, run_wait, new_ns, quiet_if
# shellcheck source=scripts/lib/netns.sh
source "$(dirname "$0")/lib/netns.sh"

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  if [[ -n $fabemu_pid ]] && kill -0 "$fabemu_pid" 2>/dev/null; then
    kill -INT "$fabemu_pid" 2>/dev/null
    if ! wait_gone "$fabemu_pid" 15; then
      echo "$prog: fabemu (pid $fabemu_pid) ignored SIGINT for 15 s: killing it" >&2
      kill -KILL "$fabemu_pid" 2>/dev/null
    fi
    wait "$fabemu_pid" 2>/dev/null
  fi
  local ns l
  for ns in "${created_ns[@]}"; do
    kill_ns_procs "$ns"
  done
  # Deleting the links first is synchronous; a namespace's own devices would
  # otherwise linger until the kernel reaps the namespace in the background.
  for l in "${created_links[@]}"; do
    if [[ $l == */* ]]; then
      ip -n "${l%%/*}" link del "${l#*/}" 2>/dev/null
    else
      ip link del "$l" 2>/dev/null
    fi
  done
  for ns in "${created_ns[@]}"; do
    ip netns del "$ns" 2>/dev/null
  done
  if [[ -n ${FABEMU_DEMO_OUT:-} ]]; then
    mkdir -p "$FABEMU_DEMO_OUT" && cp -f "$tmp"/* "$FABEMU_DEMO_OUT"/ 2>/dev/null &&
      echo "$prog: outputs kept in $FABEMU_DEMO_OUT"
  fi
  rm -rf "$tmp"
  exit "$rc"
}
trap cleanup EXIT
trap 'echo >&2; echo "$prog: interrupted: cleaning up" >&2; exit 130' INT
trap 'echo >&2; echo "$prog: terminated: cleaning up" >&2; exit 143' TERM

# host_addr NS ADDR: eth0 of NS gets ADDR.
host_addr() {
  ip -n "$1" addr add "$2/$plen" dev eth0
}

# ---------------------------------------------------------------------------
# Endpoint choice: torus: 0 and the first endpoint of router (kx/2,ky/2,kz/2);
# other families: 0 and the last endpoint. Reads `fabemu describe` with the
# --set options among the extra arguments.
choose_endpoints() {
  local sets=()
  while [[ $# -gt 0 ]]; do
    case $1 in
      -s | --set)
        [[ $# -ge 2 ]] && sets+=(--set "$2")
        shift
        ;;
      --set=*) sets+=(--set "${1#--set=}") ;;
    esac
    shift
  done
  local dj=$tmp/describe.json
  # Exit 1 from describe (e.g. a dependency cycle) still writes the JSON.
  "$fabemu" describe "$spec" "${sets[@]}" --json "$dj" >"$tmp/describe.txt" 2>&1 || true
  if [[ ! -s $dj ]]; then
    cat "$tmp/describe.txt" >&2
    echo "$prog: fabemu describe failed on $spec" >&2
    exit 2
  fi
  local family n_ep name
  IFS=$'\t' read -r family n_ep name < <(jq -r '[.topology, .endpoints, .name] | map(tostring) | @tsv' "$dj")
  fabric_name=$name
  fabric_endpoints=$n_ep
  ep0=0
  ep1=$((n_ep - 1))
  if [[ $family == torus ]]; then
    # The first endpoint on router (kx/2, ky/2, kz/2): farthest from router 0.
    local far
    far=$(jq -r '(.dims | map(. / 2 | floor)) as $c
                 | [.endpoint_list[] | select(.coord == $c) | .id] | first // empty' "$dj")
    if [[ -n $far ]]; then
      ep1=$far
      far_note="router ($(jq -r '.dims | map(. / 2 | floor) | map(tostring) | join(",")' "$dj")), farthest from router 0"
    else
      echo "$prog: warning: cannot find the torus centre of '$name': using the last endpoint" >&2
    fi
  fi
}

fabric_name=
fabric_endpoints=
far_note=
if [[ $baseline -eq 0 ]]; then
  ep0=${FABEMU_DEMO_EP0:-}
  ep1=${FABEMU_DEMO_EP1:-}
  user_ep0=$ep0 user_ep1=$ep1
  choose_endpoints "$@"
  [[ -n $user_ep0 ]] && ep0=$user_ep0
  [[ -n $user_ep1 ]] && ep1=$user_ep1
  [[ -n $user_ep1 ]] && far_note="FABEMU_DEMO_EP1"
  for e in "$ep0" "$ep1"; do
    if ! [[ $e =~ ^[0-9]+$ ]] || ((e >= fabric_endpoints)); then
      die "endpoint '$e' is not in 0..$((fabric_endpoints - 1)) of $fabric_name"
    fi
  done
  [[ $ep0 -ne $ep1 ]] || die "h0 and h1 need two different endpoints (both are $ep0)"
fi

# ---------------------------------------------------------------------------
# Plumbing.
new_ns "$ns0"
new_ns "$ns1"
if [[ $baseline -eq 1 ]]; then
  ip -n "$ns0" link add eth0 type veth peer name eth0 netns "$ns1"
  created_links+=("$ns0/eth0")
  quiet_if "$ns0" eth0
  quiet_if "$ns1" eth0
  echo "baseline: $ns0 eth0 $ip0 <-> plain veth <-> $ns1 eth0 $ip1 (offloads off, MTU 1500)"
else
  for pair in "$ns0 $if0" "$ns1 $if1"; do
    read -r ns dev <<<"$pair"
    ip link add "$dev" type veth peer name eth0 netns "$ns"
    created_links+=("$dev")
    quiet_if "$dev"
    quiet_if "$ns" eth0
  done
fi
host_addr "$ns0" "$ip0"
host_addr "$ns1" "$ip1"

# ---------------------------------------------------------------------------
# CPUs: with two or more, fabemu runs one worker on the last CPU and the
# hosts' programs (ping, iperf3, the download) run on the others, so that
# the host traffic does not take the worker's core away (unless the options
# choose the workers' CPUs or count).
ncpu=$(nproc)
hostcpu=()
cpu_opts=()
fabemu_cpu=
if [[ $baseline -eq 0 && $ncpu -ge 2 && " $* " != *run.cores* && " $* " != *run.workers* ]]; then
  fabemu_cpu=$((ncpu - 1))
  cpu_opts=(--set run.workers=1 --set "run.cores=[$fabemu_cpu]")
  hostcpu=(taskset -c "0-$((ncpu - 2))")
  echo "CPUs: fabemu (one worker) on CPU $fabemu_cpu, the hosts' programs on CPU(s) 0-$((ncpu - 2))"
fi
# How often this machine itself takes a busy core away, on the worker's CPU
# just before the run: the share of time more than 10 us into such a stall
# is the least share of events any emulation here can run more than 10 us late.
host_stall_share=
if [[ $baseline -eq 0 && -x $FABEMU_BUILD/fabemu_host_stalls ]]; then
  stalls=$("$FABEMU_BUILD/fabemu_host_stalls" 2 ${fabemu_cpu:+"$fabemu_cpu"} 2>&1 || true)
  host_stall_share=$(sed -n 's/.*; \([0-9.]*\)% of the time more than 10 us into a stall.*/\1/p' <<<"$stalls")
  echo "host: ${stalls:-fabemu_host_stalls gave nothing}"
fi

# ---------------------------------------------------------------------------
# The fabric.
if [[ $baseline -eq 0 ]]; then
  ports="[{name: h0, device: \"net_af_packet0,iface=$if0\", endpoint: $ep0},"
  ports+=" {name: h1, device: \"net_af_packet1,iface=$if1\", endpoint: $ep1}]"
  echo "fabric: $fabric_name from $spec"
  echo "  h0 $ns0 eth0 $ip0 <-> $if0 = endpoint $ep0"
  echo "  h1 $ns1 eth0 $ip1 <-> $if1 = endpoint $ep1${far_note:+ ($far_note)}"
  # A job started with & ignores SIGINT in a script; fabemu must not, since
  # SIGINT is how it is told to stop, drain and write its report.
  control=()
  [[ ${#fault_plan[@]} -gt 0 ]] && control=(--control "$tmp/control.sock")
  # Late means more than 10 us late, for events and frames alike (the bound
  # the timing verdict is judged on).
  env --default-signal=INT,TERM "$fabemu" run "$spec" \
    --set run.mode=realtime --set run.duration_s=0 --set traffic.load=0 \
    --set run.lateness_bound_ns=10000 "${cpu_opts[@]}" \
    --set "ports=$ports" --json "$tmp/run.json" "${control[@]}" "$@" >"$tmp/fabemu.log" 2>&1 &
  fabemu_pid=$!
fi

fabemu_tail() {
  echo "--- last lines of the fabemu log:" >&2
  tail -n 25 "$tmp/fabemu.log" | awk '{ print "  " $0 }' >&2
  echo "---" >&2
}

# Wait until h1 answers h0.
echo -n "waiting for $ip1 to answer $ip0 (up to $up_s s) "
deadline=$((SECONDS + up_s))
while :; do
  if [[ -n $fabemu_pid ]] && ! kill -0 "$fabemu_pid" 2>/dev/null; then
    rc=0
    wait "$fabemu_pid" || rc=$?
    fabemu_pid=
    echo
    echo "$prog: fabemu exited early, with status $rc" >&2
    fabemu_tail
    exit 1
  fi
  if ip netns exec "$ns0" ping -n -q -c 1 -W 1 "$ip1" >/dev/null 2>&1; then
    echo " up after $((SECONDS + up_s - deadline)) s"
    break
  fi
  echo -n .
  if ((SECONDS >= deadline)); then
    echo
    echo "$prog: $ip1 did not answer $ip0 within $up_s s" >&2
    [[ -n $fabemu_pid ]] && fabemu_tail
    exit 1
  fi
  sleep 0.5
done

# ---------------------------------------------------------------------------
# Traffic.
failures=()
echo
echo "== ping -c 10 -i 0.2 $ip1 (from h0)"
run_wait "$tmp/ping.txt" "$tmp/ping.err" "${hostcpu[@]}" ip netns exec "$ns0" ping -n -c 10 -i 0.2 "$ip1" || true
cat "$tmp/ping.err" >>"$tmp/ping.txt"
tail -n 2 "$tmp/ping.txt" | sed 's/^/  /'
received=$(sed -n 's/.* \([0-9][0-9]*\) received.*/\1/p' "$tmp/ping.txt")
if [[ ${received:-0} -eq 0 ]]; then
  failures+=("ping: no replies from h1 ($ip1)")
fi

echo
echo "== iperf3 -c $ip1 -t $seconds (h0 -> h1, TCP)"
"${hostcpu[@]}" ip netns exec "$ns1" iperf3 -s -1 -B "$ip1" >"$tmp/iperf3-server.log" 2>&1 &
for ((i = 0; i < 50; i++)); do
  ip netns exec "$ns1" ss -Hltn 'sport = :5201' 2>/dev/null | grep -q . && break
  sleep 0.1
done
# The download (optional): a file of random bytes served by h1, fetched by h0
# while iperf3 runs.
http_pid=
if [[ $http_mb -gt 0 ]]; then
  mkdir -p "$tmp/www"
  head -c "${http_mb}M" /dev/urandom >"$tmp/www/blob"
  http_sha=$(sha256sum <"$tmp/www/blob" | cut -d' ' -f1)
  "${hostcpu[@]}" ip netns exec "$ns1" python3 -m http.server 8080 --bind "$ip1" --directory "$tmp/www" \
    >"$tmp/http-server.log" 2>&1 &
  for ((i = 0; i < 50; i++)); do
    ip netns exec "$ns1" ss -Hltn 'sport = :8080' 2>/dev/null | grep -q . && break
    sleep 0.1
  done
  rate=()
  [[ -n $http_rate ]] && rate=(--limit-rate "$http_rate")
  "${hostcpu[@]}" ip netns exec "$ns0" curl -sS --max-time 600 "${rate[@]}" -o "$tmp/download" \
    -w '%{http_code} %{size_download} %{time_total}\n' "http://$ip1:8080/blob" \
    >"$tmp/curl.txt" 2>&1 &
  http_pid=$!
fi
# The faults (optional), each at its time after iperf3 starts.
faults_pid=
if [[ ${#fault_plan[@]} -gt 0 ]]; then
  (
    start=$(date +%s.%N)
    for f in "${fault_plan[@]}"; do
      at=${f%% *}
      wait_s=$(awk -v a="$at" -v s="$start" -v n="$(date +%s.%N)" 'BEGIN { w = s + a - n; print (w > 0 ? w : 0) }')
      sleep "$wait_s"
      echo "$(awk -v s="$start" -v n="$(date +%s.%N)" 'BEGIN { printf "%.2f", n - s }') s: ${f#* }"
      IFS=',' read -r -a requests <<<"${f#* }"
      "$fabemu" fault --control "$tmp/control.sock" "${requests[@]}" || echo "FAULT REFUSED"
    done
  ) >"$tmp/faults.txt" 2>&1 &
  faults_pid=$!
fi
iperf_rc=0
run_wait "$tmp/iperf3.json" "$tmp/iperf3.err" timeout --kill-after=5 $((seconds + 30)) \
  "${hostcpu[@]}" ip netns exec "$ns0" iperf3 -c "$ip1" -t "$seconds" -J || iperf_rc=$?
iperf_bytes=0
iperf_mbps=0
if jq -e . "$tmp/iperf3.json" >/dev/null 2>&1; then
  iperf_err=$(jq -r '.error // empty' "$tmp/iperf3.json")
  [[ -n $iperf_err ]] && echo "  iperf3: $iperf_err"
  read -r iperf_bytes iperf_mbps iperf_sent_mbps iperf_retr iperf_secs < <(jq -r '
    [(.end.sum_received.bytes // 0),
     ((.end.sum_received.bits_per_second // 0) / 1e6 * 100 | round / 100),
     ((.end.sum_sent.bits_per_second // 0) / 1e6 * 100 | round / 100),
     (.end.sum_sent.retransmits // 0),
     ((.end.sum_received.seconds // 0) * 100 | round / 100)] | map(tostring) | join(" ")' "$tmp/iperf3.json")
  echo "  received $iperf_bytes bytes in $iperf_secs s: $iperf_mbps Mbit/s" \
    "(sender $iperf_sent_mbps Mbit/s, $iperf_retr retransmits)"
else
  echo "  iperf3 gave no report (status $iperf_rc):"
  sed 's/^/    /' "$tmp/iperf3.err"
fi
if [[ ${iperf_bytes%.*} -eq 0 ]]; then
  failures+=("iperf3: moved no data from h0 to h1 (status $iperf_rc)")
fi
if [[ -n $faults_pid ]]; then
  wait "$faults_pid" || true
  echo
  echo "== faults (fabemu fault over the control socket)"
  sed 's/^/  /' "$tmp/faults.txt"
  if grep -q "FAULT REFUSED" "$tmp/faults.txt"; then
    failures+=("faults: fabemu refused one (see above)")
  fi
  # TCP survived: iperf3 moved data in every second after the last fault.
  last=${fault_plan[-1]%% *}
  if jq -e . "$tmp/iperf3.json" >/dev/null 2>&1; then
    echo "  iperf3 per second (Mbit/s): $(jq -r '[.intervals[].sum.bits_per_second / 1e6 | round] | map(tostring) | join(" ")' "$tmp/iperf3.json")"
    idle=$(jq --argjson t "$last" '[.intervals[].sum | select(.start >= $t + 1 and .bytes == 0)] | length' "$tmp/iperf3.json")
    after=$(jq --argjson t "$last" '[.intervals[].sum | select(.start >= $t + 1)] | length' "$tmp/iperf3.json")
    if [[ $after -eq 0 ]]; then
      failures+=("faults: iperf3 ended before a second had passed after the last fault (raise FABEMU_DEMO_SECONDS)")
    elif [[ $idle -gt 0 ]]; then
      failures+=("faults: TCP did not recover: iperf3 moved nothing in $idle of the $after seconds after the last fault")
    fi
  fi
fi
if [[ -n $http_pid ]]; then
  http_rc=0
  wait "$http_pid" || http_rc=$?
  echo
  echo "== HTTP download of ${http_mb} MB from h1 (curl${http_rate:+ --limit-rate $http_rate})"
  got_sha=$(sha256sum <"$tmp/download" 2>/dev/null | cut -d' ' -f1)
  read -r code size secs <"$tmp/curl.txt" || true
  echo "  HTTP ${code:-?}, ${size:-0} bytes in ${secs:-?} s; SHA-256 ${got_sha:-none} (sent $http_sha)"
  if [[ $http_rc -ne 0 || $got_sha != "$http_sha" ]]; then
    failures+=("HTTP: the download failed or differs from what h1 served (curl status $http_rc: $(head -c 300 "$tmp/curl.txt"))")
  fi
  rm -f "$tmp/download" "$tmp/www/blob"  # not worth keeping in FABEMU_DEMO_OUT
fi

# ---------------------------------------------------------------------------
# Stop the fabric and report what it measured.
if [[ -n $fabemu_pid ]]; then
  echo
  echo "== stopping fabemu (SIGINT)"
  kill -INT "$fabemu_pid"
  fabemu_rc=0
  if wait_gone "$fabemu_pid" 30; then
    wait "$fabemu_pid" || fabemu_rc=$?
  else
    echo "$prog: fabemu still running 30 s after SIGINT: killing it" >&2
    kill -KILL "$fabemu_pid"
    wait "$fabemu_pid" || fabemu_rc=$?
  fi
  fabemu_pid=
  if [[ $fabemu_rc -ne 0 ]]; then
    failures+=("fabemu: exited with status $fabemu_rc after SIGINT")
    fabemu_tail
  fi
  if [[ -s $tmp/run.json ]] && jq -e . "$tmp/run.json" >/dev/null 2>&1; then
    echo
    echo "== what the fabric measured (fabemu --json)"
    jq -r '
      def num: if . == null then "n/a"
               elif type == "number" then (if . == (. | floor) then tostring
                                           else (. * 100 | round / 100 | tostring) end)
               else tostring end;
      def ns: if . == null then "n/a"
              elif type != "number" then tostring
              elif . >= 1e6 then "\(. / 1e4 | round / 100) ms"
              elif . >= 1e3 then "\(. / 10 | round / 100) us"
              else "\(. | round) ns" end;
      def drops: if . == null then "n/a"
                 elif type == "object" then
                   ([to_entries[] | select(.value != 0) | "\(.key) \(.value)"] | join(", ")
                    | if . == "" then "none" else . end)
                 else num end;
      ((.ports // [])[] as $p |
        "  port \($p.name) (endpoint \($p.endpoint | num), \($p.device)):",
        "    host -> fabric \($p.rx_frames | num) frames, \($p.rx_bytes | num) bytes;" +
          " fabric -> host \($p.tx_frames | num) frames, \($p.tx_bytes | num) bytes",
        "    flooded \($p.flooded | num); drops: \($p.drops | drops)",
        "    frame latency p50 \($p.frame_latency_ns.p50 | ns), p99 \($p.frame_latency_ns.p99 | ns)," +
          " max \($p.frame_latency_ns.max | ns) over \($p.frame_latency_ns.count | num) frames"),
      "  packet latency     p50 \(.latency_ns.p50 | ns), p99 \(.latency_ns.p99 | ns)",
      "  hops               mean \(.hops.mean | num), max \(.hops.max | num)",
      "  credit stalls      \(if .links then ([.links[].credit_stalls // 0] | add // 0 | num) else "n/a" end) (all links)",
      (if .link_retry then
        "  link retry         \(.link_retry | to_entries | map(select(.value | type == "number")) | map("\(.key) \(.value | num)") | join(", "))"
       else empty end),
      (if .faults then
        "  faults             \(.faults | map("\(.fault) at \(.at_ns | ns)") | join("; "))",
        "  packets lost       \(.dropped_packets.reasons | drops)"
       else empty end),
      "  real time          time scale \(.realtime.time_scale | num), \(.realtime.wall_s | num) s wall",
      "  lateness           p50 \(.realtime.lateness_ns.p50 | ns), p99 \(.realtime.lateness_ns.p99 | ns)," +
        " max \(.realtime.lateness_ns.max | ns); \(.realtime.lateness_ns.over_bound | num) events" +
        " over the \(.realtime.lateness_ns.bound | ns) bound",
      "  frame lateness     p50 \(.realtime.frame_lateness_ns.p50 | ns), p99 \(.realtime.frame_lateness_ns.p99 | ns)," +
        " max \(.realtime.frame_lateness_ns.max | ns); \(.realtime.frame_lateness_ns.over_bound | num) frames" +
        " over the bound",
      "  worker busy        \(.realtime.worker_busy | map(. * 100 | round | tostring + "%") | join(", "))" +
        " of the wall time; carried \(.realtime.carried.frames_per_s | round) frames/s",
      (if (.realtime.lateness_ns.over_bound // 0) > 0 then
        "  (the emulation fell behind the wall clock at times, so the fabric ran slower than" +
        " its spec then: a larger run.time_scale, e.g. --set run.time_scale=" +
        "\(((.realtime.time_scale // 1) * 10) | num), slows the fabric down; or free some cores)"
       else empty end)
    ' "$tmp/run.json"
    # The timing verdict: late events and frames (over 10 us) beside the
    # share of time the host itself took the worker's core away.
    read -r faithful late_events late_frames capacity frame_bytes < <(jq -r '
      [(.realtime.faithful // false),
       ((.realtime.lateness_ns.over_bound_fraction // 0) * 100),
       ((.realtime.frame_lateness_ns.over_bound_fraction // 0) * 100),
       (.realtime.carried.frame_capacity_per_s // 0 | round),
       (.realtime.carried.frame_bytes_mean // 0 | round)] | map(tostring) | join(" ")' "$tmp/run.json")
    timing=$(awk -v e="$late_events" -v f="$late_frames" -v h="$host_stall_share" 'BEGIN {
      printf "%.2f%% of events and %.2f%% of frames more than 10 us late", e, f
      if (h != "") printf " (host stalls: %.3f%% of the time more than 10 us into one)", h }')
    if [[ $faithful == true ]]; then
      verdict="timing faithful: $timing"
    else
      verdict="timing NOT faithful: $timing; at this time scale the worker could carry about $capacity frames/s of ${frame_bytes} B"
    fi
    echo "  timing             $verdict"
    # TCP's retransmits: frames the fabric refused at h0's port are their
    # cause when there are any.
    ingress=$(jq -r '[(.ports // [])[] | select(.name == "h0") | .drops.ingress_queue_full // 0] | add // 0' "$tmp/run.json")
    if [[ ${iperf_retr:-0} -gt 0 ]]; then
      if [[ $ingress -gt 0 ]]; then
        echo "  retransmits        iperf3's $iperf_retr retransmits: the fabric dropped $ingress of h0's" \
          "frames at its ingress queue (full$([[ $faithful == true ]] || echo ": the emulation was behind the wall clock"))"
      else
        echo "  retransmits        iperf3's $iperf_retr retransmits: the fabric dropped none of h0's frames" \
          "at its port; TCP timed out on late or reordered segments"
      fi
    fi
  else
    failures+=("fabemu: wrote no JSON report")
  fi
fi

echo
if [[ $baseline -eq 1 ]]; then
  echo "iperf3 over a plain veth pair: $iperf_mbps Mbit/s (compare: scripts/netns-demo.sh [FILE])"
else
  echo "iperf3 across the fabric ($fabric_name, endpoints $ep0 -> $ep1): $iperf_mbps Mbit/s" \
    "(compare: scripts/netns-demo.sh --baseline); ${verdict:-timing unknown: fabemu wrote no report}"
fi
if [[ ${#failures[@]} -gt 0 ]]; then
  for f in "${failures[@]}"; do
    echo "$prog: FAILED: $f" >&2
  done
  exit 1
fi
