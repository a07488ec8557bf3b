#!/usr/bin/env bash
# fabemu run --booksim / check --booksim: BookSim2's own configuration
# files (topologies/booksim/*.cfg, the configurations of
# shared/reference/booksim-torus.md and booksim-flatfly.md) read and run,
# BookSim's result lines printed and within 5% of BookSim2's figures:
#   torus 4x4x4 dim_order, injection_rate 0.3: latency 19.27 cycles;
#     saturation (sim_type throughput, rate 1.0) 0.6541
#   flatfly 32-ary 2-flat ran_min, rate 0.1: latency 10.00 cycles
#   torus with 4 VCs and sw_allocator separable_input_first: 19.04 cycles
#     at 0.5, saturation 0.8934 (BookSim2 itself, 2026-12-03); with
#     vc_allocator separable_input_first: 19.09, 0.8596 (2026-12-04)
#   torus with wait_for_tail_credit = 1: 20.47 cycles at 0.05, saturation
#     0.1180 (BookSim2 itself, 2026-12-03)
#   torus with st_final_delay = 2 (BookSim's crossbar, its batches): 25.36
#     cycles at 0.3, saturation 0.6563; with routing_delay = 1: 25.00 at
#     0.3, saturation 0.5384 (BookSim2 itself, 2026-12-04)
#   torus with input_speedup = 2: 19.22 at 0.3, saturation 0.6818;
#     output_speedup = 2: 19.24, 0.6637; both: 19.18, 0.6846; 4 VCs with
#     input_speedup 4 and output_speedup 2: 18.80 at 0.5, saturation 0.9851
#     (BookSim2 itself, 2026-12-04); num_vcs = 16 (BookSim's default):
#     18.42 at 0.3, saturation 0.8856
# the mesh and 1- to 3-dimensional tori translated to the torus family,
# and what fabemu does not model refused at its FILE:LINE, exit 2.
# Usage: booksim_import.sh FABEMU_BINARY SOURCE_DIR  (about 15 s)
set -euo pipefail
fabemu=${1:?usage: booksim_import.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: booksim_import.sh FABEMU_BINARY SOURCE_DIR}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
torus="$src/topologies/booksim/torus-4x4x4.cfg"
flatfly="$src/topologies/booksim/flatfly-32x2.cfg"
# shellcheck source=tests/system/lib/booksim_figures.sh
source "$src/tests/system/lib/booksim_figures.sh"

"$fabemu" check --booksim "$torus" >"$out/check.txt" || fail "check --booksim exited $?"
grep -q ": ok (" "$out/check.txt" || fail "check prints no ok line"
grep -q "routing: dim_order" "$out/check.txt" || fail "check prints no translated spec"

"$fabemu" run --booksim "$torus" --quiet >"$out/t03.txt" 2>"$out/t03.err"
for line in "Time taken is " "====== Overall Traffic Statistics ======" "Packet latency average = " \
    "Accepted packet rate average = " "Hops average = " "Total run time "; do
  grep -q "^$line" "$out/t03.txt" || fail "no '$line' line"
done
within "torus latency at 0.3 (cycles)" "$(value "$out/t03.txt" "Packet latency average")" 19.27
within "torus accepted at 0.3" "$(value "$out/t03.txt" "Accepted packet rate average")" 0.3
# BookSim2 stops there after 3 warm-up and 3 running periods (6,063 cycles).
taken=$(sed -n 's/^Time taken is \([0-9]*\) cycles$/\1/p' "$out/t03.txt")
[ -n "$taken" ] && [ "$taken" -ge 6000 ] && [ "$taken" -lt 7000 ] ||
  fail "torus at 0.3: Time taken is '$taken' cycles, want BookSim's 6,000 to 7,000"
grep -q "to_self: true" "$out/check.txt" || fail "uniform is not translated with traffic.to_self"
grep -q "injection: free" "$out/check.txt" || fail "the sources do not choose VCs as BookSim's"

"$fabemu" run --booksim "$torus" --booksim-set injection_rate=1.0 \
  --booksim-set sim_type=throughput --quiet >"$out/tsat.txt" 2>/dev/null
within "torus saturation" "$(value "$out/tsat.txt" "Accepted packet rate average")" 0.6541

