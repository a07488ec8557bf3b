#!/usr/bin/env bash
# `fabemu describe` of a spec with faults, end to end: the degraded fabric
# said at the top with its faults and what is dead, its figures beside the
# healthy ones (T3E 4x4x4 with a dead X link: 64 pairs rerouted, 50 hops
# more, diameter 7, bisection 31; tests/unit/analysis_faults_test.cpp works
# them out), the same in the JSON; --at before the fault and --healthy
# describe the healthy fabric, as a spec without faults is described (word
# for word but the faults row); a dead Clos router's pairs are unroutable
# and that is not a failure; a bad --at is refused (exit 2).
set -euo pipefail
fabemu=${1:?usage: describe_faults.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: describe_faults.sh FABEMU_BINARY SOURCE_DIR}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
t3e=$src/topologies/t3e-4x4x4.yaml
fault='faults=["5us link=r0:p0 down"]'

"$fabemu" describe "$t3e" --json "$out/plain.json" >"$out/plain.txt"
"$fabemu" describe "$t3e" --set "$fault" --json "$out/degraded.json" >"$out/degraded.txt"
"$fabemu" describe "$t3e" --set "$fault" --at 4us --json "$out/before.json" >"$out/before.txt"
"$fabemu" describe "$t3e" --set "$fault" --healthy >"$out/healthy.txt"
"$fabemu" describe "$src/topologies/yarc-r2-1024.yaml" --set 'faults=["1us router=5 down"]' \
  --json "$out/clos.json" >"$out/clos.txt"
set +e
"$fabemu" describe "$t3e" --set "$fault" --at 5parsecs >"$out/bad.txt" 2>"$out/bad.err"
bad=$?
set -e
cat "$out/degraded.txt" "$out/clos.txt"

python3 - "$out" "$bad" <<'PY'
import json, os, sys
d, bad = sys.argv[1], int(sys.argv[2])
fails = []
def check(ok, what):
    print(("OK   " if ok else "FAIL ") + what)
    if not ok:
        fails.append(what)
text = lambda name: open(os.path.join(d, name)).read()
js = lambda name: json.load(open(os.path.join(d, name)))
plain, deg, before, healthy = text("plain.txt"), text("degraded.txt"), text("before.txt"), text("healthy.txt")
lines = deg.splitlines()
top = " ".join(" ".join(lines[1:lines.index(next(l for l in lines if "dead links" in l))]).split())
check(lines[1].startswith("  faults              DEGRADED:") and top.endswith(": 5us link=r0:p0 down"),
      "the row after the title says DEGRADED and names the fault")
check(any(l.split() == ["dead", "links", "1:", "r0:p0-r16:p3"] for l in lines), "the dead link, both ends")
check(any(l.split() == ["dead", "routers", "none"] for l in lines), "no dead router")
check("7 hops over routable pairs; healthy 6" in deg, "diameter 7, healthy 6")
check("31 live links one way (healthy 32" in deg, "bisection 31 of 32")
check("none: every one of the 4032 (src, dst) pairs is routed around the faults" in deg, "every pair routed")
check("64 of the routable pairs take another path" in deg and "take +50 hops in all" in deg, "64 pairs changed, 50 hops more")
j = js("degraded.json")
f = j["faults"]
check(f["degraded"] and f["applied"] == [{"at_ns": 5000, "fault": "5us link=r0:p0 down"}], "JSON: the fault applied")
check(f["dead_links"] == ["r0:p0-r16:p3"] and f["dead_routers"] == [], "JSON: dead links and routers")
check(f["unroutable_pairs"] == 0 and f["pairs_changed"] == 64 and f["hops_added"] == 50, "JSON: pairs unroutable, changed, hops added")
check(j["diameter"] == 7 and f["healthy"]["diameter"] == 6, "JSON: diameters")
check(j["bisection_links"] == 31 and f["healthy"]["bisection_links"] == 32, "JSON: bisections")
check(abs(j["avg_hops"] - (64 * 64 * 3 + 50) / 4032) < 1e-12, "JSON: average hops of the degraded fabric")
p = js("plain.json")
# (The row, not the word: the spec's path, printed at the top, may hold it.)
check("faults" not in p and not any(l.lstrip().startswith("faults ") for l in plain.splitlines()),
      "no faults: no faults row, no faults key")
drop = lambda t: [l for l in t.splitlines() if not l.startswith("  faults ")]
check(drop(before) == plain.splitlines(), "--at before the fault: the healthy description, word for word")
check(drop(healthy) == plain.splitlines(), "--healthy: the healthy description, word for word")
check("healthy: at 4us none of the spec's 1 fault has happened yet" in before, "--at 4us says so")
check("healthy: the spec's 1 fault left out (--healthy)" in healthy, "--healthy says so")
b = js("before.json")
check(b["faults"]["degraded"] is False and b["faults"]["at_ns"] == 4000 and b["diameter"] == 6, "JSON --at 4us: healthy")
c = js("clos.json")["faults"]
check(c["dead_routers"] == [5] and c["unroutable_pairs"] == 32 * 1023 * 2 - 32 * 31, "Clos: a dead rank-1 router's pairs")
check("dead routers        1: r5 (with every link into and out of it)" in text("clos.txt"), "Clos: the dead router listed")
check(bad == 2 and "--at '5parsecs' is not an emulated time" in text("bad.err"), "a bad --at: exit 2, what to give")
if fails:
    sys.exit("FAILED: " + "; ".join(fails))
PY
