#!/usr/bin/env python3
"""A host trace for a replayed port (ports[].replay): 1000 Ethernet frames
of SIZE bytes from 02:00:00:00:00:01 to 02:00:00:00:00:02, 1 us apart (1e6
frames/s at replay_speed 1; replay_loops 0 loops it), in a pcap file with
nanosecond timestamps. SIZE 0: the header alone (a host that only listens).

Usage: replay_pcap.py OUT.pcap SIZE
"""
import struct
import sys

if len(sys.argv) != 3 or not sys.argv[2].isdigit() or 0 < int(sys.argv[2]) < 14:
    sys.exit("usage: replay_pcap.py OUT.pcap SIZE  (SIZE: 0, or 14 bytes and more)")
out, size = sys.argv[1], int(sys.argv[2])
header = struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1)  # ns timestamps
with open(out, "wb") as f:
    f.write(header)
    for i in range(1000 if size else 0):
        frame = bytes.fromhex("020000000002" "020000000001" "88b5") + \
            bytes((i + k) & 255 for k in range(size - 14))
        f.write(struct.pack("<IIII", 0, i * 1000, len(frame), len(frame)) + frame)
