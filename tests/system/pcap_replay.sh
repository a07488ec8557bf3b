#!/usr/bin/env bash
# System test of a real-time run with ports through the command line, no root
# needed: frames in a pcap file are received on a net_pcap port at endpoint 0
# of the T3E 4x4x4 torus, cross the fabric to the port at endpoint 42 and are
# written to that port's output pcap. Every frame must come out, byte for
# byte and in order, with no drops, and the JSON must show it. Then a host
# replayed from a file (ports[].replay) in real time: its frames keep their
# recorded schedule on the wall clock within the run's own lateness.
#
#   bash tests/system/pcap_replay.sh FABEMU_BINARY SOURCE_DIR
set -euo pipefail

fabemu=${1:?usage: pcap_replay.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: pcap_replay.sh FABEMU_BINARY SOURCE_DIR}
command -v jq >/dev/null || { echo "pcap_replay: jq is missing (scripts/lib/setup.sh installs it)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# N frames from 02:00:00:00:00:01 to 02:00:00:00:00:02, ethertype 0x88b5,
# lengths 60 to 1464, payload bytes counting from the frame number. Written
# with perl (perl-base is essential on Debian).
n=40
perl -e '
  my $n = shift;
  print pack("LSSlLLL", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1);
  for my $i (0 .. $n - 1) {
    my $len = 60 + $i * 36;
    print pack("LLLL", 1, $i * 1000, $len, $len);
    print pack("H12H12n", "020000000002", "020000000001", 0x88b5);
    print pack("C*", map { ($i + $_) & 255 } 0 .. $len - 15);
  }' "$n" >"$tmp/in.pcap"
perl -e 'print pack("LSSlLLL", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)' >"$tmp/empty.pcap"

"$fabemu" run "$src/topologies/t3e-4x4x4.yaml" --quiet --json "$tmp/run.json" \
  --set run.mode=realtime --set traffic.load=0 --set run.duration_s=1 \
  --set "ports=[{name: a, device: \"net_pcap0,rx_pcap=$tmp/in.pcap,tx_pcap=$tmp/out_a.pcap\", endpoint: 0},
                {name: b, device: \"net_pcap1,rx_pcap=$tmp/empty.pcap,tx_pcap=$tmp/out_b.pcap\", endpoint: 42}]"

fail=0
check() {  # jq expression, expected value, what
  local got
  got=$(jq -r "$1" "$tmp/run.json")
  if [[ $got != "$2" ]]; then
    echo "FAIL: $3: $1 is $got, expected $2"
    fail=1
  else
    echo "ok: $3 ($got)"
  fi
}
check '.ports[0].rx_frames' "$n" "port a received every frame of the file"
check '.ports[1].tx_frames' "$n" "port b transmitted every frame"
check '[.ports[].dropped] | add' 0 "no frame dropped"
check '.ports[1].frame_hops.max' 6 "frames crossed six router-to-router links"
check '.ports[1].rx_bytes' 0 "nothing came in on b"

# The frames that came out are the frames that went in: same records after
# the 24-byte file header, except the 8 bytes of capture time in each.
strip_times() {  # pcap file -> record lengths and data, without timestamps
  local f=$1 off=24 size len
  size=$(stat -c %s "$f")
  while ((off < size)); do
    len=$(od -An -tu4 -j $((off + 8)) -N4 "$f" | tr -d ' ')
    tail -c +$((off + 9)) "$f" | head -c $((8 + len))
    off=$((off + 16 + len))
  done
}
if cmp -s <(strip_times "$tmp/in.pcap") <(strip_times "$tmp/out_b.pcap"); then
  echo "ok: out_b.pcap holds the input frames, byte for byte, in order"
else
  echo "FAIL: out_b.pcap differs from in.pcap (beyond capture times)"
  fail=1
fi

# A replayed host (ports[].replay) in real time keeps its file's schedule on
# the wall clock, late by no more than the run says it was: 50 frames 100 us
# apart replayed at endpoint 0, delivered to the net_pcap port at endpoint 42,
# whose tx_pcap stamps each frame with the wall clock (TSC) when the worker
# hands it over. The tap on port a shows each frame entering at its recorded
# emulated time; the tap on port b the emulated time of its delivery. The
# wall-clock time of a delivery is its emulated time plus a constant (the
# run's start) plus how late the delivery event ran and the rest of its round
# up to the transmit burst. So the spread of (wall - emulated) over the frames
# is at most the run's lateness max plus its longest poll gap (one round).
command -v python3 >/dev/null || { echo "skip: replay timing (python3 is missing)"; exit $fail; }
python3 - "$tmp/timed.pcap" <<'PY'
import struct, sys
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i in range(50):
        body = bytes.fromhex("020000000002" "020000000001") + struct.pack(">H", 0x88b5)
        body += bytes((i + k) & 255 for k in range(46 + i * 24))
        t_us = i * 100
        f.write(struct.pack("<IIII", t_us // 10**6, t_us % 10**6, len(body), len(body)) + body)
PY
"$fabemu" run "$src/topologies/t3e-4x4x4.yaml" --quiet --json "$tmp/timed.json" \
  --set run.mode=realtime --set traffic.load=0 --set run.duration_s=0.1 \
  --set "ports=[{name: a, replay: \"$tmp/timed.pcap\", endpoint: 0},
                {name: b, device: \"net_pcap1,rx_pcap=$tmp/empty.pcap,tx_pcap=$tmp/timed_b.pcap\", endpoint: 42}]" \
  --capture port=a --capture port=b --capture-file "$tmp/timed.pcapng"
python3 - "$tmp" "$src/tests/support" <<'PY' || fail=1
import json, sys
tmp = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from capture_files import pcap_records, pcapng_records, run_start_ns

sent = [f for _, f in pcap_records(f"{tmp}/timed.pcap")]
wall = pcap_records(f"{tmp}/timed_b.pcap")
_, records = pcapng_records(f"{tmp}/timed.pcapng")
entered = [(t, f) for name, t, _, f, _ in records if name == "port:a"]
emu = [(t, f) for name, t, _, f, _ in records if name == "port:b"]
rt = json.load(open(f"{tmp}/timed.json"))["realtime"]
ok = len(wall) == len(emu) == len(sent) and [f for _, f in wall] == sent == [f for _, f in emu]
print(("ok: " if ok else "FAIL: ") + f"the {len(sent)} replayed frames came out whole and in order "
      f"({len(wall)} on the wire, {len(emu)} captured)")
if not ok:
    sys.exit(1)
start = run_start_ns(f"{tmp}/timed.pcapng")  # timestamps: the run's start + emulated time
times = [t - start for t, _ in entered]
ok = times == [i * 100_000 for i in range(len(sent))]
print(("ok: " if ok else "FAIL: ") + f"each frame entered at its recorded emulated time ({times[:4]}... ns)")
if not ok:
    sys.exit(1)
dev = [w - e for (w, _), (e, _) in zip(wall, emu)]
spread = max(dev) - min(dev)
bound = rt["lateness_ns"]["max"] + rt["poll_gap_ns"]["max"]
span = wall[-1][0] - wall[0][0]
ok = spread <= bound
print(("ok: " if ok else "FAIL: ") + f"wall-clock delivery times follow the emulated ones within "
      f"{spread / 1000:.1f} us over {span / 1000:.0f} us; the run's lateness max plus longest poll "
      f"gap is {bound / 1000:.1f} us")
sys.exit(not ok)
PY
exit $fail
