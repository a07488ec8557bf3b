#!/usr/bin/env bash
# fabemu configured like BookSim2 against BookSim2's own figures on the
# 4x4x4 torus (N = 64): shared/reference/booksim-torus.md, BookSim2 commit
# 28f43299 with iq routers, dim_order routing with its dateline VC classes,
# 2 VCs x 16 flits, islip VC and switch allocators with one iteration,
# every delay one cycle, one-flit packets, Bernoulli injection, uniform
# traffic. fabemu runs topologies/torus-4x4x4-booksim.yaml (routing
# dim_order, router.switch_allocator islip; a cycle is 1 ns), seed 1.
# Asserted:
#   - zero-load latency exact in cycles: 4 x hops + 6, checked on tornado
#     traffic (every packet 3 hops: 18 cycles) and on the 1-hop packets of
#     neighbor traffic (10 cycles), as the minimum latency of each run;
#   - saturation (offered 1.0) within 5% of BookSim's 0.6541;
#   - mean latency within 5% of BookSim's at every stable load, 0.02 .. 0.6,
#     in cycles (BookSim's include source queueing, as fabemu's latency_ns
#     does): -0.6% to +1.3% since the ejection's delay sits after the
#     switch, as BookSim's (docs/fabrics/booksim.md);
#   - with 4 VCs, latency at 0.3 and 0.5 and saturation within 5% of
#     BookSim2's own figures for that file (measured 2026-12-03).
# As BookSim's, the uniform traffic includes the source itself
# (traffic.to_self) and a source puts a packet on the next VC with room
# (vcs.injection free). Usage: booksim_torus.sh FABEMU_BINARY SOURCE_DIR
# (about 30 s)
set -euo pipefail
fabemu=${1:?usage: booksim_torus.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: booksim_torus.sh FABEMU_BINARY SOURCE_DIR}
spec="$src/topologies/torus-4x4x4-booksim.yaml"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run() {  # NAME --set ... : one run's JSON report into $out/NAME.json
  local name=$1
  shift
  "$fabemu" run "$spec" --quiet --json "$out/$name.json" --set run.progress_s=0 "$@" >/dev/null
}
for l in 0.02 0.1 0.2 0.3 0.4 0.5 0.6 1.0; do run "load-$l" --set traffic.load="$l"; done
run tornado --set traffic.pattern=tornado --set traffic.load=0.01
run neighbor --set traffic.pattern=neighbor --set traffic.load=0.01
for l in 0.3 0.5 1.0; do run "vc4-$l" --set vcs.count=4 --set traffic.load="$l"; done

python3 - "$out" <<'PY'
import json, os, sys
d = sys.argv[1]
def report(name):
    return json.load(open(os.path.join(d, name + ".json")))
fails = 0
def check(what, got, want, ok):
    global fails
    fails += not ok
    print(f"{what:44} fabemu {got:9.4f}  BookSim2 {want:9.4f}  {'OK' if ok else 'FAIL'}")

# Zero load: a cycle is 1 ns, so latency_ns is in cycles.
for name, hops in (("tornado", 3), ("neighbor", 1)):
    got = report(name)["latency_ns"]["min"]
    want = 4 * hops + 6
    check(f"zero-load latency, {hops} hop(s) (cycles)", got, want, got == want)

sat = report("load-1.0")["accepted_load"]
check("saturation (offered 1.0, flits/node/cycle)", sat, 0.6541, abs(sat / 0.6541 - 1) <= 0.05)

# BookSim2's mean latency (cycles) at each stable offered load.
booksim = {"0.02": 18.14, "0.1": 18.31, "0.2": 18.70, "0.3": 19.27, "0.4": 20.40,
           "0.5": 22.65, "0.6": 29.85}
for load, want in booksim.items():
    j = report("load-" + load)
    got = j["latency_ns"]["mean"]
    check(f"mean latency at load {load} (cycles)", got, want, abs(got / want - 1) <= 0.05)
    acc = j["accepted_load"]
    check(f"accepted at load {load}", acc, float(load), abs(acc / float(load) - 1) <= 0.05)
# 4 VCs (two per dateline class): BookSim2's own figures for the file with
# num_vcs = 4 (BookSim2 built from its public sources, 2026-12-03).
for load, want in (("0.3", 18.37), ("0.5", 19.10)):
    got = report("vc4-" + load)["latency_ns"]["mean"]
    check(f"4 VCs: mean latency at load {load} (cycles)", got, want, abs(got / want - 1) <= 0.05)
sat = report("vc4-1.0")["accepted_load"]
check("4 VCs: saturation", sat, 0.8721, abs(sat / 0.8721 - 1) <= 0.05)
print("FAIL" if fails else "PASS", f"({fails} failed)")
sys.exit(1 if fails else 0)
PY
