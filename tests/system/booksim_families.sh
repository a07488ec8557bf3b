#!/usr/bin/env bash
# BookSim2's router on the hypercube and the butterfly, through the config
# importer, against BookSim2's own figures for the same files (measured
# with BookSim2 built from its public sources, which reproduce
# shared/reference/booksim-torus.md to four digits; 2026-12-03):
#   topologies/booksim/hypercube-6.cfg: its mesh of k = 2, n = 6 (the
#     binary 6-cube), dim_order, 2 VCs x 16 flits;
#   topologies/booksim/fly-4x3.cfg: the 4-ary 3-fly, dest_tag, 2 VCs x 16.
# Asserted for each: the translation (family, routing), zero-load latency
# exact in cycles (the shortest packet: 6 cycles into a router and out on
# the hypercube, to itself; 4 x 2 + 6 = 14 through the fly's 3 stages),
# mean latency at every stable load and saturation within 5% of BookSim2's,
# and with num_vcs = 4 one load and saturation within 5%; and BookSim's
# pipeline delays (routing_delay, st_final_delay) within 5%.
# Usage: booksim_families.sh FABEMU_BINARY SOURCE_DIR  (about 30 s)
set -euo pipefail
fabemu=${1:?usage: booksim_families.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: booksim_families.sh FABEMU_BINARY SOURCE_DIR}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# shellcheck source=tests/system/lib/booksim_figures.sh
source "$src/tests/system/lib/booksim_figures.sh"

# run NAME CFG KEY=VALUE...: BookSim's result lines of one imported run.
run() {
  local name=$1 cfg=$2
  shift 2
  local sets=()
  for s in "$@"; do sets+=(--booksim-set "$s"); done
  "$fabemu" run --booksim "$src/topologies/booksim/$cfg" "${sets[@]}" --quiet \
    >"$out/$name.txt" 2>/dev/null || fail "$name exited $?"
}

# family CFG NAME FAMILY ROUTING MIN_CYCLES "RATE=LATENCY ..." SATURATION
#        VC4_RATE VC4_LATENCY VC4_SATURATION
family() {
  local cfg=$1 name=$2 fam=$3 routing=$4 min=$5 loads=$6 sat=$7 r4=$8 l4=$9 s4=${10}
  "$fabemu" check --booksim "$src/topologies/booksim/$cfg" >"$out/$name-check.txt" 2>/dev/null ||
    fail "check --booksim $cfg exited $?"
  grep -q "family: $fam" "$out/$name-check.txt" || fail "$cfg is not the $fam family"
  grep -q "routing: $routing" "$out/$name-check.txt" || fail "$cfg is not routed $routing"
  run "$name-zero" "$cfg" injection_rate=0.005
  local got
  got=$(sed -n 's/^\tminimum = \([0-9.]*\).*/\1/p' "$out/$name-zero.txt" | head -1)
  if [ "$got" = "$min" ]; then echo "OK   $name zero-load latency: $got cycles"; else
    fail "$name zero-load latency: $got cycles, want $min"; fi
  for pair in $loads; do
    local rate=${pair%=*} want=${pair#*=}
    run "$name-$rate" "$cfg" injection_rate="$rate"
    within "$name latency at $rate (cycles)" "$(value "$out/$name-$rate.txt" "Packet latency average")" "$want"
    within "$name accepted at $rate" "$(value "$out/$name-$rate.txt" "Accepted packet rate average")" "$rate"
  done
  run "$name-sat" "$cfg" injection_rate=1.0 sim_type=throughput
  within "$name saturation" "$(value "$out/$name-sat.txt" "Accepted packet rate average")" "$sat"
  run "$name-vc4" "$cfg" num_vcs=4 injection_rate="$r4"
  within "$name 4 VCs, latency at $r4" "$(value "$out/$name-vc4.txt" "Packet latency average")" "$l4"
  run "$name-vc4-sat" "$cfg" num_vcs=4 injection_rate=1.0 sim_type=throughput
  within "$name 4 VCs, saturation" "$(value "$out/$name-vc4-sat.txt" "Accepted packet rate average")" "$s4"
}

family hypercube-6.cfg hypercube hypercube dim_order 6 "0.02=18.11 0.1=18.08 0.3=18.40 0.5=18.95 0.7=20.67" 0.9072 0.5 18.90 0.9013
family fly-4x3.cfg fly butterfly dest_tag 14 "0.02=14.02 0.1=14.14 0.3=14.90 0.4=15.89 0.5=18.58" 0.6078 0.5 17.55 0.6795

# BookSim's pipeline delays on these networks (BookSim2 itself, 2026-12-04):
# the 6-cube with routing_delay 1, 24.71 cycles at 0.5; the fly with
# routing_delay 1 and st_final_delay 2 (its crossbar's batches), 24.34 at
# 0.3 and saturation 0.5013.
run hypercube-rd1 hypercube-6.cfg routing_delay=1 injection_rate=0.5
within "hypercube routing_delay 1 latency at 0.5 (cycles)" \
  "$(value "$out/hypercube-rd1.txt" "Packet latency average")" 24.71
run fly-rd1-st2 fly-4x3.cfg routing_delay=1 st_final_delay=2 injection_rate=0.3
within "fly routing_delay 1 st_final_delay 2 latency at 0.3 (cycles)" \
  "$(value "$out/fly-rd1-st2.txt" "Packet latency average")" 24.34
run fly-rd1-st2-sat fly-4x3.cfg routing_delay=1 st_final_delay=2 injection_rate=1.0 sim_type=throughput
within "fly routing_delay 1 st_final_delay 2 saturation" \
  "$(value "$out/fly-rd1-st2-sat.txt" "Accepted packet rate average")" 0.5013

echo "$fails failed"
[ "$fails" = 0 ]
