#!/usr/bin/env bash
# `fabemu analyze table1` end to end: the T3E paper's Table 1 (VC balance)
# with the paper's figures beside fabemu's and the assumptions on stdout,
# the same figures in the JSON (time of crossing the paper's, optimised
# below it), and bad options refused before anything runs (exit 2, stdout
# empty). About a second.
set -euo pipefail
fabemu=${1:?usage: analyze_table1.sh FABEMU_BINARY SOURCE_DIR}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$fabemu" analyze table1 --json "$out/t1.json" >"$out/t1.txt"
cat "$out/t1.txt"
python3 - "$out" <<'PY'
import json, os, sys
d = sys.argv[1]
fails = []
def check(ok, what):
    print(("OK   " if ok else "FAIL ") + what)
    if not ok:
        fails.append(what)
j = json.load(open(os.path.join(d, "t1.json")))
txt = open(os.path.join(d, "t1.txt")).read()
rows = [(r["ring"], r["subring"]) for r in j["rows"]]
check(rows == [(4, 4), (8, 8), (8, 4), (16, 16), (16, 8), (16, 4), (32, 32), (32, 16), (32, 8), (32, 4)],
      "the paper's ten rows")
for r in j["rows"]:
    at = f"{r['ring']}/{r['subring']}"
    toc, t3e, full = r["time_of_crossing"], r["optimised"], r["optimised_full"]
    check(abs(toc["avg"] - toc["paper_avg"]) <= 0.0005 + 1e-9 and toc["max"] == toc["paper_max"],
          f"{at}: time of crossing {toc['avg']:.4f} is the paper's {toc['paper_avg']}")
    check(t3e["avg"] < toc["avg"] and full["avg"] < toc["avg"],
          f"{at}: optimised {t3e['avg']:.3f} / {full['avg']:.3f} below time of crossing")
    check(f"{t3e['avg']:.3f}" in txt and f"{full['max']:.3f}" in txt, f"{at}: the table shows the figures")
check("Assumptions:" in txt and "dateline node" in txt and "simulated annealing" in txt,
      "table1 states its assumptions")
if fails:
    sys.exit(1)
PY

refused() {
  local want=$1
  shift
  set +e
  "$fabemu" analyze "$@" >"$out/o.txt" 2>"$out/e.txt"
  local status=$?
  set -e
  if [[ $status -ne 2 ]] || ! grep -qF -- "$want" "$out/e.txt" || [[ -s $out/o.txt ]]; then
    echo "FAIL analyze $* (exit $status, wanted 2, '$want' and nothing on stdout):"
    cat "$out/e.txt" "$out/o.txt"
    exit 1
  fi
  echo "OK   refused: analyze $*"
}
refused "--rings: 300 is not a ring size fabemu builds: give 2 to 255" table1 --rings 8,300
refused "the directory $out/none does not exist" table1 --json "$out/none/t1.json"
