#!/usr/bin/env python3
"""Golden figures of the fabemu engine, recorded before a restructure.

    engine_runs.py --fabemu BIN --src DIR --record OUT.json
    engine_runs.py --fabemu BIN --src DIR --check GOLDEN.json

Runs a fixed list of virtual-time runs (one worker, fixed seed, so each run
is deterministic), pulls a few figures out of each `--json` report and either
writes them (--record) or compares them with a golden file (--check).

Comparison rules, by figure:
  rel       statistical: |now - golden| <= 1% of |golden|
  stalls    credit stalls: 1%, but at least STALL_SLACK counts
  drops     dropped packets: exact when the golden is 0, else 1%
  exact     must be equal (zero-load minimum latency, drained flag,
            credit-conservation verdict, exactly-once)
  positive  must be > 0 when the golden is (invariant checks were made)
  info      shown, not judged (counts of the short invariant runs, which
            move by several % between seeds)

With the same seed an engine that draws its random numbers in the same order
reproduces every figure exactly; the 1% tolerances absorb a changed drawing
order, but see the seed-to-seed notes in RUNS: a few figures move by more
than 1% between seeds (p99 jumps by whole 12.5% histogram buckets).

Prints run, figure, golden, now, relative difference, OK/FAIL; exit status
1 on any FAIL (or a run that fails), 2 on a bad command line.
Standard library only.
"""
import argparse
import datetime
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

REL_TOL = 0.01
STALL_SLACK = 5  # counts
# Credit stalls count packets found ready with the link free but credits
# short, so the figure depends on the instants at which an output looks at
# its requesters, not only on what the fabric does: the component engine
# looks at different instants (wake-ups instead of an event per credit
# stream) and counts 2.6% fewer on the 8x8x8 torus below saturation with
# identical latency and throughput. Stalls are held to 3%.
STALL_TOL = 0.03

# Every run gets these; the seed is fixed so a run is a deterministic function
# of the engine.
# The figures are the input-queued router's: the yarc profile's Clos runs
# pin it (its default is the YARC tiled router, router.model yarc_tiled).
COMMON = ["run.workers=1", "run.progress_s=0", "run.seed=1", "router.model=input_queued"]

T3E4 = "topologies/t3e-4x4x4.yaml"
T3E8 = "topologies/t3e-8x8x8.yaml"
CLOS2 = "topologies/yarc-r2-1024.yaml"  # 1024 endpoints, reply_fraction 0.5
CLOS1 = "topologies/yarc-r1-32.yaml"

