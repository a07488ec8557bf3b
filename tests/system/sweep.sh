#!/usr/bin/env bash
# `fabemu sweep` (scripts/fabemu-sweep): a latency-load sweep of the 4-ary
# 3-flat over two routings: every point's figures in the JSON and the CSV
# match the table, a series stops at its first load past saturation, the
# saturation throughput is the most a series accepted, latency rises with
# load, the PNG is written; bad --loads, --vary and spec keys are refused
# before anything runs (exit 2). Then the command line as fabemu's own
# (help, did-you-mean, --version), '-' for standard output, --seeds and
# --replot, and every exit status: 0, 1 (a failed point), 2, 143 (SIGTERM).
# About 20 s.
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

fail() { echo "FAIL $*"; exit 1; }
# The command line as fabemu's own (CLI11): its help layout, a did-you-mean
# for a misspelt option, --version with the commit.
"$fabemu" sweep --help >"$out/help.txt"
grep -qx 'Usage: fabemu sweep \[OPTIONS\] SPEC...' "$out/help.txt" && grep -qx 'Options:' "$out/help.txt" &&
  grep -qE '^  -s,--set KEY=VALUE \.\.\. +a spec override' "$out/help.txt" || fail "--help layout: $(head -5 "$out/help.txt")"
echo "OK   --help laid out as fabemu run --help"
refused "--sett is not an option of sweep: did you mean --set?" --sett x
grep -qx "Run with --help for more information." "$out/e.txt" || fail "no 'Run with --help' line"
refused "--json: 1 required OUT missing" --json
[[ $("$fabemu" sweep --version) == "$("$fabemu" --version)" ]] || fail "sweep --version: $("$fabemu" sweep --version 2>&1)"
echo "OK   sweep --version: $("$fabemu" sweep --version)"
refused "only one output can be standard output" --json - --csv -
refused "1 --label for 2 series" --vary routing=min,val --label MIN

# '-' is standard output, the table then on standard error: the JSON pipes
# into a reader as it is, as do the CSV and the PNG.
ff=("$src/topologies/flatfly-4x3.yaml" --loads 0.2 --set run.measure_ns=1000)
"$fabemu" sweep "${ff[@]}" --json - 2>"$out/t.txt" | python3 -m json.tool >"$out/piped.json" ||
  fail "--json - does not pipe into python -m json.tool"
grep -q "saturation throughput" "$out/t.txt" || fail "--json -: the table is not on stderr"
"$fabemu" sweep "${ff[@]}" --csv - 2>/dev/null | python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
sys.exit(0 if len(rows) == 1 and rows[0]["load"] == "0.2" else 1)' || fail "--csv - is not the CSV alone"
"$fabemu" sweep "${ff[@]}" --plot - 2>/dev/null | head -c 8 | cmp -s - <(printf '\x89PNG\r\n\x1a\n') ||
  fail "--plot - is not a PNG"
echo "OK   --json -, --csv - and --plot - write to standard output, the table to standard error"

# --seeds: a run per seed, the point their mean, each seed's figures in the JSON.
"$fabemu" sweep "${ff[@]}" --seeds 1,2 --json "$out/seeds.json" --plot "$out/seeds.png" >/dev/null 2>&1
python3 - "$out/seeds.json" <<'PY' || fail "--seeds"
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
runs = [r["accepted_load"] for r in p["seeds"]]
ok = [r["seed"] for r in p["seeds"]] == [1, 2] and runs[0] != runs[1] and \
    abs(p["accepted_load"] - sum(runs) / 2) < 1e-12
sys.exit(0 if ok else 1)
PY
"$fabemu" sweep --replot "$out/seeds.json" --cycle-ns 30.4 --plot "$out/re.svg" 2>/dev/null
grep -q '<svg' "$out/re.svg" || fail "--replot to SVG"
echo "OK   --seeds: a run per seed, the point their mean; --replot redraws the JSON"

# Exit statuses (README.md): 1 when a point's run fails, the other points
# reported; 128 + the signal when the sweep is stopped, finished points
# reported and running ones stopped. A stand-in fabemu fails or blocks the
# point at load 0.6 and runs the others with the real one.
printf '%s\n' '#!/usr/bin/env bash' \
  'if [[ $1 == run && " $* " == *" traffic.load=0.6 "* ]]; then' \
  '  [[ $FAKE == fail ]] && { echo "fake run failed" >&2; exit 1; }' \
  '  touch "$FAKE_DIR/blocked"' \
  '  exec sleep 600' \
  'fi' \
  'exec "$REAL_FABEMU" "$@"' >"$out/fake-fabemu"
chmod +x "$out/fake-fabemu"
export REAL_FABEMU=$fabemu FAKE_DIR=$out FAKE=block
slow=("$src/topologies/flatfly-4x3.yaml" --loads 0.2,0.6 --set run.measure_ns=1000 --jobs 1
  --fabemu "$out/fake-fabemu")
status=0
FAKE=fail "$fabemu" sweep "${slow[@]}" --json "$out/failed.json" >/dev/null 2>"$out/e.txt" || status=$?
[[ $status -eq 1 ]] && grep -q "fake run failed" "$out/e.txt" &&
  [[ $(jq '.points | length' "$out/failed.json") -eq 1 ]] || fail "a failed point: exit $status, $(cat "$out/e.txt")"
echo "OK   a failed point: exit 1, said, the other points reported"
"$fabemu" sweep "${slow[@]}" --json "$out/stopped.json" >/dev/null 2>"$out/e.txt" &
pid=$!
for _ in $(seq 600); do [[ -e $out/blocked ]] && break; sleep 0.1; done
[[ -e $out/blocked ]] || fail "the blocking point never started: $(cat "$out/e.txt")"
kill -TERM $pid
status=0
wait $pid || status=$?
[[ $status -eq 143 ]] && grep -q "stopped by signal 15" "$out/e.txt" &&
  [[ $(jq '.points | length' "$out/stopped.json") -eq 1 ]] || fail "SIGTERM: exit $status, $(cat "$out/e.txt")"
echo "OK   SIGTERM: exit 143, the finished point reported, the running point stopped"
echo "sweep: all checks passed"
