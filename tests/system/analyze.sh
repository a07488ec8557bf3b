#!/usr/bin/env bash
# `fabemu analyze table4|table2|table1|cost` end to end: the table, the paper's figures
# beside it and the assumptions on stdout, the same figures in the JSON, the
# figures the same on one thread and on two, and bad options refused before
# anything runs (exit 2, stdout empty, the message says what to do). A few
# seconds: few permutations, small sizes.
set -euo pipefail
fabemu=${1:?usage: analyze.sh FABEMU_BINARY SOURCE_DIR}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$fabemu" analyze table4 --sizes 64,512 --diversity 1,4,32 --permutations 40 --threads 1 \
  --json "$out/t4-1.json" >"$out/t4.txt" 2>"$out/t4-progress.txt"
"$fabemu" analyze table4 --sizes 64,512 --diversity 1,4,32 --permutations 40 --threads 2 \
  --json "$out/t4-2.json" >/dev/null 2>&1
"$fabemu" analyze table2 --sizes 576 --json "$out/t2.json" >"$out/t2.txt" 2>/dev/null
"$fabemu" analyze cost --sizes 1K,2K,4K --json "$out/cost.json" >"$out/cost.txt"
"$fabemu" analyze table1 --json "$out/t1.json" >"$out/t1.txt"
cat "$out/t4.txt" "$out/t2.txt" "$out/cost.txt" "$out/t1.txt"
python3 - "$out" <<'PY'
import json, os, sys
d = sys.argv[1]
fails = []
def check(ok, what):
    print(("OK   " if ok else "FAIL ") + what)
    if not ok:
        fails.append(what)
one = json.load(open(os.path.join(d, "t4-1.json")))
two = json.load(open(os.path.join(d, "t4-2.json")))
t4 = open(os.path.join(d, "t4.txt")).read()
check([r["endpoints"] for r in one["rows"]] == [64, 512], "one row per size")
check(one["threads"] == 1 and two["threads"] == 2, "the JSON says how many threads ran")
def figures(j):
    return [(r["torus"]["avg_worst"], r["torus"]["avg_link"],
             [x["avg_worst"] for x in r["fat_tree"]["by_diversity"]]) for r in j["rows"]]
check(figures(one) == figures(two), "the same figures on one thread and on two")
for r in one["rows"]:
    n, t, ft = r["endpoints"], r["torus"], r["fat_tree"]
    k = t["dims"][0]
    check(t["dims"] == [k, k, k] and t["paper_avg_link"] == k / 8, f"{n}: a {k}-ary cube, k/8 = {k / 8}")
    # A derangement leaves out the transfer to itself: k/8 x N/(N-1).
    check(abs(t["avg_link"] - k / 8 * n / (n - 1)) < 0.03 * k / 8, f"{n}: torus average link {t['avg_link']:.3f}")
    check(f"{t['avg_link']:.3f}" in t4 and f"{t['avg_worst']:.3f}" in t4, f"{n}: the table shows the torus figures")
    worst = [x["avg_worst"] for x in ft["by_diversity"]]
    check(worst == sorted(worst, reverse=True) and worst[-1] < worst[0], f"{n}: more paths, less worst-case traffic {worst}")
    check(all(f"{w:.3f}" in t4 for w in worst), f"{n}: the table shows the fat-tree figures")
    check(t["unroutable"] == 0 and ft["unroutable"] == 0, f"{n}: every stream routed")
check("Assumptions:" in t4 and "k/8" in t4 and "derangements" in t4, "table4 states its assumptions")
t2 = json.load(open(os.path.join(d, "t2.json")))
r = t2["rows"][0]
check(r["clos"]["paper_latency_us"] == 0.078 and r["torus"]["paper_latency_us"] == 0.144, "table2: the paper's 576 row")
check(abs(r["clos"]["latency_us"] / 0.078 - 1) < 0.05 and abs(r["torus"]["latency_us"] / 0.144 - 1) < 0.05,
      f"table2: 576 within 5% of the paper ({r['clos']['latency_us']:.4f}, {r['torus']['latency_us']:.4f} us)")