"$fabemu" run --booksim "$flatfly" --quiet >"$out/f01.txt" 2>/dev/null
within "flatfly ran_min latency at 0.1 (cycles)" \
  "$(value "$out/f01.txt" "Packet latency average")" 10.00

# credit_delay: the flatfly's one-cycle link gets one more cycle of credit
# delay for BookSim's credit_delay = 1; the torus, whose link returns
# credits as BookSim's credit_delay 1 does, cannot go below it.
"$fabemu" check --booksim "$flatfly" >"$out/fcheck.txt" || fail "check --booksim flatfly exited $?"
grep -q "credit_delay_ns: 30.4" "$out/fcheck.txt" || fail "credit_delay = 1 is not a cycle of credit delay"
rc=0
"$fabemu" check --booksim "$torus" --booksim-set credit_delay=0 >/dev/null 2>"$out/cd0.err" || rc=$?
[ "$rc" = 2 ] || fail "torus credit_delay = 0 exited $rc, want 2"
grep -q "credit_delay = 0" "$out/cd0.err" || fail "credit_delay refusal: $(cat "$out/cd0.err")"

# BookSim's valiant and ugal are imported as themselves, not as the paper's.
"$fabemu" check --booksim "$flatfly" --booksim-set routing_function=valiant >"$out/fval.txt" ||
  fail "check --booksim valiant exited $?"
grep -q "routing: valiant_booksim" "$out/fval.txt" || fail "valiant is not imported as valiant_booksim"
"$fabemu" check --booksim "$flatfly" --booksim-set routing_function=ugal >"$out/fugal.txt" ||
  fail "check --booksim ugal exited $?"
grep -q "routing: ugal_booksim" "$out/fugal.txt" || fail "ugal is not imported as ugal_booksim"
rc=0
"$fabemu" check --booksim "$flatfly" --booksim-set routing_function=valiant \
  --booksim-set num_vcs=3 >/dev/null 2>"$out/odd.err" || rc=$?
[ "$rc" = 2 ] || fail "valiant with num_vcs = 3 exited $rc, want 2"
grep -q "num_vcs = 3.*even" "$out/odd.err" || fail "odd num_vcs refusal: $(cat "$out/odd.err")"

# BookSim's mesh and k-ary n-cubes of 1 to 3 dimensions: the torus family
# with dimensions of 1, and without wrap links for the mesh.
mesh="$src/topologies/booksim/mesh-8x8.cfg"
"$fabemu" check --booksim "$mesh" >"$out/mcheck.txt" 2>/dev/null || fail "check --booksim mesh exited $?"
grep -q "dims: \[8, 8, 1\]" "$out/mcheck.txt" || fail "the 8x8 mesh is not dims [8, 8, 1]"
grep -q "wrap: false" "$out/mcheck.txt" || fail "the mesh keeps its wrap links"
grep -q "mesh 8x8x1" "$out/mcheck.txt" || fail "the mesh is not built as one"
"$fabemu" check --booksim "$torus" --booksim-set n=2 >"$out/t2.txt" 2>/dev/null || fail "n = 2 torus exited $?"
grep -q "dims: \[4, 4, 1\]" "$out/t2.txt" || fail "the 4-ary 2-cube is not dims [4, 4, 1]"
grep -q "wrap: false" "$out/t2.txt" && fail "the 4-ary 2-cube lost its wrap links"
"$fabemu" check --booksim "$mesh" --booksim-set num_vcs=1 >/dev/null 2>&1 || fail "a mesh of 1 VC is refused"
rc=0
"$fabemu" check --booksim "$torus" --booksim-set n=4 >/dev/null 2>"$out/n4.err" || rc=$?
[ "$rc" = 2 ] || fail "n = 4 exited $rc, want 2"
grep -q "'n = 4'.*one to three dimensions" "$out/n4.err" || fail "n = 4 refusal: $(cat "$out/n4.err")"

# BookSim's traffic patterns: on the torus and the mesh they run on
# BookSim's node numbers (traffic.numbering booksim).
for p in transpose bitrev shuffle neighbor tornado; do
  "$fabemu" check --booksim "$mesh" --booksim-set traffic=$p >"$out/p-$p.txt" 2>/dev/null ||
    fail "traffic $p exited $?"
  grep -q "pattern: $p" "$out/p-$p.txt" || fail "traffic $p is not imported as itself"
  grep -q "numbering: booksim" "$out/p-$p.txt" || fail "traffic $p is not on BookSim's numbers"
