#!/usr/bin/env bash
# Figure 4 of the flattened butterfly paper (Kim, Dally & Abts, ISCA 2007):
# saturation throughput of each routing algorithm on the 32-ary 2-flat
# (N = 1024) with the paper's router, input-queued with enough switch
# speedup that it is not the bottleneck (router.output_speedup: 63, output
# queues of four input buffers), under uniform random traffic (4a) and the
# worst case, every endpoint of router R_i to a random one of R_i+1 (4b).
# Saturation = accepted load at offered load 1.0 (10 us warm-up, 20 us
# measured, seed 1). Asserted where fabemu reproduces the paper, within 5%:
#   4b: MIN 1/32; VAL, UGAL, UGAL-S and CLOS AD 0.5;
#   4a: VAL 0.5; MIN AD, UGAL, UGAL-S and CLOS AD at least 0.95;
#   and CLOS AD's mean latency below UGAL-S's near saturation on 4b (0.45);
# and Figure 5's dynamic response (one batch per endpoint at time 0 on the
# worst case, the time to deliver it per packet of the batch): greedy UGAL
# the worst on a batch of 1, CLOS AD the best on batches of 1 and 16.
# Figure 6's conventional butterfly (32-ary 2-fly, destination routing,
# the same router): at least 0.95 on 6a, 1/32 on 6b ("performs identically
# to a flattened butterfly with minimal routing").
# Usage: flatfly_figures.sh FABEMU_BINARY SOURCE_DIR  (about a minute)
set -euo pipefail
fabemu=${1:?usage: flatfly_figures.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: flatfly_figures.sh FABEMU_BINARY SOURCE_DIR}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run() {  # name routing pattern load [more --set]
  local name=$1 routing=$2 pattern=$3 load=$4 file=flatfly-32x2.yaml
  shift 4
  [[ $routing == dest ]] && file=butterfly-32x2.yaml
  "$fabemu" run "$src/topologies/$file" --quiet --json "$out/$name.json" \
    --set routing="$routing" --set traffic.pattern="$pattern" --set traffic.load="$load" \
    --set router.output_speedup=63 --set run.warmup_ns=10000 --set run.measure_ns=20000 \
    --set run.progress_s=0 "$@" >/dev/null
}
for r in min val min_ad ugal ugal_s clos_ad; do
  run "$r-ur" "$r" uniform 1.0
  run "$r-wc" "$r" flatfly_worst 1.0
done
run butterfly-ur dest uniform 1.0
run butterfly-wc dest flatfly_worst 1.0
run ugal_s-wc45 ugal_s flatfly_worst 0.45
run clos_ad-wc45 clos_ad flatfly_worst 0.45
for b in 1 16; do
  for r in ugal ugal_s clos_ad; do
    run "$r-batch$b" "$r" flatfly_worst 0.4 --set traffic.process=single_batch \
      --set traffic.batch_size=$b --set run.warmup_ns=0 --set run.measure_ns=200000
  done
done

python3 - "$out" <<'PY'
import json, os, sys
d = sys.argv[1]
def j(name):
    return json.load(open(os.path.join(d, name + ".json")))
def acc(name):
    return j(name)["accepted_load"]
checks = []  # (what, value, low, high) ; None bounds: printed only
def within(name, target, what):
    checks.append((what, acc(name), target * 0.95, target * 1.05))
within("min-wc", 1 / 32, "4b MIN = 1/32")
for r in ["val", "ugal", "ugal_s", "clos_ad"]:
    within(r + "-wc", 0.5, f"4b {r.upper()} = 0.5")
within("val-ur", 0.5, "4a VAL = 0.5")
for r in ["min_ad", "ugal", "ugal_s", "clos_ad"]:
    checks.append((f"4a {r.upper()} >= 0.95", acc(r + "-ur"), 0.95, None))
checks.append(("4a MIN (not in the figure)", acc("min-ur"), None, None))
checks.append(("6a butterfly >= 0.95", acc("butterfly-ur"), 0.95, None))
within("butterfly-wc", 1 / 32, "6b butterfly = 1/32 (as MIN)")
lat_u = j("ugal_s-wc45")["latency_ns"]["mean"]
lat_c = j("clos_ad-wc45")["latency_ns"]["mean"]
fails = 0
print(f"{'Figures 4 and 6, N = 1024, output_speedup 63':45} {'accepted':>9} {'bounds':>16}")
for what, v, lo, hi in checks:
    ok = (lo is None or v >= lo) and (hi is None or v <= hi)
    asserted = lo is not None or hi is not None
    fails += asserted and not ok
    b = f"[{lo if lo is None else round(lo, 4)}, {hi if hi is None else round(hi, 4)}]"
    print(f"{what:45} {v:9.4f} {b:>16}  {'OK' if ok and asserted else 'FAIL' if asserted else 'info'}")
ok = lat_c < lat_u
fails += not ok
print(f"4b at load 0.45: mean latency CLOS AD {lat_c:.0f} ns < UGAL-S {lat_u:.0f} ns  {'OK' if ok else 'FAIL'}")
# Figure 5: the batch's delivery time per packet of it, in packet times
# (19 phits of 1.6 ns).
def batch(r, b):
    return j(f"{r}-batch{b}")["latency_ns"]["max"] / 30.4 / b
for b in (1, 16):
    t = {r: batch(r, b) for r in ("ugal", "ugal_s", "clos_ad")}
    shown = ", ".join(f"{r.upper()} {v:.1f}" for r, v in t.items())
    ok = t["clos_ad"] < min(t["ugal"], t["ugal_s"]) and (b != 1 or t["ugal"] > t["ugal_s"])
    fails += not ok
    want = "greedy UGAL worst, CLOS AD best" if b == 1 else "CLOS AD best"
    print(f"Figure 5, batch {b:2}: {shown} packet times per packet ({want})  {'OK' if ok else 'FAIL'}")
print(f"{fails} FAIL")
sys.exit(1 if fails else 0)
PY
