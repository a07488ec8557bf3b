#!/usr/bin/env bash
# Makes docs/figures: the flattened butterfly paper's Figures 4 and 6 as
# `fabemu sweep` measures them, each a JSON of the points and a PNG drawn from
# it, and the Cray T3E paper's Figures 7 and 8 as `fabemu analyze t3e`
# computes them (one JSON, two PNGs; docs/figures.md says what each shows).
# Virtual time and the analysis are deterministic, so a rerun at the same
# code gives the same points; --check says whether it does.
#
#   scripts/figures.sh [--fabemu BIN] [--jobs N]   rerun every sweep, rewrite docs/figures
#   scripts/figures.sh --replot                    redraw the PNGs from the committed JSON
#   scripts/figures.sh --check [--sample]          rerun into a scratch folder and compare
#                                                  the points with the committed ones
#                                                  (--sample: each series' lowest load only)
#
# Figure names (flatfly-fig4a, flatfly-fig4b, flatfly-fig6a, flatfly-fig6b,
# t3e-fig7, t3e-fig8) limit any mode to those. BIN defaults to build/fabemu. The full sweeps are
# about 220 runs of 1024-node fabrics: half an hour on two busy cores. Exit 0 ok (or every point the same); 1 a
# sweep failed or a point differs; 2 bad command line.
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fabemu=$src/build/fabemu
mode=make
sample=0
jobs=()
only=()  # the figures named on the command line; none: all four
while (($#)); do
  case $1 in
    --fabemu) fabemu=${2:?--fabemu needs a path}; shift 2 ;;
    --jobs) jobs=(--jobs "${2:?--jobs needs a number}"); shift 2 ;;
    --replot) mode=replot; shift ;;
    --check) mode=check; shift ;;
    --sample) sample=1; shift ;;
    -h | --help) sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    flatfly-fig[46][ab] | t3e-fig[78]) only+=("$1"); shift ;;
    *) echo "figures.sh: '$1' is neither an option nor a figure (flatfly-fig4a, 4b, 6a, 6b, t3e-fig7, 8): see --help" >&2
      exit 2 ;;
  esac
done
if ((sample)) && [[ $mode != check ]]; then
  echo "figures.sh: --sample goes with --check" >&2
  exit 2
fi
fabemu=$(realpath -e "$fabemu") || { echo "figures.sh: no fabemu binary at $fabemu: build it (ninja -C build fabemu) or give --fabemu" >&2; exit 2; }
cd "$src"  # the JSON names the spec files relative to the source tree

# The paper's router: input-queued with enough switch speedup not to be the
# bottleneck. Latency in cycles as the paper plots it: a cycle is one 19-phit
# packet on a 1.6 ns-per-phit link, 30.4 ns.
common=(--set router.output_speedup=63 --set run.warmup_ns=10000)
plot_opts=(--cycle-ns 30.4)
fig6_specs=(topologies/flatfly-32x2.yaml:routing=clos_ad topologies/butterfly-32x2.yaml
  topologies/clos-fig6-1024.yaml topologies/hypercube-10.yaml)
fig6_labels=(--label "flattened butterfly (CLOS AD)" --label "conventional butterfly"
  --label "folded Clos" --label "hypercube")

# name, its loads, then its sweep arguments.
figure() {
  local name=$1 loads=$2
  shift 2
  [[ ${#only[@]} -eq 0 || " ${only[*]} " == *" $name "* ]] || return 0
  case $mode in
    make)
      "$fabemu" sweep "$@" --loads "$loads" "${common[@]}" "${jobs[@]}" \
        --json "docs/figures/$name.json" >/dev/null || return 1
      replot "$name" ;;
    replot) replot "$name" ;;
    check)
      ((sample)) && loads=${loads%%[,:]*}
      "$fabemu" sweep "$@" --loads "$loads" "${common[@]}" "${jobs[@]}" \
        --json "$scratch/$name.json" >/dev/null 2>"$scratch/$name.log" ||
        { cat "$scratch/$name.log" >&2; return 1; }
      compare "docs/figures/$name.json" "$scratch/$name.json" ;;
  esac
}

