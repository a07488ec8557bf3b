#!/usr/bin/env bash
# Engine benchmarks: figures, never assertions.
#  - packet-hops per second per worker core, virtual time, 64-byte packets on
#    an 8x8x8 T3E torus at offered load 0.5, with one and with two workers;
#  - peak resident memory of a 1024-endpoint rank-2 BlackWidow Clos run;
#  - start-up: a whole run of 1 ns (4x4x4, 8x8x8, Clos-1024);
#  - the flattened butterfly (32-ary 2-flat) per routing algorithm, next to
#    BookSim2's packets per second.
# Usage: scripts/bench.sh [measure_ns]   (default 50000 ns of emulated time)
set -euo pipefail
# shellcheck source=scripts/lib/setup.sh
source "$(dirname "$0")/lib/setup.sh"
fabemu_install_packages
fabemu_build >/dev/null
bin="$FABEMU_BUILD/fabemu"
measure=${1:-50000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "fabemu engine benchmark ($(nproc) cores; other load on the machine skews these)"
# Load 0.5 is beyond this torus's saturation (it accepts about 0.16, every
# source queue full); the 1-worker case at load 0.15, below it, follows.
for run in "1 0.5" "2 0.5" "1 0.15"; do
  read -r w load <<<"$run"
  "$bin" run "$FABEMU_ROOT/topologies/t3e-8x8x8.yaml" --quiet --json "$out/t$w-$load.json" \
    --set traffic.load="$load" --set "traffic.sizes=[64]" --set run.workers="$w" \
    --set run.measure_ns="$measure" --set run.progress_s=0 || true
  python3 - "$out/t$w-$load.json" "$w" "$load" <<'PY' || echo "  (no figures: the run failed, its error is above)"
import json, sys
j = json.load(open(sys.argv[1])); p = j["performance"]
print(f"t3e 8x8x8, 64 B, load {sys.argv[3]}, {sys.argv[2]} worker(s): "
      f"{p['packet_hops_per_s']/1e6:.3f} M packet-hops/s total, "
      f"{p['packet_hops_per_s_per_worker']/1e6:.3f} M per worker, "
      f"{p['events'] / max(1, p['packet_hops']):.2f} events per packet-hop "
      f"({p['packet_hops']} hops, {p['events']} events in {p['wall_s']:.2f} s; "
      f"accepted load {j['accepted_load']:.3f})")
ws = p.get("workers", [])
if len(ws) > 1:  # balance and the time spent at window edges waiting for the others
    print("  per worker: " + "; ".join(
        f"{x['events']} events, waited {x['edge_wait_s']:.3f} s "
        f"({100 * x['edge_wait_s'] / max(1e-9, p['wall_s']):.0f}%)" for x in ws))
PY
done
# The same 1-worker case with link-level retry on every link: no bit errors
# (the cost of the data-link layer) and at BER 1e-4.
for ber in 0 1e-4; do
  "$bin" run "$FABEMU_ROOT/topologies/t3e-8x8x8.yaml" --quiet --json "$out/r$ber.json" \
    --set traffic.load=0.5 --set "traffic.sizes=[64]" --set run.workers=1 \
    --set run.measure_ns="$measure" --set run.progress_s=0 --set link.retry=true \
    --set link.ber=$ber || true
  python3 - "$out/r$ber.json" "$ber" <<'PY' || echo "  (no figures: the run failed, its error is above)"
import json, sys
j = json.load(open(sys.argv[1])); p = j["performance"]; r = j["link_retry"]
print(f"t3e 8x8x8, 64 B, load 0.5, 1 worker, link retry at BER {sys.argv[2]}: "
      f"{p['packet_hops_per_s_per_worker']/1e6:.3f} M packet-hops/s per worker "
      f"({r['crc_errors']} CRC errors, {r['retries']} packets resent; accepted load {j['accepted_load']:.3f})")
PY
done
# The same 1-worker case with every link captured (pcapng written by the
# writer thread; virtual time waits for it, so nothing is dropped).
"$bin" run "$FABEMU_ROOT/topologies/t3e-8x8x8.yaml" --quiet --json "$out/cap.json" \
  --set traffic.load=0.5 --set "traffic.sizes=[64]" --set run.workers=1 \
  --set run.measure_ns="$measure" --set run.progress_s=0 --capture all --capture-file "$out/all.pcapng" || true
python3 - "$out/cap.json" <<'PY' || echo "  (no figures: the run failed, its error is above)"
import json, sys
j = json.load(open(sys.argv[1])); p = j["performance"]; c = j["capture"]
print(f"t3e 8x8x8, 64 B, load 0.5, 1 worker, every link captured: "
      f"{p['packet_hops_per_s_per_worker']/1e6:.3f} M packet-hops/s per worker "
      f"({c['written']} packets, {c['bytes']/1e6:.0f} MB written, {c['drops']} dropped)")
PY
rm -f "$out"/all*.pcapng
rss=$( { /usr/bin/time -f '%M' "$bin" run "$FABEMU_ROOT/topologies/yarc-r2-1024.yaml" --quiet \
         --set run.progress_s=0 >/dev/null; } 2>&1 | tail -1)
echo "yarc rank-2 Clos, 1024 endpoints: peak resident memory ${rss} KiB"
# Start-up: the whole process for a run of 1 ns emulated time (EAL, fabric,
# tables, pools, workers, summary), median of 3.
for f in t3e-4x4x4 t3e-8x8x8 yarc-r2-1024; do
  walls=$(for i in 1 2 3; do { /usr/bin/time -f '%e' "$bin" run "$FABEMU_ROOT/topologies/$f.yaml" \
            --quiet --set run.measure_ns=1 --set run.warmup_ns=0 --set run.workers=1 \
            --set run.progress_s=0 >/dev/null; } 2>&1 | tail -1; done | sort -n)
  echo "start-up, $f, 1 worker: median $(echo "$walls" | sed -n 2p) s (of $(echo $walls))"
done
# Real time: frames per second through a 4x4x4 torus over in-process ring
# ports on one worker core (64- and 1500-byte frames), with lateness.
"$FABEMU_BUILD/fabemu_bench" "$FABEMU_ROOT/topologies/t3e-4x4x4.yaml" 3
# Lateness against frame rate and time scale (a replayed host): the highest
# rate whose lateness p99 stays under 1 us, for 64- and 1500-byte frames.
"$FABEMU_ROOT/scripts/bench-lateness.sh" 2
# Port taps: frames per second they record without drops (a replayed host).
"$FABEMU_ROOT/scripts/bench-port-tap.sh" 2
# The flattened butterfly paper's 32-ary 2-flat (N = 1024) at uniform load
# 0.5, one worker, each routing algorithm: packets delivered per second of
# the run's wall time, against BookSim2's on the same kind of machine (MIN
# at uniform 0.5: 169,000 packets/s, docs/performance.md; BookSim2 was
# measured for no other algorithm at this load).
for alg in min min_ad val ugal ugal_s clos_ad; do
  "$bin" run "$FABEMU_ROOT/topologies/flatfly-32x2.yaml" --quiet --json "$out/ff-$alg.json" \
    --set routing="$alg" --set traffic.load=0.5 --set run.workers=1 \
    --set run.measure_ns=20000 --set run.progress_s=0 || true
  python3 - "$out/ff-$alg.json" "$alg" <<'PY' || echo "  (no figures: the run failed, its error is above)"
import json, sys
j = json.load(open(sys.argv[1])); p = j["performance"]
pps = j["delivered_packets"] / p["wall_s"]
print(f"flatfly 32-ary 2-flat, uniform load 0.5, 1 worker, {sys.argv[2]}: "
      f"{p['packet_hops_per_s_per_worker']/1e6:.3f} M packet-hops/s, {pps/1e6:.3f} M packets/s "
      f"({pps/169000:.1f}x BookSim2's MIN at this load; accepted load {j['accepted_load']:.3f})")
PY
done
# The same fabric with BookSim2's own router (topologies/flatfly-32x2-booksim.yaml:
# iSLIP, no speedup), in the runs the reference measured BookSim2's speed on.
while read -r alg pattern load booksim; do
  rm -f "$out/fb.json"  # a run that fails prints no figures of an earlier one
  "$bin" run "$FABEMU_ROOT/topologies/flatfly-32x2-booksim.yaml" --quiet --json "$out/fb.json" \
    --set routing="$alg" --set traffic.pattern="$pattern" --set traffic.load="$load" \
    --set run.workers=1 --set run.progress_s=0 || true
  python3 - "$out/fb.json" "$alg" "$pattern" "$load" "$booksim" <<'PY' || echo "  (no figures: the run failed, its error is above)"
import json, sys
j = json.load(open(sys.argv[1])); p = j["performance"]
pps = j["delivered_packets"] / p["wall_s"]; ref = float(sys.argv[5])
print(f"flatfly 32-ary 2-flat, BookSim2's router, {sys.argv[2]} {sys.argv[3]} load {sys.argv[4]}, 1 worker: "
      f"{pps/1e6:.3f} M packets/s against BookSim2's {ref/1e3:.0f} k ({pps/ref:.1f}x)")
PY
done <<'RUNS'
ran_min uniform 0.1 231000
ran_min uniform 0.5 169000
valiant_booksim neighbor 0.1 201000
ugal_booksim uniform 0.1 227000
RUNS
# Component microbenchmarks: timing wheel, route lookups, arbitration, credits.
echo "component microbenchmarks:"
"$FABEMU_BUILD/fabemu_micro_bench" --benchmark_min_time=0.2
