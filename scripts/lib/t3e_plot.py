#!/usr/bin/python3
"""Draws the Cray T3E paper's Figures 7 and 8 from `fabemu analyze t3e --json`.

    t3e_plot.py T3E_JSON FIG7_PNG FIG8_PNG

Figure 7: average and maximum round-trip network latency against system
size. Figure 8: per-processor global bandwidth against system size, with
the two limits it is the smaller of (twice the bisection over the nodes,
the processor port) and the points the paper's text states: 600 MB/s
(the port and the links equally used) from 128 to 512 nodes, and its
153.6 GB/s bisection from 512 nodes up (2 x 153.6 GB/s / N). Needs
Debian's python3-matplotlib (run with /usr/bin/python3).
"""
import json
import sys


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("t3e_plot.py: needs Debian's python3-matplotlib (apt-get install "
              "python3-matplotlib), run with /usr/bin/python3", file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        data = json.load(f)
    sizes = data["sizes"]
    if not sizes:
        print(f"t3e_plot.py: {argv[1]} has no sizes", file=sys.stderr)
        return 1
    nodes = [s["nodes"] for s in sizes]
    shapes = ["x".join(str(d) for d in s["dims"]) for s in sizes]

    def finish(fig, ax, title, ylabel, path):
        ax.set_title(title, fontsize=9)
        ax.set_xscale("log", base=2)
        ax.set_xticks(nodes)
        ax.set_xticklabels([f"{n}\n{s}" for n, s in zip(nodes, shapes)], fontsize=7)
        ax.set_xlabel("system size (nodes, shape)")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(nodes, [s["max_round_trip_ns"] for s in sizes], "o-", label="maximum")
    ax.plot(nodes, [s["avg_round_trip_ns"] for s in sizes], "s-", label="average")
    ax.set_ylim(bottom=0)
    finish(fig, ax, "Cray T3E Figure 7: round-trip network latency\n"
           "uniform random destinations, Table 2 fall-through, direction-order routes",
           "round-trip latency (ns)", argv[2])

    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(nodes, [s["per_processor_mbps"] for s in sizes], "o-", lw=2,
            label="fabemu: per-processor global bandwidth")
    ax.plot(nodes, [s["network_limit_mbps"] for s in sizes], ":", color="gray",
            label="2 x bisection / N")
    ax.plot(nodes, [s["port_limit_mbps"] for s in sizes], "--", color="gray",
            label="processor port / ((N-1)/N)")
    peak = data["link_peak_mbps"]
    stated = [(n, peak) for n in nodes if 128 <= n <= 512]
    stated += [(n, 2 * 153.6e3 / n) for n in nodes if n > 512]
    ax.plot([p[0] for p in stated], [p[1] for p in stated], "kx", ms=9, mew=2,
            label="paper's text: port = links 128-512, 153.6 GB/s bisection above")
    top = max(s["per_processor_mbps"] for s in sizes)
    ax.set_ylim(0, 1.4 * top)
    finish(fig, ax, "Cray T3E Figure 8: bandwidth profile\n"
           "all PEs requesting uniformly across the machine (no locality)",
           "per-processor global bandwidth (MB/s)", argv[3])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
