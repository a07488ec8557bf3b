#!/usr/bin/env bash
# The Cray T3E paper's Figures 7 and 8 (and Table 4 from its rule) as
# `fabemu analyze t3e` computes them for the T3E's sizes, 2x2x2 to 8x32x8,
# and the PNGs scripts/figures.sh draws of them. Asserted:
#   Table 4 from the 600 MB/s link and Table 3's lengths: 300/150, 480/400,
#     150/100, 480/400 MB/s (one-way/symmetrical);
#   Figure 8: the bisection fixed at the paper's 153.6 GB/s from 512 nodes
#     up; the port the bottleneck up to 64 nodes, port and links equal from
#     128 to 512, the links (Y) beyond: 300 MB/s per PE at 1024, 150 at 2048;
#   Figure 7: the farthest pair of 8x32x8 (4 + 16 + 4 hops, two turns) at
#     2 x (2 x 133 + 2 x 80 + 21 x 40) = 2532 ns round trip, the average
#     rising with the size;
#   a one-node shape refused (exit 2), the PNGs written.
# Usage: t3e_figures.sh FABEMU_BINARY SOURCE_DIR  (a few seconds)
set -euo pipefail
fabemu=${1:?usage: t3e_figures.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: t3e_figures.sh FABEMU_BINARY SOURCE_DIR}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$fabemu" analyze t3e --json "$out/t3e.json" >"$out/t3e.txt" 2>"$out/t3e.err"
grep -q "Table 4. Payload bandwidth" "$out/t3e.txt"
grep -q "Figure 7. Round-trip" "$out/t3e.txt"
grep -q "Figure 8. Per-processor" "$out/t3e.txt"

python3 - "$out/t3e.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
bad = []
def near(what, got, want, tol):
    ok = abs(got - want) <= tol
    print(f"  {what}: {got:.2f} (want {want}) {'ok' if ok else 'WRONG'}")
    if not ok:
        bad.append(what)
paper = {"word_get": (300, 150), "vector_get": (480, 400), "word_put": (150, 100),
         "vector_put": (480, 400)}
for r in j["table4"]:
    near(f"Table 4 {r['type']} one-way", r["one_way_mbps"], paper[r["type"]][0], 0.5)
    near(f"Table 4 {r['type']} symmetrical", r["symmetrical_mbps"], paper[r["type"]][1], 0.5)
by_n = {s["nodes"]: s for s in j["sizes"]}
if sorted(by_n) != [8, 16, 32, 64, 128, 256, 512, 1024, 2048]:
    bad.append(f"sizes {sorted(by_n)}")
for n, s in sorted(by_n.items()):
    want = "port" if n <= 64 else "both" if n <= 512 else "links"
    if s["bottleneck"] != want:
        bad.append(f"{n} nodes: bottleneck {s['bottleneck']}, want {want}")
    if n >= 512:
        near(f"bisection at {n}", s["bisection_gbps"], 153.6, 0.1)
        near(f"per PE at {n}", s["per_processor_mbps"], 2 * 153.6e3 / n, 0.2)
near("max round trip 8x32x8", by_n[2048]["max_round_trip_ns"], 2 * (266 + 2 * 80 + 21 * 40), 0.01)
avg = [by_n[n]["avg_round_trip_ns"] for n in sorted(by_n)]
if avg != sorted(avg):
    bad.append(f"average round trip not rising with size: {avg}")
sys.exit(f"t3e_figures.sh: wrong: {bad}" if bad else 0)
PY

if "$fabemu" analyze t3e --dims 1x1x1 >/dev/null 2>"$out/bad.err"; then
  echo "t3e_figures.sh: --dims 1x1x1 was accepted" >&2
  exit 1
else
  status=$?
  [[ $status -eq 2 ]] || { echo "t3e_figures.sh: --dims 1x1x1 exited $status, want 2" >&2; exit 1; }
  grep -q "one node" "$out/bad.err"
fi

if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  /usr/bin/python3 "$src/scripts/lib/t3e_plot.py" "$out/t3e.json" "$out/fig7.png" "$out/fig8.png"
  for f in fig7 fig8; do
    [[ $(head -c 4 "$out/$f.png" | od -An -c | tr -d ' ') == '211PNG' ]] ||
      { echo "t3e_figures.sh: $f.png is not a PNG" >&2; exit 1; }
  done
else
  echo "t3e_figures.sh: no python3-matplotlib: the PNGs are not drawn (Debian's python3-matplotlib)"
fi
echo "t3e_figures.sh: ok"