t2txt = open(os.path.join(d, "t2.txt")).read()
check("Assumptions:" in t2txt and "tr = 20 ns" in t2txt and "-4.5%" in t2txt, "table2 prints the difference and its assumptions")
cost = json.load(open(os.path.join(d, "cost.json")))
claims = {c["what"]: c for c in cost["claims"]}
check(claims["folded Clos inter-router channels, N = 1K"]["ours_low"] == 2048 and
      claims["flat. butterfly inter-router channels, N = 1K (31 x 32)"]["ours_low"] == 992,
      "cost: section 4.3's 2048 and 992 channels at 1K")
check(claims["... 1K < N <= 8K"]["agrees"] and claims["router: chip + development over the parts built"]["agrees"],
      "cost: the saving over the Clos above 1K and Table 2's router")
costtxt = open(os.path.join(d, "cost.txt")).read()
check("Assumptions:" in costtxt and "E = sqrt(N/D)" in costtxt and "DIFFERS" in costtxt and "why:" in costtxt,
      "cost prints the paper beside the model, why they differ, and its assumptions")
# The T3E paper's Table 1: its ten rows, time of crossing the paper's
# figure, both optimised assignments below it.
t1 = json.load(open(os.path.join(d, "t1.json")))
t1txt = open(os.path.join(d, "t1.txt")).read()
check([(r["ring"], r["subring"]) for r in t1["rows"]] ==
      [(4, 4), (8, 8), (8, 4), (16, 16), (16, 8), (16, 4), (32, 32), (32, 16), (32, 8), (32, 4)],
      "table1: the paper's ten rows")
for r in t1["rows"]:
    at = f"table1 {r['ring']}/{r['subring']}"
    toc, t3e, full = r["time_of_crossing"], r["optimised"], r["optimised_full"]
    check(abs(toc["avg"] - toc["paper_avg"]) <= 0.0005 + 1e-9 and toc["max"] == toc["paper_max"],
          f"{at}: time of crossing {toc['avg']:.4f} is the paper's {toc['paper_avg']}")
    check(t3e["avg"] < toc["avg"] and full["avg"] < toc["avg"],
          f"{at}: optimised {t3e['avg']:.3f} / {full['avg']:.3f} below time of crossing")
    check(f"{t3e['avg']:.3f}" in t1txt and f"{full['max']:.3f}" in t1txt, f"{at}: the table shows the figures")
check("Assumptions:" in t1txt and "dateline node" in t1txt and "simulated annealing" in t1txt,
      "table1 states its assumptions")
sys.exit(1 if fails else 0)
PY

refused() {  # expected-text args...
  local want=$1 status=0
  shift
  "$fabemu" analyze "$@" >"$out/o.txt" 2>"$out/e.txt" || status=$?
  if [[ $status -ne 2 ]] || ! grep -qF -- "$want" "$out/e.txt" || [[ -s $out/o.txt ]]; then
    echo "FAIL analyze $* (exit $status, wanted 2, '$want' and nothing on stdout):"
    cat "$out/e.txt" "$out/o.txt"
    exit 1
  fi
  echo "OK   refused: analyze $*"
}
refused "no table named: give table4"
refused "unknown table 'table3'" table3
refused "'4KB' is not a size" table4 --sizes 4KB
refused "size 100000 is out of range: give 64 to 32768" table4 --sizes 100000
refused "ring not in {torus,fat-tree}" table4 --network ring
refused "path diversity 64 is out of range" table4 --diversity 64
refused "--permutations: Value 0 not in range" table4 --permutations 0
refused "--threads: Value 0 not in range 1 to 1024" table4 --threads 0
refused "the directory $out/none does not exist" table4 --json "$out/none/t4.json"
refused "has 512 routers, not 576" table2 --torus-dims 576=8x8x8
refused "size 97 has no 3-D torus shape" table2 --sizes 97
refused "--router-ns must be above 0" table2 --router-ns 0
refused "size 1000 is not a power of two from 64 to 32768" cost --sizes 1000
refused "--rings: 300 is not a ring size fabemu builds: give 2 to 255" table1 --rings 8,300
refused "the directory $out/none does not exist" table1 --json "$out/none/t1.json"