done
"$fabemu" check --booksim "$torus" --booksim-set traffic=randperm >"$out/rp.txt" 2>"$out/rp.err" ||
  fail "traffic randperm exited $?"
grep -q "pattern: permutation" "$out/rp.txt" || fail "randperm is not a permutation"
grep -q "permutation_seed: 0" "$out/rp.txt" || fail "randperm is not BookSim's of perm_seed 0"
grep -q "numbering: booksim" "$out/rp.txt" || fail "randperm is not on BookSim's numbers"
# BookSim's node 5 of the 4-ary 3-cube is (1, 1, 0): fabemu's endpoint (1 x 4 + 1) x 4 = 20.
"$fabemu" check --booksim "$torus" --booksim-set 'traffic=hotspot({5})' >"$out/hs.txt" 2>/dev/null ||
  fail "traffic hotspot({5}) exited $?"
grep -q "hotspot: 20" "$out/hs.txt" || fail "hotspot node 5 is not endpoint 20"
grep -q "hotspot_fraction: 1" "$out/hs.txt" || fail "hotspot does not take all the traffic"
rc=0
"$fabemu" check --booksim "$torus" --booksim-set 'traffic=hotspot({{1,2},{1,1}})' >/dev/null \
  2>"$out/hs2.err" || rc=$?
[ "$rc" = 2 ] || fail "two hotspots exited $rc, want 2"
grep -q "one hot node" "$out/hs2.err" || fail "two hotspots: $(cat "$out/hs2.err")"

# BookSim's on_off source: two of alpha, beta and r1, the third derived.
"$fabemu" check --booksim "$torus" --booksim-set injection_process=on_off >"$out/oo.txt" 2>/dev/null ||
  fail "on_off exited $?"
grep -q "process: on_off" "$out/oo.txt" || fail "on_off is not traffic.process on_off"
grep -q "burst_alpha: 0.5" "$out/oo.txt" || fail "on_off lost BookSim's default burst_alpha 0.5"
# r1 0.75 at rate 0.25 with alpha 0.25: beta = 0.25 (0.75 - 0.25) / 0.25 = 0.5.
"$fabemu" check --booksim "$torus" --booksim-set 'injection_process=on_off({0.25,-1,0.75})' \
  --booksim-set injection_rate=0.25 >"$out/oo2.txt" 2>/dev/null ||
  fail "on_off({0.25,-1,0.75}) exited $?"
grep -q "burst_beta: 0.5" "$out/oo2.txt" || fail "on_off beta is not derived from r1"

# packet_size 4: a BookSim packet is a fabemu message of 4 one-flit
# packets moved as one worm; injection_rate counts packets (4 flits each)
# unless injection_rate_uses_flits.
sed 's/packet_size = 1;/packet_size = 4;/' "$torus" >"$out/ps4.cfg"
"$fabemu" check --booksim "$out/ps4.cfg" --booksim-set injection_rate=0.05 >"$out/ps4.txt" ||
  fail "packet_size = 4 check exited $?"
grep -q "flow_control: wormhole" "$out/ps4.txt" || fail "packet_size = 4 is not wormhole"
grep -q "sizes: \[32\]" "$out/ps4.txt" || fail "packet_size = 4 is not a message of 4 flits"
grep -q "load: 0.2$" "$out/ps4.txt" || fail "0.05 packets of 4 flits is not a load of 0.2"
"$fabemu" check --booksim "$out/ps4.cfg" --booksim-set injection_rate=0.2 \
  --booksim-set injection_rate_uses_flits=1 >"$out/ps4f.txt" || fail "injection_rate_uses_flits exited $?"
grep -q "load: 0.2$" "$out/ps4f.txt" || fail "injection_rate_uses_flits: 0.2 flits is not a load of 0.2"
"$fabemu" run --booksim "$out/ps4.cfg" --booksim-set injection_rate=0.01 --quiet \
  >"$out/ps4run.txt" 2>/dev/null