replot() {  # name: its PNG from its JSON, with the figure's labels
  local name=$1 labels=()
  [[ $name == flatfly-fig6* ]] && labels=("${fig6_labels[@]}")
  "$fabemu" sweep --replot "docs/figures/$name.json" "${plot_opts[@]}" "${labels[@]}" \
    --plot "docs/figures/$name.png"
  echo "figures.sh: drew docs/figures/$name.png"
}

compare() {  # committed JSON, rerun JSON: every rerun point the same as committed
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
old, new = (json.load(open(p)) for p in sys.argv[1:3])
# wall_s is the host's time, not a figure of the fabric.
key = lambda p: (p["series"], p["load"])
strip = lambda p: {k: v for k, v in p.items() if k != "wall_s"}
committed = {key(p): strip(p) for p in old["points"]}
bad = 0
for p in new["points"]:
    want = committed.get(key(p))
    if want != strip(p):
        bad += 1
        diff = {k: (None if want is None else want.get(k), v) for k, v in strip(p).items()
                if want is None or want.get(k) != v}
        print(f"  {p['series']} at load {p['load']}: committed, rerun: {diff}")
print(f"{sys.argv[1]}: {len(new['points']) - bad} of {len(new['points'])} rerun points "
      f"as committed")
sys.exit(1 if bad or not new["points"] else 0)
PY
}

# The T3E paper's Figures 7 and 8: one `fabemu analyze t3e` (seconds), its
# JSON and a PNG of each (scripts/lib/t3e_plot.py).
t3e_figures() {
  [[ ${#only[@]} -eq 0 || " ${only[*]} " == *" t3e-fig"[78]" "* ]] || return 0
  case $mode in
    make)
      "$fabemu" analyze t3e --json docs/figures/t3e-fig7-8.json >/dev/null || return 1
      t3e_replot ;;
    replot) t3e_replot ;;
    check)
      "$fabemu" analyze t3e --json "$scratch/t3e-fig7-8.json" >/dev/null 2>"$scratch/t3e.log" ||
        { cat "$scratch/t3e.log" >&2; return 1; }
      /usr/bin/python3 - docs/figures/t3e-fig7-8.json "$scratch/t3e-fig7-8.json" <<'PY'
import json, sys
# seconds and threads are the host's, not figures of the fabric.
old, new = ({k: v for k, v in json.load(open(p)).items() if k not in ("seconds", "threads")}
            for p in sys.argv[1:3])
same = old == new
print(f"{sys.argv[1]}: {'as committed' if same else 'differs from the rerun'}")
if not same:
    for k in sorted(set(old) | set(new)):
        if old.get(k) != new.get(k):
            print(f"  {k}: committed {old.get(k)!r:.200}, rerun {new.get(k)!r:.200}")
sys.exit(0 if same else 1)
PY
      ;;
  esac
}

t3e_replot() {
  /usr/bin/python3 scripts/lib/t3e_plot.py docs/figures/t3e-fig7-8.json \
    docs/figures/t3e-fig7.png docs/figures/t3e-fig8.png
  echo "figures.sh: drew docs/figures/t3e-fig7.png and docs/figures/t3e-fig8.png"
}

if [[ $mode == check ]]; then
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
fi
status=0
figure flatfly-fig4a 0.1:1.0:0.1 topologies/flatfly-32x2.yaml \
  --vary routing=min,val,min_ad,ugal,ugal_s,clos_ad --set traffic.pattern=uniform || status=1
figure flatfly-fig4b 0.05:0.6:0.05 topologies/flatfly-32x2.yaml \
  --vary routing=min,val,ugal,ugal_s,clos_ad --set traffic.pattern=flatfly_worst || status=1
figure flatfly-fig6a 0.05:1.0:0.05 "${fig6_specs[@]}" \
  --set traffic.pattern=uniform --set run.measure_ns=20000 || status=1
figure flatfly-fig6b 0.01,0.02,0.03,0.04,0.05,0.1,0.15,0.2,0.25,0.3,0.35,0.4,0.45,0.5,0.55,0.6 \
  "${fig6_specs[@]}" --set traffic.pattern=flatfly_worst --set run.measure_ns=20000 || status=1
t3e_figures || status=1
exit $status
