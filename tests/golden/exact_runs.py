#!/usr/bin/env python3
"""Exact figures of multi-packet messages and Ethernet frames under load.

    exact_runs.py --fabemu BIN --src DIR --record OUT.json
    exact_runs.py --fabemu BIN --src DIR --check GOLDEN.json

Virtual-time runs (one worker, fixed seed: each is a deterministic function
of the engine) whose packets travel in groups: synthetic messages of 24
packets, and Ethernet frames from two replayed hosts (a pcap file made here,
frames of 64 to 1514 bytes both ways) beside synthetic load. They pin every
figure of the report, not 1% of a few: a change that moves one packet by a
picosecond anywhere shows. The report is compared section by section (a
SHA-256 of each top-level key's canonical JSON), leaving out what the host
decides (performance, the fabemu version, the spec's path); a few headline
figures are kept in clear to show what moved.

Re-record after an intended change of behaviour (say so in the commit):
    python3 tests/golden/exact_runs.py --fabemu build/fabemu --src . \\
      --record tests/golden/exact_reports.json

Prints run, section, OK/FAIL; exit status 1 on any difference or failed
run, 2 on a bad command line. Standard library only.
"""
import argparse
import hashlib
import json
import os
import struct
import subprocess
import sys
import tempfile

COMMON = ["run.workers=1", "run.progress_s=0", "run.seed=7"]

T3E4 = "topologies/t3e-4x4x4.yaml"
CLOS2 = "topologies/yarc-r2-1024.yaml"
FLATFLY = "topologies/flatfly-32x2.yaml"

# Two replayed hosts on endpoints far apart; {pcap0}/{pcap1} are filled in.
HOSTS = ("ports=[{{name: h0, replay: \"{pcap0}\", endpoint: 0}},"
         " {{name: h1, replay: \"{pcap1}\", endpoint: {far}}}]")

# (name, topology, far endpoint for the hosts or None, overrides)
RUNS = [
    # 1500-byte messages are 24 T3E packets of 64 bytes of payload.
    ("t3e4-messages-0.1", T3E4, None,
     ["traffic.sizes=[1500]", "traffic.load=0.1", "run.warmup_ns=2000", "run.measure_ns=100000"]),
    ("t3e4-messages-0.4", T3E4, None,
     ["traffic.sizes=[64, 1500]", "traffic.load=0.4", "run.warmup_ns=2000",
      "run.measure_ns=40000"]),
    ("t3e4-frames", T3E4, 42,
     ["traffic.sizes=[1500]", "traffic.load=0.1", "run.warmup_ns=0", "run.measure_ns=400000"]),
    ("t3e4-frames-retry", T3E4, 42,
     ["traffic.sizes=[256]", "traffic.load=0.2", "run.warmup_ns=0", "run.measure_ns=400000",
      "link.retry=true", "link.ber=1e-5"]),
    # The rank-2 Clos on its own (YARC tiled) router, 64 endpoints.
    ("clos64-tiled-messages", CLOS2, None,
     ["topology.endpoints=64", "traffic.sizes=[64, 1500]", "traffic.load=0.3",
      "run.warmup_ns=2000", "run.measure_ns=40000"]),
    ("clos64-tiled-frames", CLOS2, 63,
     ["topology.endpoints=64", "traffic.sizes=[1500]", "traffic.load=0.2", "run.warmup_ns=0",
      "run.measure_ns=400000"]),
    # The 32-ary 2-flat with UGAL (3 VCs).
    ("flatfly-ugal-messages", FLATFLY, None,
     ["routing=ugal", "vcs.count=3", "traffic.sizes=[64, 1500]", "traffic.load=0.3",
      "run.warmup_ns=2000", "run.measure_ns=5000"]),
    ("flatfly-ugal-frames", FLATFLY, 1023,
     ["routing=ugal", "vcs.count=3", "traffic.sizes=[1500]", "traffic.load=0.2",
      "run.warmup_ns=0", "run.measure_ns=400000"]),
]

# Sections the host decides, not the engine.
LEFT_OUT = {"performance", "fabemu"}
HEADLINE = ["delivered_packets", "delivered_messages", "accepted_load", "latency_ns.mean",
            "message_latency_ns.mean", "credit_stalls"]