[ "$(value "$out/ps4run.txt" "Injected packet size average")" = 4 ] || fail "packet size average is not 4"
# At zero load a packet's tail trails its head by 3 cycles: its latency is
# 3 cycles above a flit's (each from its own injection, as BookSim's).
python3 -c "import sys; sys.exit(0 if abs($(value "$out/ps4run.txt" "Packet latency average") - $(value "$out/ps4run.txt" "Flit latency average") - 3) < 0.2 else 1)" ||
  fail "packet latency is not its tail's: $(grep latency "$out/ps4run.txt")"

# BookSim's default use_noc_latency = 1 lengthens the flatfly's channels
# too: refused where it is not set to 0.
sed 's/ use_noc_latency = 0;//' "$flatfly" >"$out/noc.cfg"
rc=0
"$fabemu" check --booksim "$out/noc.cfg" >/dev/null 2>"$out/noc.err" || rc=$?
[ "$rc" = 2 ] || fail "flatfly without use_noc_latency = 0 exited $rc, want 2"
grep -q "use_noc_latency 1 (BookSim's default) lengthens the flatfly's channels" "$out/noc.err" ||
  fail "use_noc_latency refusal: $(cat "$out/noc.err")"

# The torus with the --booksim-set keys $1 (space-separated) and 4 VCs:
# imported with the spec line $2, its latency at 0.5 and its saturation
# against BookSim2's $3 and $4.
torus4_figures() {
  local sets=() kv tag=${1//[= _]/}
  for kv in $1 num_vcs=4; do sets+=(--booksim-set "$kv"); done
  "$fabemu" check --booksim "$torus" "${sets[@]}" >"$out/$tag.txt" 2>/dev/null || fail "$1 exited $?"
  grep -q "$2" "$out/$tag.txt" || fail "$1 is not imported as '$2'"
  "$fabemu" run --booksim "$torus" "${sets[@]}" --booksim-set injection_rate=0.5 --quiet \
    >"$out/$tag-05.txt" 2>/dev/null
  within "torus 4 VCs $1 latency at 0.5 (cycles)" "$(value "$out/$tag-05.txt" "Packet latency average")" "$3"
  "$fabemu" run --booksim "$torus" "${sets[@]}" --booksim-set injection_rate=1.0 \
    --booksim-set sim_type=throughput --quiet >"$out/$tag-sat.txt" 2>/dev/null
  within "torus 4 VCs $1 saturation" "$(value "$out/$tag-sat.txt" "Accepted packet rate average")" "$4"
}
# BookSim's separable allocators: sw_allocator separable_input_first is
# router.switch_allocator separable_input_first (BookSim2 with 4 VCs on the
# torus: 19.04 cycles at 0.5, saturation 0.8934, against islip's 0.8721);
# vc_allocator separable_input_first has each head pick one VC, then each
# VC one of its pickers (19.09, 0.8596); separable_output_first, switch or
# VC, is islip's one iteration.
torus4_figures sw_allocator=separable_input_first "switch_allocator: separable_input_first" 19.04 0.8934
torus4_figures vc_allocator=separable_input_first "vc_allocator: separable_input_first" 19.09 0.8596
"$fabemu" check --booksim "$torus" --booksim-set sw_allocator=separable_output_first \
  --booksim-set vc_allocator=separable_output_first >"$out/sof.txt" 2>"$out/sof.err" ||
  fail "separable_output_first exited $?"
grep -q "switch_allocator: islip" "$out/sof.txt" || fail "separable_output_first is not islip"
grep -q "note: sw_allocator separable_output_first" "$out/sof.err" || fail "separable_output_first has no note"
rc=0
"$fabemu" check --booksim "$torus" --booksim-set vc_allocator=wavefront >/dev/null \
  2>"$out/vaw.err" || rc=$?
[ "$rc" = 2 ] || fail "vc_allocator wavefront exited $rc, want 2"
grep -q "vc_allocator wavefront is not modelled" "$out/vaw.err" ||
  fail "vc_allocator refusal: $(cat "$out/vaw.err")"

# wait_for_tail_credit = 1: an output VC waits for all of its last packet's
# credits (BookSim2 on the torus: 20.47 cycles at 0.05, saturation 0.1180).
"$fabemu" run --booksim "$torus" --booksim-set wait_for_tail_credit=1 \
  --booksim-set injection_rate=0.05 --quiet >"$out/wt05.txt" 2>/dev/null
within "torus wait_for_tail_credit latency at 0.05 (cycles)" \
  "$(value "$out/wt05.txt" "Packet latency average")" 20.47
"$fabemu" run --booksim "$torus" --booksim-set wait_for_tail_credit=1 \
  --booksim-set injection_rate=1.0 --booksim-set sim_type=throughput --quiet >"$out/wtsat.txt" 2>/dev/null
within "torus wait_for_tail_credit saturation" \
  "$(value "$out/wtsat.txt" "Accepted packet rate average")" 0.1180

# BookSim's pipeline delays: its crossbar of two cycles (whose queue lets
# flits through in batches) and its routing stage of one; its speedups.
# The torus with --booksim-set for each KEY=VALUE of $1: its latency at 0.3
# and its saturation against BookSim2's $2 and $3.
torus_pair() {
  local sets=() kv tag=${1//[= _]/}
  for kv in $1; do sets+=(--booksim-set "$kv"); done
  "$fabemu" run --booksim "$torus" "${sets[@]}" --quiet >"$out/$tag-03.txt" 2>/dev/null
  within "torus $1 latency at 0.3 (cycles)" "$(value "$out/$tag-03.txt" "Packet latency average")" "$2"
  "$fabemu" run --booksim "$torus" "${sets[@]}" --booksim-set injection_rate=1.0 \
    --booksim-set sim_type=throughput --quiet >"$out/$tag-sat.txt" 2>/dev/null
  within "torus $1 saturation" "$(value "$out/$tag-sat.txt" "Accepted packet rate average")" "$3"
}
torus_pair st_final_delay=2 25.36 0.6563
torus_pair routing_delay=1 25.00 0.5384
# input_speedup and output_speedup: BookSim's expanded switch ports, an
# output queue sending a flit a cycle (BookSim2 itself, 2026-12-04).
torus_pair input_speedup=2 19.22 0.6818
torus_pair output_speedup=2 19.24 0.6637
torus_pair "input_speedup=2 output_speedup=2" 19.18 0.6846
torus4_figures "input_speedup=4 output_speedup=2" "input_speedup: 4" 18.80 0.9851
# num_vcs = 16, BookSim's default: 18.42 cycles at 0.3, saturation 0.8856.
torus_pair num_vcs=16 18.42 0.8856
rc=0
"$fabemu" check --booksim "$torus" --booksim-set routing_delay=2 >/dev/null 2>"$out/rd2.err" || rc=$?
[ "$rc" = 2 ] || fail "routing_delay = 2 exited $rc, want 2"
grep -q "override 'routing_delay=2'.*batches" "$out/rd2.err" ||
  fail "routing_delay 2 refusal: $(cat "$out/rd2.err")"
"$fabemu" check --booksim "$torus" --booksim-set vc_alloc_delay=2 >/dev/null 2>"$out/va2.err" ||
  fail "vc_alloc_delay 2 exited $?"
grep -q "note: vc_alloc_delay = 2: BookSim2 itself stops at an assertion" "$out/va2.err" ||
  fail "vc_alloc_delay 2 has no note: $(cat "$out/va2.err")"

# Refusals: a key fabemu does not model, at its line; an unknown key.
sed 's/packet_size = 1;/packet_size = 1; speculative = 1;/' "$torus" >"$out/spec.cfg"
rc=0
"$fabemu" run --booksim "$out/spec.cfg" --quiet >/dev/null 2>"$out/spec.err" || rc=$?
[ "$rc" = 2 ] || fail "speculative = 1 exited $rc, want 2"
grep -q "spec.cfg:11: 'speculative = 1'.*speculative switch allocation" "$out/spec.err" ||
  fail "speculative refusal: $(cat "$out/spec.err")"
printf 'topology = torus; k = 4; n = 3;\nfrobnicate = 3;\n' >"$out/unknown.cfg"
rc=0
"$fabemu" check --booksim "$out/unknown.cfg" >/dev/null 2>"$out/unknown.err" || rc=$?
[ "$rc" = 2 ] || fail "an unknown key exited $rc, want 2"
grep -q "unknown.cfg:2: 'frobnicate = 3'" "$out/unknown.err" || fail "unknown key: $(cat "$out/unknown.err")"

echo "$fails failed"
[ "$fails" = 0 ]