# (name, kind, topology, overrides). Lengths chosen so the whole list takes
# about 50 s with one worker; measure_ns was lengthened where that brought the
# seed-to-seed spread of the figures down (4x4x4 is cheap, 8x8x8 below
# saturation too). Measured over seeds 1-4: below saturation every figure
# moves < 1% (most < 0.5%); beyond saturation on the 8x8x8 torus (0.3, 0.5,
# 0.9) and at the knee of the Clos (0.5) latency, accepted load and drops move
# by 1-25% between seeds however long the run, and p99 jumps whole buckets.
RUNS = [
    # Zero load: 8-byte messages at 1% load, about 32000 (torus) / 19000 (Clos)
    # packets, so uncontended nearest pairs are always sampled: the minimum
    # latency is exact (and the same for every seed).
    ("t3e4x4x4-zero", "zero", T3E4,
     ["traffic.load=0.01", "traffic.sizes=[8]", "run.warmup_ns=5000",
      "run.measure_ns=2000000"]),
    ("clos1024-zero", "zero", CLOS2,
     ["traffic.load=0.01", "traffic.sizes=[8]", "run.warmup_ns=5000",
      "run.measure_ns=20000"]),
    # T3E 4x4x4 (saturates near 0.38 accepted).
    ("t3e4x4x4-0.1", "load", T3E4,
     ["traffic.load=0.1", "run.warmup_ns=10000", "run.measure_ns=8000000"]),
    ("t3e4x4x4-0.3", "load", T3E4,
     ["traffic.load=0.3", "run.measure_ns=8000000"]),
    ("t3e4x4x4-0.5", "load", T3E4,
     ["traffic.load=0.5", "run.measure_ns=2000000"]),
    ("t3e4x4x4-0.9", "load", T3E4,
     ["traffic.load=0.9", "run.measure_ns=2000000"]),
    # T3E 8x8x8, 8/64-byte mix (saturates near 0.2 accepted: 0.3 and 0.5 are
    # already beyond it, so 0.15 is added as a second point below it).
    ("t3e8x8x8-0.1", "load", T3E8,
     ["traffic.load=0.1", "run.warmup_ns=10000", "run.measure_ns=150000"]),
    ("t3e8x8x8-0.15", "load", T3E8,
     ["traffic.load=0.15", "run.warmup_ns=10000", "run.measure_ns=100000"]),
    ("t3e8x8x8-0.3", "load", T3E8, ["traffic.load=0.3", "run.measure_ns=50000"]),
    ("t3e8x8x8-0.5", "load", T3E8, ["traffic.load=0.5", "run.measure_ns=50000"]),
    ("t3e8x8x8-0.9", "load", T3E8, ["traffic.load=0.9", "run.measure_ns=50000"]),
    # Rank-2 Clos, 1024 endpoints (saturates near 0.61 accepted; the replies
    # put the offered load above the nominal traffic.load).
    ("clos1024-0.1", "load", CLOS2,
     ["traffic.load=0.1", "run.warmup_ns=5000", "run.measure_ns=20000"]),
    ("clos1024-0.3", "load", CLOS2,
     ["traffic.load=0.3", "run.warmup_ns=5000", "run.measure_ns=20000"]),
    ("clos1024-0.5", "load", CLOS2, ["traffic.load=0.5", "run.measure_ns=20000"]),
    ("clos1024-0.9", "load", CLOS2, ["traffic.load=0.9", "run.measure_ns=20000"]),
    # Credit conservation checked at every event, and exactly-once delivery
    # (no drops, every injected packet delivered, drained): loads that stall
    # on credits but do not overflow the source queues.
    ("t3e4x4x4-invariants", "invariants", T3E4,
     ["traffic.load=0.5", "run.warmup_ns=5000", "run.measure_ns=10000",
      "run.check_invariants=true"]),
    ("clos32-invariants", "invariants", CLOS1,
     ["traffic.load=0.6", "run.warmup_ns=5000", "run.measure_ns=20000",
      "run.check_invariants=true"]),
]

# Runs whose figures move by more than 1% when only run.seed changes (seeds
# 1-4, measured on the recording binary): beyond saturation the torus's
# throughput swings from run to run, and longer runs do not calm it. There a
# change of event order (an equal-time tie broken differently) moves a figure
# as much as a new seed does, so these runs are held to their seed spread,
# rounded up, instead of 1%. p99 took histogram-bucket values (12.5% apart) when
# these tolerances were set; it is now within 0.78% of the exact value.
# Beyond saturation one seed is not a figure: the accepted load of the
# 8x8x8 torus at 0.9 moved 0.158 / 0.170 / 0.180 over seeds 1-3, and a change
# of event order alone (an equal-time tie broken differently, no change of
# behaviour) moves it as far. These runs are recorded and checked as the mean
# over seeds 1..N, each figure held to its standard error over those seeds
# (SEM_TOL of them; recorded per seed in the golden file) or to RUN_TOL,
# whichever is wider.
SEEDS = {"t3e4x4x4-0.5": 4, "t3e4x4x4-0.9": 4, "t3e8x8x8-0.3": 4, "t3e8x8x8-0.5": 4,
         "t3e8x8x8-0.9": 4, "clos1024-0.5": 4, "clos1024-0.9": 4}
SEM_TOL = 3.0

RUN_TOL = {
    "t3e4x4x4-0.5": 0.02,   # drops 1.4%
    "t3e4x4x4-0.9": 0.02,
    "t3e8x8x8-0.3": 0.25,   # accepted 10%, latency mean 24%
    "t3e8x8x8-0.5": 0.10,   # accepted 9%, latency 4.7%, drops 23% (drops: info)
    "t3e8x8x8-0.9": 0.05,   # accepted 3.3%, latency 2.9%
    "clos1024-0.5": 0.10,   # latency mean 6.5%, stalls 10% (at saturation)
    "clos1024-0.9": 0.02,   # network latency 1.3%, drops 1.3%
}
P99_TOL = {
    "t3e4x4x4-0.5": 0.13, "t3e4x4x4-0.9": 0.13, "t3e8x8x8-0.3": 0.40,
    "t3e8x8x8-0.5": 0.13, "t3e8x8x8-0.9": 0.13, "clos1024-0.5": 0.13,
}
DROPS_INFO = {"t3e8x8x8-0.5"}