def write_pcap(path, src, dst, count, gap_us, seed):
    """count frames src -> dst, 64 to 1514 bytes, gap_us apart (a fixed LCG)."""
    x = seed
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        t = 0.0
        for i in range(count):
            x = (x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
            size = 64 + (x >> 33) % (1514 - 64 + 1) if i % 3 else 1514
            frame = (bytes.fromhex(dst) + bytes.fromhex(src) + struct.pack(">H", 0x88b5) +
                     bytes((i + k) & 0xff for k in range(size - 14)))
            sec, usec = int(t // 1e6), int(t % 1e6)
            f.write(struct.pack("<IIII", sec, usec, len(frame), len(frame)) + frame)
            t += gap_us


def get(report, dotted):
    v = report
    for k in dotted.split("."):
        if not isinstance(v, dict) or k not in v:
            return None
        v = v[k]
    return v


def fingerprint(report):
    report = dict(report)
    for k in LEFT_OUT:
        report.pop(k, None)
    if "spec" in report:
        report["spec"] = {k: v for k, v in report["spec"].items() if k != "path"}
        # The replayed hosts' pcap files live in a temporary folder.
        res = report["spec"].get("resolved", {})
        for p in res.get("ports", []) or []:
            if isinstance(p, dict) and "replay" in p:
                p["replay"] = os.path.basename(p["replay"])
        report["spec"].pop("overrides", None)  # (they name the pcap files too)
    for p in report.get("ports", []) or []:  # "replay:<temporary folder>/h0.pcap"
        if isinstance(p, dict) and p.get("device", "").startswith("replay:"):
            p["device"] = "replay:" + os.path.basename(p["device"][len("replay:"):])
    sections = {}
    for k in sorted(report):
        blob = json.dumps(report[k], sort_keys=True, separators=(",", ":"))
        sections[k] = hashlib.sha256(blob.encode()).hexdigest()[:16]
    return {"sections": sections, "headline": {h: get(report, h) for h in HEADLINE}}


def run_one(fabemu, src, tmp, name, topo, far, overrides):
    sets = COMMON + overrides
    if far is not None:
        p0, p1 = os.path.join(tmp, "h0.pcap"), os.path.join(tmp, "h1.pcap")
        if not os.path.exists(p0):
            # A frame every 1.0 (1.3) us for 300 (390) us: bursts of the
            # large ones queue at the port, the rest cross under the load.
            write_pcap(p0, "020000000001", "020000000002", 300, 1.0, 1)
            write_pcap(p1, "020000000002", "020000000001", 300, 1.3, 2)
        sets.append(HOSTS.format(pcap0=p0, pcap1=p1, far=far))
    out = os.path.join(tmp, name + ".json")
    cmd = [fabemu, "run", os.path.join(src, topo), "--quiet", "--json", out]
    for s in sets:
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{name}: fabemu exited {r.returncode}: {r.stderr.strip()[-800:]}")
    with open(out) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fabemu", required=True)
    ap.add_argument("--src", required=True)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--record")
    g.add_argument("--check")
    ap.add_argument("--only", help="run only the runs whose name contains this")
    a = ap.parse_args()
    golden = {}
    if a.check:
        with open(a.check) as f:
            golden = json.load(f)["runs"]
    got, failures = {}, 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, topo, far, overrides in RUNS:
            if a.only and a.only not in name:
                continue
            try:
                rep = run_one(a.fabemu, a.src, tmp, name, topo, far, overrides)
            except RuntimeError as e:
                print(f"{name}: FAIL {e}")
                failures += 1
                continue
            if far is not None and not all(p.get("tx_frames", 0) > 0 for p in rep.get("ports", [])):
                print(f"{name}: FAIL the replayed hosts received no frames: {rep.get('ports')}")
                failures += 1
                continue
            fp = fingerprint(rep)
            got[name] = fp
            if not a.check:
                print(f"{name}: recorded {fp['headline']}")
                continue
            want = golden.get(name)
            if want is None:
                print(f"{name}: FAIL not in {a.check} (record it)")
                failures += 1
                continue
            moved = [k for k in sorted(set(want["sections"]) | set(fp["sections"]))
                     if want["sections"].get(k) != fp["sections"].get(k)]
            if moved:
                failures += 1
                print(f"{name}: FAIL sections differ: {', '.join(moved)}")
                for h in HEADLINE:
                    if want["headline"].get(h) != fp["headline"].get(h):
                        print(f"    {h}: golden {want['headline'].get(h)} now {fp['headline'].get(h)}")
            else:
                print(f"{name}: OK ({len(fp['sections'])} sections equal; {fp['headline']})")
    if a.record:
        with open(a.record, "w") as f:
            json.dump({"about": "tests/golden/exact_runs.py: per run, a SHA-256 of each report "
                                "section; re-record only after an intended change",
                       "runs": got}, f, indent=1, sort_keys=True)
            f.write("\n")
    print(f"exact_runs: {len(got)} runs, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
