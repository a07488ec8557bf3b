#!/usr/bin/env bash
# Port tap benchmark: frames per second a port tap records without drops.
# A replayed host (ports[].replay, driven by the worker itself: no host
# thread) at endpoint 0 of the T3E 4x4x4 torus sends 64-byte frames at a
# fixed rate to a listening host at endpoint 42, in real time on one worker;
# both ports are tapped (each frame is recorded twice: in at a, out at b).
# For each rate: frames delivered, records written, capture drops, and the
# run's lateness with the taps on and off. Figures, never assertions; the
# writer thread takes the CPUs no worker is pinned to, so run it with
# `taskset -c N` to see both on one core.
# Usage: scripts/bench-port-tap.sh [seconds per run (2)] [frames/s ...]
#        (default rates 50000 100000 200000 400000)
set -euo pipefail
# shellcheck source=scripts/lib/setup.sh
source "$(dirname "$0")/lib/setup.sh"
fabemu_build >/dev/null
bin="$FABEMU_BUILD/fabemu"
seconds=${1:-2}
shift || true
rates=("$@")
((${#rates[@]})) || rates=(50000 100000 200000 400000)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# 1000 frames 1 us apart: 1e6 frames/s at replay_speed 1, looped until the end.
"$FABEMU_ROOT/scripts/lib/replay_pcap.py" "$out/frames.pcap" 64
"$FABEMU_ROOT/scripts/lib/replay_pcap.py" "$out/quiet.pcap" 0

echo "port taps, 64 B frames replayed in real time through the t3e 4x4x4 (endpoint 0 -> 42), one worker, ${seconds} s per run"
for rate in "${rates[@]}"; do
  speed=$(python3 -c "print($rate / 1e6)")
  for taps in on off; do
    cap=()
    [[ $taps == on ]] && cap=(--capture port=a --capture port=b --capture-file "$out/tap.pcapng")
    "$bin" run "$FABEMU_ROOT/topologies/t3e-4x4x4.yaml" --quiet --json "$out/$taps.json" \
      --set run.mode=realtime --set traffic.load=0 --set run.duration_s="$seconds" \
      --set "ports=[{name: a, replay: \"$out/frames.pcap\", endpoint: 0, replay_loops: 0, replay_speed: $speed},
                    {name: b, replay: \"$out/quiet.pcap\", endpoint: 42}]" "${cap[@]}" 2>"$out/stderr" ||
      { cat "$out/stderr"; exit 1; }
    rm -f "$out"/tap*.pcapng
  done
  python3 - "$out/on.json" "$out/off.json" "$rate" <<'PY'
import json, sys
on, off = (json.load(open(p)) for p in sys.argv[1:3])
rt = lambda j, k: j["realtime"]["lateness_ns"][k] / 1000
wall = on["realtime"]["wall_s"]
c = on["capture"]
print(f"{int(sys.argv[3]):8d} frames/s offered: {on['ports'][1]['tx_frames'] / wall:9.0f} delivered, "
      f"{c['written'] / wall:9.0f} records/s written, {c['drops']} capture drops; "
      f"lateness p99 {rt(on, 'p99'):.1f} us, max {rt(on, 'max'):.0f} us "
      f"(taps off: p99 {rt(off, 'p99'):.1f} us, max {rt(off, 'max'):.0f} us)")
PY
done
