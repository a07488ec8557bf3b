#!/usr/bin/env bash
# BookSim2's packets of several flits (packet_size = 4) as fabemu's
# wormhole (router.flow_control wormhole): topologies/booksim/torus-4x4x4.cfg
# with packet_size 4 read by `fabemu run --booksim`, against BookSim2's own
# figures for the same file (BookSim2 built from its public sources, which
# reproduce shared/reference/booksim-torus.md to four digits; 2026-12-03):
#   injection_rate (packets/node/cycle) 0.01 0.05 0.1 0.125 0.15
#   packet latency (cycles)             21.31 22.94 26.26 29.42 34.55
#   saturation (sim_type throughput, rate 0.25): 0.7287 flits/node/cycle
# Asserted: every latency and the saturation within 5%; zero load exact in
# cycles: the shortest packet latency 9 (a packet to its own node: 6
# cycles for its head, 3 more for its tail), as BookSim2's minimum.
# Usage: booksim_wormhole.sh FABEMU_BINARY SOURCE_DIR  (about 20 s)
set -euo pipefail
fabemu=${1:?usage: booksim_wormhole.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: booksim_wormhole.sh FABEMU_BINARY SOURCE_DIR}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
sed 's/packet_size = 1;/packet_size = 4;/' "$src/topologies/booksim/torus-4x4x4.cfg" >"$out/ps4.cfg"
# shellcheck source=tests/system/lib/booksim_figures.sh
source "$src/tests/system/lib/booksim_figures.sh"

for pair in 0.01:21.31 0.05:22.94 0.1:26.26 0.125:29.42 0.15:34.55; do
  rate=${pair%:*}
  "$fabemu" run --booksim "$out/ps4.cfg" --booksim-set injection_rate="$rate" --quiet \
    >"$out/r$rate.txt" 2>/dev/null || fail "rate $rate exited $?"
  within "packet latency at $rate packets (cycles)" \
    "$(value "$out/r$rate.txt" "Packet latency average")" "${pair#*:}"
done
# The minimum line follows the average: 9 cycles, exactly.
min=$(sed -n '/^Packet latency average/{n;s/^\tminimum = \([0-9.]*\).*/\1/p}' "$out/r0.01.txt")
[ "$min" = 9 ] && echo "OK   zero-load packet latency: 9 cycles" || fail "shortest packet latency $min, want 9"
"$fabemu" run --booksim "$out/ps4.cfg" --booksim-set injection_rate=0.25 \
  --booksim-set sim_type=throughput --quiet >"$out/sat.txt" 2>/dev/null || fail "saturation run exited $?"
within "saturation (flits/node/cycle)" "$(value "$out/sat.txt" "Accepted flit rate average")" 0.7287

echo "$fails failed"
[ "$fails" = 0 ]