def tolerance(run, fig, golden_run=None):
    tol = max(REL_TOL, RUN_TOL.get(run, 0.0))
    if fig == "latency_p99_ns" and run in P99_TOL:
        tol = P99_TOL[run]
    per_seed = (golden_run or {}).get("per_seed", {}).get(fig)
    if per_seed and len(per_seed) > 1 and all(isinstance(v, (int, float)) and
                                              not isinstance(v, bool) for v in per_seed):
        mean = statistics.fmean(per_seed)
        sem = statistics.stdev(per_seed) / math.sqrt(len(per_seed))
        if mean:
            tol = max(tol, SEM_TOL * sem / abs(mean))
    return tol


# figure -> (rule, extractor)
def _exactly_once(d):
    return (d["injected_packets"] == d["delivered_packets"]
            and d["measured_packets"]["injected"] == d["measured_packets"]["delivered"])


FIG = {
    "accepted_load": ("rel", lambda d: d["accepted_load"]),
    # What the source queues took (offered_load counts what they refused too).
    "admitted_load": ("rel", lambda d: d["offered_load"] - d["refused_load"]),
    "latency_mean_ns": ("rel", lambda d: d["latency_ns"]["mean"]),
    "latency_p99_ns": ("rel", lambda d: d["latency_ns"]["p99"]),
    "latency_min_ns": ("exact", lambda d: d["latency_ns"]["min"]),
    "network_latency_mean_ns": ("rel", lambda d: d["network_latency_ns"]["mean"]),
    "network_latency_min_ns": ("exact", lambda d: d["network_latency_ns"]["min"]),
    "hops_mean": ("rel", lambda d: d["hops"]["mean"]),
    "credit_stalls": ("stalls", lambda d: d["credit_stalls"]),
    "injected_packets": ("rel", lambda d: d["injected_packets"]),
    "delivered_packets": ("rel", lambda d: d["delivered_packets"]),
    "dropped_total": ("drops", lambda d: d["dropped_packets"]["total"]),
    "drained": ("exact", lambda d: d["run"]["drained"]),
    "credit_conservation": ("exact", lambda d: d["invariants"]["credit_conservation"]),
    "invariant_checks": ("positive", lambda d: d["invariants"]["checks"]),
    "exactly_once": ("exact", _exactly_once),
    "credit_stalls_info": ("info", lambda d: d["credit_stalls"]),
    "injected_packets_info": ("info", lambda d: d["injected_packets"]),
}

COMMON_FIGS = ["dropped_total", "drained", "credit_conservation", "exactly_once"]
KIND_FIGS = {
    "zero": ["latency_min_ns", "network_latency_min_ns", "latency_mean_ns",
             "hops_mean"] + COMMON_FIGS,
    "load": ["accepted_load", "admitted_load", "latency_mean_ns", "latency_p99_ns",
             "network_latency_mean_ns", "hops_mean", "credit_stalls",
             "injected_packets", "delivered_packets"] + COMMON_FIGS,
    "invariants": ["invariant_checks", "credit_stalls_info", "injected_packets_info"]
    + COMMON_FIGS,
}


def run_args(kind, topo, sets):
    """The command-line arguments after `fabemu run` (without --json)."""
    args = [topo, "--quiet"]
    for s in COMMON + sets:
        args += ["--set", s]
    return args


def combine(values):
    """One figure over several seeds: the mean of numbers; booleans and
    strings must agree (else the first that differs, which fails a check)."""
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return statistics.fmean(values)
    return values[0] if all(v == values[0] for v in values) else f"differs by seed: {values}"


