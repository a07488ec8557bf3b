#!/usr/bin/env bash
# Real-time lateness against frame rate: how fast frames can enter the
# fabric while its timing stays within a bound. A replayed host (driven by
# the worker itself: no host thread) at endpoint 0 of the T3E 4x4x4 torus
# sends frames of one size at a fixed rate to a listening host at endpoint
# 42, in real time on one worker; each run reports frames delivered and the
# lateness of the run's events (p50, p99, max, in emulated time).
#  - At time scale 1, each size at rising rates: the highest rate whose
#    lateness p99 stays under the bound, or "none".
#  - At the lowest of those rates, rising time scales: the smallest time
#    scale (wall ns per emulated ns) that keeps p99 under the bound.
# First, how often the machine takes a busy core away (fabemu_host_stalls).
# Figures, never assertions.
# Usage: scripts/bench-lateness.sh [seconds per run (2)] [bound_ns (1000)] [runs per point (3)]
set -euo pipefail
# shellcheck source=scripts/lib/setup.sh
source "$(dirname "$0")/lib/setup.sh"
seconds=${1:-2}
bound=${2:-1000}
repeat=${3:-3}
[[ $seconds =~ ^[0-9]+([.][0-9]+)?$ && $bound =~ ^[0-9]+$ && $repeat =~ ^[1-9][0-9]*$ ]] || {
  echo "usage: $0 [seconds per run (2)] [bound_ns (1000)] [runs per point (3)]: numbers, got '$*'" >&2
  exit 2
}
fabemu_build >/dev/null
bin="$FABEMU_BUILD/fabemu"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# 1000 frames 1 us apart (1e6 frames/s at replay_speed 1, looped), per size.
for size in 64 1500; do "$FABEMU_ROOT/scripts/lib/replay_pcap.py" "$out/frames$size.pcap" "$size"; done
"$FABEMU_ROOT/scripts/lib/replay_pcap.py" "$out/quiet.pcap" 0

# One point: size, frames/s (emulated), time scale, run `repeat` times ->
# "UNDER TEXT": UNDER is 1 when the median of the runs' lateness p99 is under
# the bound (a run's p99 moves with what else the machine does), TEXT the
# figures of the median run.
point() {
  local speed i
  speed=$(python3 -c "print($2 / 1e6)")
  for ((i = 0; i < repeat; i++)); do
    "$bin" run "$FABEMU_ROOT/topologies/t3e-4x4x4.yaml" --quiet --json "$out/r$i.json" \
      --set run.mode=realtime --set run.time_scale="$3" --set traffic.load=0 \
      --set run.duration_s="$seconds" --set run.progress_s=0 \
      --set "ports=[{name: a, replay: \"$out/frames$1.pcap\", endpoint: 0, replay_loops: 0, replay_speed: $speed},
                    {name: b, replay: \"$out/quiet.pcap\", endpoint: 42}]" 2>"$out/stderr" ||
      { cat "$out/stderr" >&2; exit 1; }
  done
  python3 - "$out" "$repeat" "$1" "$2" "$3" "$bound" <<'PY'
import json, sys
runs = [json.load(open(f"{sys.argv[1]}/r{i}.json")) for i in range(int(sys.argv[2]))]
size, rate, scale, bound = sys.argv[3], int(sys.argv[4]), sys.argv[5], float(sys.argv[6])
runs.sort(key=lambda j: j["realtime"]["lateness_ns"]["p99"])
j = runs[len(runs) // 2]; r = j["realtime"]; l = r["lateness_ns"]
# Frames per second of emulated time: the wall rate times the time scale.
got = j["ports"][1]["tx_frames"] / r["wall_s"] * r["time_scale"]
p99s = " ".join(f"{x['realtime']['lateness_ns']['p99'] / 1e3:.2f}" for x in runs)
print(int(l["p99"] < bound),
      f"{size:>5} B frames, {rate:7d} frames/s offered, time scale {scale:>2}: {got:8.0f} delivered, "
      f"lateness p50 {l['p50'] / 1e3:6.2f} us p99 {l['p99'] / 1e3:7.2f} us (runs: {p99s}) "
      f"max {l['max'] / 1e3:7.1f} us")
PY
}

echo "real-time lateness, T3E 4x4x4, endpoint 0 -> 42, one worker, ${seconds} s per run, median p99 of $repeat runs, bound ${bound} ns"
# What the machine allows: an event due while the core is taken away runs
# late by up to the stall, however fast the engine is.
"$FABEMU_BUILD/fabemu_host_stalls" "$seconds"
declare -A rates=([64]="10000 50000 100000 200000 400000 800000" [1500]="1000 2000 5000 10000 20000")
for size in 64 1500; do
  best=none
  for rate in ${rates[$size]}; do
    read -r under text <<<"$(point "$size" "$rate" 1)"
    echo "$text"
    if ((under)); then best=$rate; fi
  done
  echo "$size B frames: highest rate with lateness p99 under $bound ns at time scale 1: $best"
  rate=${rates[$size]%% *}
  need=none
  for scale in 2 4 8 16 32 64; do
    read -r under text <<<"$(point "$size" "$rate" "$scale")"
    echo "$text"
    if ((under)); then
      need=$scale
      break
    fi
  done
  echo "$size B frames at $rate frames/s: smallest time scale with lateness p99 under $bound ns: $need"
done
