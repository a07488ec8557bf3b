#!/usr/bin/env bash
# fabemu configured like BookSim2 on an 8x8 mesh (topology = mesh; k = 8;
# n = 2): topologies/mesh-8x8-booksim.yaml, the torus family with a
# dimension of 1 and no wrap links, BookSim's dim_order (X then Y, any VC)
# on the iq router of booksim_torus.sh (2 VCs x 16 flits, iSLIP, every
# delay one cycle, one-flit packets; a cycle is 1 ns), seed 1.
# Asserted:
#   - zero-load latency exact in cycles, 4 x hops + 6: the minimum latency
#     of tornado traffic (its nearest pairs 3 + 3 hops: 30 cycles) and of
#     neighbor traffic (1 hop: 10 cycles);
#   - every packet offered below saturation accepted (loads 0.02 .. 0.3);
#   - mean latency at those loads and saturation within 5% of BookSim2's
#     (27.13 27.24 27.97 29.89 cycles; 0.3920), measured with BookSim2
#     itself on topologies/booksim/mesh-8x8.cfg.
# Usage: booksim_mesh.sh FABEMU_BINARY SOURCE_DIR  (about 20 s)
set -euo pipefail
fabemu=${1:?usage: booksim_mesh.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: booksim_mesh.sh FABEMU_BINARY SOURCE_DIR}
spec="$src/topologies/mesh-8x8-booksim.yaml"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run() {  # NAME --set ... : one run's JSON report into $out/NAME.json
  local name=$1
  shift
  "$fabemu" run "$spec" --quiet --json "$out/$name.json" --set run.progress_s=0 "$@" >/dev/null
}
for l in 0.02 0.1 0.2 0.3; do run "load-$l" --set traffic.load="$l"; done
run saturation --set traffic.load=1.0
run tornado --set traffic.pattern=tornado --set traffic.load=0.01
run neighbor --set traffic.pattern=neighbor --set traffic.load=0.01

python3 - "$out" <<'PY'
import json, os, sys
d = sys.argv[1]
def report(name):
    return json.load(open(os.path.join(d, name + ".json")))
fails = 0
def check(what, got, want, ok):
    global fails
    fails += not ok
    print(f"{what:44} fabemu {got:9.4f}  want {want:9.4f}  {'OK' if ok else 'FAIL'}")

for name, hops in (("tornado", 6), ("neighbor", 1)):
    got = report(name)["latency_ns"]["min"]
    want = 4 * hops + 6
    check(f"zero-load latency, {hops} hop(s) (cycles)", got, want, got == want)
# BookSim2's own mean latency for topologies/booksim/mesh-8x8.cfg (built
# from its public sources, which reproduce shared/reference/booksim-torus.md
# to four digits; 2026-12-03), and its saturation 0.3920.
booksim = {"0.02": 27.13, "0.1": 27.24, "0.2": 27.97, "0.3": 29.89}
for load in ("0.02", "0.1", "0.2", "0.3"):
    r = report("load-" + load)
    acc = r["accepted_load"]
    check(f"accepted at load {load}", acc, float(load), abs(acc / float(load) - 1) <= 0.05)
    lat = r["latency_ns"]["mean"]  # a cycle is 1 ns
    check(f"mean latency at load {load} (cycles)", lat, booksim[load],
          abs(lat / booksim[load] - 1) <= 0.05)
sat = report("saturation")["accepted_load"]
check("saturation (offered 1.0)", sat, 0.3920, abs(sat / 0.3920 - 1) <= 0.05)
print("FAIL" if fails else "PASS", f"({fails} failed)")
sys.exit(1 if fails else 0)
PY
