#!/usr/bin/env bash
# `fabemu sweep` (scripts/fabemu-sweep): a latency-load sweep of the 4-ary
# 3-flat over two routings: every point's figures in the JSON and the CSV
# match the table, a series stops at its first load past saturation, the
# saturation throughput is the most a series accepted, latency rises with
# load, the PNG is written; bad --loads, --vary and spec keys are refused
# before anything runs (exit 2). About 5 s.
set -euo pipefail
fabemu=${1:?usage: sweep.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: sweep.sh FABEMU_BINARY SOURCE_DIR}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$fabemu" sweep "$src/topologies/flatfly-4x3.yaml" --loads 0.2,0.6,1.0 --vary routing=min,val \
  --set run.measure_ns=10000 --json "$out/s.json" --csv "$out/s.csv" --plot "$out/s.png" \
  >"$out/table.txt" 2>"$out/progress.txt"
cat "$out/table.txt"
python3 - "$out" <<'PY'
import csv, json, os, sys
d = sys.argv[1]
j = json.load(open(os.path.join(d, "s.json")))
fails = []
def check(ok, what):
    print(("OK   " if ok else "FAIL ") + what)
    if not ok:
        fails.append(what)
pts = j["points"]
by = {}
for p in pts:
    by.setdefault(p["series"], []).append(p)
check(sorted(by) == ["routing=min", "routing=val"], "one series per --vary value")
# VAL on the 4-ary 3-flat saturates near 0.36: it stops after load 0.6.
check([p["load"] for p in by["routing=val"]] == [0.2, 0.6], "VAL stops at its first load past saturation")
check([p["load"] for p in by["routing=min"]] == [0.2, 0.6, 1.0], "MIN runs up to its saturation at 1.0")
for s, ps in by.items():
    check(all(p["accepted_load"] <= p["offered_load"] * 1.02 for p in ps), f"{s}: accepted <= offered")
    check(all(a["latency_mean_ns"] < b["latency_mean_ns"] for a, b in zip(ps, ps[1:])),
          f"{s}: latency rises with load")
    check(all(p["drained"] for p in ps), f"{s}: every run drained")
    sat = [x for x in j["series"] if x["series"] == s][0]
    check(sat["saturation_throughput"] == max(p["accepted_load"] for p in ps) and sat["saturated"],
          f"{s}: saturation throughput {sat['saturation_throughput']:.3f} is the most accepted")
check(abs(by["routing=min"][0]["accepted_load"] - 0.2) < 0.01, "below saturation accepted = offered")
rows = list(csv.DictReader(open(os.path.join(d, "s.csv"))))
check(len(rows) == len(pts) and all(float(r["accepted_load"]) == p["accepted_load"]
                                    for r, p in zip(rows, pts)), "the CSV has every point")
table = open(os.path.join(d, "table.txt")).read()
check(all(f"{p['accepted_load']:.3f}" in table for p in pts), "the table shows every point")
check(open(os.path.join(d, "s.png"), "rb").read(8) == b"\x89PNG\r\n\x1a\n", "the plot is a PNG")
prog = open(os.path.join(d, "progress.txt")).read().splitlines()
check(len(prog) == 5 and "5/5" in prog[-1] and "0 to go" in prog[-1],
      "a progress line per point, counting what is done and what is left")
sys.exit(1 if fails else 0)
PY

# Several spec files, one series each, with overrides for one of them only
# (the Figure 6 form), one point at a time: the same figures as the
# parallel sweep above for the same runs (virtual time is deterministic).
"$fabemu" sweep "$src/topologies/flatfly-4x3.yaml:routing=val" "$src/topologies/hypercube-4.yaml" \
  --loads 0.2,0.6 --set run.measure_ns=10000 --jobs 1 --json "$out/m.json" >/dev/null 2>"$out/mp.txt"
python3 - "$out" <<'PY'
import json, os, sys
d = sys.argv[1]
m = json.load(open(os.path.join(d, "m.json")))
s = json.load(open(os.path.join(d, "s.json")))
labels = sorted({p["series"] for p in m["points"]})
ok = labels == ["flatfly-4x3 routing=val", "hypercube-4"]
print(("OK   " if ok else "FAIL ") + f"one series per spec file, named by it: {labels}")
val = {p["load"]: p["accepted_load"] for p in m["points"] if p["series"].startswith("flatfly")}
ref = {p["load"]: p["accepted_load"] for p in s["points"] if p["series"] == "routing=val"}
same = val == {k: v for k, v in ref.items() if k in val} and len(val) == 2
print(("OK   " if same else "FAIL ") + f"a file's own override applies to it alone, figures as the parallel sweep's: {val}")
sys.exit(0 if ok and same else 1)
PY

refused() {  # expected-text args...
  local want=$1 status=0
  shift
  "$fabemu" sweep "$src/topologies/flatfly-4x3.yaml" "$@" >"$out/o.txt" 2>"$out/e.txt" || status=$?
  if [[ $status -ne 2 ]] || ! grep -q -- "$want" "$out/e.txt"; then
    echo "FAIL sweep $* (exit $status, wanted 2 and '$want'):"
    cat "$out/e.txt"
    exit 1
  fi
  echo "OK   refused: $* ($(head -1 "$out/e.txt" | cut -c1-100))"
}
refused "every load must be in (0, 1]" --loads 0,0.5
refused "FIRST:LAST:STEP" --loads 0.1:0.5
refused "give KEY=V1,V2" --vary routing
refused "field 'routing'" --vary routing=min,nosuch
refused "unknown key" --set router.nosuch=1
refused "the folder /nonexistent-folder does not exist" --plot /nonexistent-folder/s.png
refused "--json $out: is a directory" --json "$out"
refused "--jobs: 0 must be at least 1" --jobs 0
refused "is not KEY=VALUE" "$src/topologies/flatfly-4x3.yaml:routing"
refused "no such spec file" /nonexistent.yaml
refused "both be named" "$src/topologies/flatfly-4x3.yaml"
# A file that cannot take what is written (a full disk) fails the sweep,
# naming it, after the table.
status=0
"$fabemu" sweep "$src/topologies/flatfly-4x3.yaml" --loads 0.2 --set run.measure_ns=1000 \
  --json /dev/full >"$out/o.txt" 2>"$out/e.txt" || status=$?
if [[ $status -ne 1 ]] || ! grep -q "cannot write /dev/full: No space left on device" "$out/e.txt"; then
  echo "FAIL sweep --json /dev/full (exit $status, wanted 1 and the reason):"; cat "$out/e.txt"; exit 1
fi
echo "OK   --json /dev/full: exit 1, said"
echo "sweep: all checks passed"