def run_seeds(fabemu, src, name, kind, topo, sets, keep, seeds):
    """run_one over seeds 1..seeds: (args of seed 1, mean figures, per-seed
    figures, wall time)."""
    per = []
    wall = 0.0
    args0 = None
    for seed in range(1, seeds + 1):
        seed_sets = sets + ([f"run.seed={seed}"] if seed > 1 else [])
        args, figures, w = run_one(fabemu, src, f"{name}-seed{seed}" if seed > 1 else name,
                                   kind, topo, seed_sets, keep)
        wall += w
        args0 = args0 or args
        if figures is None:
            return args0, None, None, wall
        per.append(figures)
    if seeds == 1:
        return args0, per[0], None, wall
    mean = {fig: combine([f[fig] for f in per]) for fig in per[0]}
    return args0, mean, {fig: [f[fig] for f in per] for fig in per[0]}, wall


def run_one(fabemu, src, name, kind, topo, sets, keep):
    args = run_args(kind, topo, sets)
    with tempfile.TemporaryDirectory(prefix="fabemu-golden-") as tmp:
        out = os.path.join(keep or tmp, name + ".json")
        cmd = [fabemu, "run"] + args + ["--json", out]
        t0 = time.monotonic()
        p = subprocess.run(cmd, cwd=src, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=600)
        wall = time.monotonic() - t0
        if p.returncode != 0:
            sys.stderr.write(f"{name}: fabemu exited {p.returncode}\n  {' '.join(cmd)}\n"
                             + p.stderr)
            return args, None, wall
        with open(out) as f:
            report = json.load(f)
    figures = {fig: FIG[fig][1](report) for fig in KIND_FIGS[kind]}
    return args, figures, wall


def compare(rule, golden, now, tol=REL_TOL):
    """(ok, relative difference or None)."""
    if isinstance(golden, (bool, str)) or isinstance(now, (bool, str)):
        return golden == now, None
    rel = (abs(now - golden) / abs(golden) if golden else
           (0.0 if now == golden else float("inf")))
    if rule == "exact":
        return now == golden, rel
    if rule == "info":
        return True, rel
    if rule == "positive":
        return (now > 0) == (golden > 0), rel
    if rule == "drops" and golden == 0:
        return now == 0, rel
    if rule == "stalls":
        return abs(now - golden) <= max(max(tol, STALL_TOL) * abs(golden), STALL_SLACK), rel
    return abs(now - golden) <= tol * abs(golden), rel


def fmt(v):
    if isinstance(v, bool) or isinstance(v, str) or v is None:
        return str(v)
    if isinstance(v, float):
        return f"{v:.10g}"
    return str(v)


