#!/usr/bin/env bash
# System test of real TCP/IP across the emulated fabric: runs
# scripts/netns-demo.sh (two network namespaces, veth pairs opened by fabemu
# through net_af_packet, ping and iperf3 from h0 to h1) on the default T3E
# 4x4x4 torus and on a 64-endpoint rank-2 BlackWidow Clos, with the given
# binary (no rebuild). Then real TCP across faults (issue 10): the Clos with
# 31 of h0's router's 32 uplinks killed and brought back over the control
# socket while iperf3 and an HTTP download run, and the torus with link-level
# retry at BER 1e-5 on every link.
#
#   bash tests/system/netns_demo.sh FABEMU_BINARY SOURCE_DIR
#
# Passes when, on every fabric, ping got replies, iperf3 moved data, fabemu
# stopped cleanly on SIGINT and its JSON report shows frames in and out of
# both host ports; with faults, when every fault was taken, iperf3 moved data
# in every second after the last one, the download arrived with the SHA-256
# it was served with, and the report lists the faults (or the retries). Exits 77 (ctest: skipped) when network namespaces cannot be
# created here (not root, no CAP_NET_ADMIN) or a tool is missing.
set -uo pipefail

fabemu=${1:?usage: netns_demo.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: netns_demo.sh FABEMU_BINARY SOURCE_DIR}
demo=$src/scripts/netns-demo.sh

skip() {
  echo "SKIP: $*"
  exit 77
}

if [[ $(id -u) -ne 0 ]]; then
  skip "network namespaces need root (CAP_NET_ADMIN); run ctest as root to include this test"
fi
missing=()
for tool in ip ethtool ping iperf3 jq ss timeout; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  skip "missing tools: ${missing[*]} (scripts/lib/setup.sh installs them)"
fi
probe=fabemu-probe-$$
if ! err=$(ip netns add "$probe" 2>&1); then
  skip "cannot create a network namespace (ip netns add: $err)"
fi
ip netns del "$probe"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
passed=0
failed=0
bad() {
  failed=$((failed + 1))
  echo "FAIL: $*"
}

# run_case NAME DEMO-ARGUMENTS...
run_case() {
  local name=$1
  shift
  echo "=== $name: netns-demo.sh $*"
  local rc=0
  # The demo cleans up on SIGTERM; stay well inside ctest's own timeout.
  mkdir -p "$out/$name"
  FABEMU_BUILD=$(dirname "$fabemu") FABEMU_DEMO_NO_BUILD=1 FABEMU_DEMO_SECONDS=${FABEMU_DEMO_SECONDS:-3} \
    FABEMU_DEMO_OUT=$out/$name timeout --kill-after=30 300 bash "$demo" "$@" \
    > >(tee "$out/$name/demo.txt") || rc=$?
  if [[ $rc -ne 0 ]]; then
    bad "$name: netns-demo.sh exited $rc"
    return
  fi
  # Its last line says whether the fabric kept its timing, as the report
  # does; frame lateness covers every frame handed to a host.
  local verdict
  verdict=$(jq -r 'if .realtime.faithful then "timing faithful" else "timing NOT faithful" end' \
    "$out/$name/run.json" 2>/dev/null || echo "no report")
  local last
  last=$(grep "^iperf3 across the fabric" "$out/$name/demo.txt" | tail -n 1)
  if ! grep -q "; $verdict: .* of events and .* of frames more than 10 us late" <<<"$last"; then
    bad "$name: the demo's last line does not give the report's verdict ($verdict): $last"
    return
  fi
  if ! jq -e '.realtime.frame_lateness_ns.count == ([.ports[].tx_frames] | add) and
              .realtime.frame_lateness_ns.bound == 10000' "$out/$name/run.json" >/dev/null; then
    bad "$name: frame lateness does not cover the frames sent to the hosts: $(jq -c '[.realtime.frame_lateness_ns, [.ports[].tx_frames]]' "$out/$name/run.json")"
    return
  fi
  # Frames refused at h0's ingress queue are named as iperf3's retransmits' cause.
  if jq -e '.ports[] | select(.name == "h0") | .drops.ingress_queue_full > 0' "$out/$name/run.json" >/dev/null &&
     grep -q "[1-9][0-9]* retransmits)" "$out/$name/demo.txt" &&
     ! grep -q "^  retransmits .* at its ingress queue" "$out/$name/demo.txt"; then
    bad "$name: ingress drops at h0 and TCP retransmits, but the demo does not name the drops as their cause"
    return
  fi
  local json=$out/$name/run.json
  if ! jq -e '(.ports | length) == 2 and
              all(.ports[]; .rx_frames > 0 and .tx_frames > 0 and .rx_bytes > 0 and .tx_bytes > 0)' \
    "$json" >/dev/null; then
    bad "$name: the JSON report lacks frames in and out of both host ports:"
    jq -c '.ports' "$json" 2>&1 | head -c 2000
    echo
    return
  fi
  if [[ -n ${expect:-} ]] && ! jq -e "$expect" "$json" >/dev/null; then
    bad "$name: the JSON report does not show $expect"
    return
  fi
  # The demo deletes everything it made.
  if ip netns list | grep -q "^fabemu-h[01]-"; then
    bad "$name: namespaces left behind: $(ip netns list | grep '^fabemu-h[01]-' | tr '\n' ' ')"
    return
  fi
  passed=$((passed + 1))
}

run_case torus
run_case clos "$src/topologies/yarc-r2-1024.yaml" --set topology.endpoints=64

# TCP across faults. The Clos on one worker: on a two-core machine two
# polling workers leave the hosts' TCP stacks (iperf3, curl, softirqs) too
# little CPU, and TCP then crawls at about 1 Mbit/s with or without faults.
down= up=
for p in $(seq 33 63); do
  down+="link=r0:p$p down,"
  up+="link=r0:p$p up,"
done
FABEMU_DEMO_SECONDS=8 FABEMU_DEMO_HTTP_MB=8 FABEMU_DEMO_HTTP_RATE=1M \
  FABEMU_DEMO_FAULTS="2:${down%,};5:${up%,}" \
  expect='(.faults | length) == 62 and all(.faults[]; .applied) and
          ([.links[] | select(.state.went_down == 1)] | length) == 62' \
  run_case clos-faults "$src/topologies/yarc-r2-1024.yaml" --set topology.endpoints=64 \
  --set run.workers=1
FABEMU_DEMO_SECONDS=5 FABEMU_DEMO_HTTP_MB=8 \
  expect='.link_retry.crc_errors > 0 and .link_retry.retries > 0' \
  run_case torus-ber --set link.retry=true --set link.ber=1e-5

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