def build_id(path):
    """The ELF GNU build-id of path, as hex, or ''."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return ""
    # Note header: namesz 4, descsz 20, type 3 (NT_GNU_BUILD_ID), "GNU\0".
    i = data.find(b"\x04\x00\x00\x00\x14\x00\x00\x00\x03\x00\x00\x00GNU\x00")
    return data[i + 16:i + 36].hex() if i >= 0 else ""


def git(src, *args):
    try:
        return subprocess.run(["git", "-C", src] + list(args), stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True).stdout.strip()
    except OSError:
        return ""


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fabemu", help="fabemu binary (default SRC/build/fabemu)")
    ap.add_argument("--src", default=os.path.normpath(os.path.join(here, "..", "..")),
                    help="source dir holding topologies/ (default: this repo)")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--record", metavar="OUT.json", help="run and write the figures")
    mode.add_argument("--check", metavar="GOLDEN.json", help="run and compare")
    ap.add_argument("--only", metavar="SUBSTR",
                    help="only the runs whose name contains SUBSTR (debugging)")
    ap.add_argument("--keep-json", metavar="DIR", help="keep each run's JSON report in DIR")
    ap.add_argument("--note", default="", help="with --record: text added to the note")
    ap.add_argument("--seed", type=int,
                    help="use this run.seed instead of 1 (to measure seed-to-seed spread "
                         "with --record; a --check with it fails on the arguments)")
    a = ap.parse_args()
    src = os.path.abspath(a.src)
    fabemu = os.path.abspath(a.fabemu or os.path.join(src, "build", "fabemu"))
    if not os.access(fabemu, os.X_OK):
        ap.error(f"no fabemu binary at {fabemu}")
    if a.keep_json:
        os.makedirs(a.keep_json, exist_ok=True)
        a.keep_json = os.path.abspath(a.keep_json)
    if a.seed is not None:
        COMMON[COMMON.index("run.seed=1")] = f"run.seed={a.seed}"
    runs = [r for r in RUNS if not a.only or a.only in r[0]]

    golden = None
    if a.check:
        with open(a.check) as f:
            golden = {r["name"]: r for r in json.load(f)["runs"]}

    t_start = time.monotonic()
    recorded = []
    failures = 0
    rows = []
    for name, kind, topo, sets in runs:
        args, figures, per_seed, wall = run_seeds(fabemu, src, name, kind, topo, sets,
                                                  a.keep_json, SEEDS.get(name, 1))
        print(f"  {name}: {wall:.2f} s", file=sys.stderr, flush=True)
        if figures is None:
            failures += 1
            rows.append((name, "fabemu run", "exit 0", "failed", "", "FAIL"))
            continue
        rec = {"name": name, "kind": kind, "args": args, "figures": figures}
        if per_seed:
            rec["seeds"] = SEEDS[name]
            rec["per_seed"] = per_seed
        recorded.append(rec)
        if golden is None:
            for fig, v in figures.items():
                rows.append((name, fig, fmt(v), "", "", FIG[fig][0]))
            continue
        g = golden.get(name)
        if g is None:
            failures += 1
            rows.append((name, "(run)", "missing", "", "", "FAIL"))
            continue
        if g["args"] != args or g.get("seeds", 1) != SEEDS.get(name, 1):
            failures += 1
            rows.append((name, "(args)", "differ: re-record", "", "", "FAIL"))
        order = KIND_FIGS[kind] + sorted(set(g["figures"]) - set(KIND_FIGS[kind]))
        for fig in order:
            gv, nv = g["figures"].get(fig), figures.get(fig)
            if gv is None or nv is None or fig not in FIG:
                ok, rel = False, None
            else:
                rule = FIG[fig][0]
                if fig == "dropped_total" and name in DROPS_INFO:
                    rule = "info"
                ok, rel = compare(rule, gv, nv, tolerance(name, fig, g))
            failures += not ok
            rows.append((name, fig, fmt(gv), fmt(nv),
                         "" if rel is None else f"{rel * 100:.3f}%",
                         "info" if fig in FIG and FIG[fig][0] == "info" else
                         "OK" if ok else "FAIL"))
    if golden is not None and not a.only:
        for name in golden.keys() - {r[0] for r in runs}:
            failures += 1
            rows.append((name, "(run)", "recorded", "not defined", "", "FAIL"))
    total = time.monotonic() - t_start

    head = ("run", "figure", "golden", "now", "rel diff", "OK/FAIL") if golden is not None \
        else ("run", "figure", "value", "", "", "rule")
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(6)]
    for r in [head] + rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())

    if a.record:
        commit = git(src, "rev-parse", "--short", "HEAD")
        dirty = git(src, "status", "--porcelain", "--untracked-files=no")
        st = os.stat(fabemu)
        doc = {
            "how_recorded": {
                "commit": commit + (" (working tree had uncommitted changes)" if dirty else ""),
                "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                "binary": fabemu,
                "binary_build_id": build_id(fabemu),
                "binary_mtime": datetime.datetime.fromtimestamp(
                    st.st_mtime, datetime.timezone.utc).isoformat(timespec="seconds"),
                "command": " ".join(["python3"] + sys.argv),
                "note": "Engine figures before the engine restructure; one worker, seed 1. "
                        "Check with tests/system/golden.sh or --check. Rules: see "
                        "engine_runs.py (1% for statistical figures, exact for the "
                        "zero-load minimum latency, drained, credit conservation, "
                        "exactly-once and zero drops)." + (" " + a.note if a.note else ""),
                "total_run_s": round(total, 1),
            },
            "runs": recorded,
        }
        with open(a.record, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        print(f"recorded {len(recorded)} runs in {a.record} ({total:.1f} s)")
    else:
        print(f"{len(runs)} runs, {len(rows)} figures, {failures} FAIL ({total:.1f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
