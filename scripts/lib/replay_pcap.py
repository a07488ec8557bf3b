#!/usr/bin/python3
"""A host trace for a replayed port (ports[].replay): 1000 Ethernet frames
of SIZE bytes from 02:00:00:00:00:01 to 02:00:00:00:00:02, 1 us apart (1e6
frames/s at replay_speed 1; replay_loops 0 loops it), in a pcap file with
nanosecond timestamps (OUT '-': standard output). SIZE 0: the header alone
(a host that only listens)."""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import fabemu_tool as tool  # noqa: E402

cmd = tool.CommandLine("replay_pcap", " ".join(__doc__.split()),
                       footer="Exit status: 0 ok; 1 OUT could not be written; 2 bad command "
                              "line.")
cmd.prog = os.path.basename(sys.argv[0])
cmd.positionals("OUT SIZE", "the pcap file to write ('-': standard output) and the frame "
                "size in bytes (0, or 14 and more)", "args", count=2)
out, size = cmd.parse(sys.argv[1:]).args
if not size.isdigit() or 0 < int(size) < 14:
    cmd.error(f"SIZE '{tool.shown(size)}': give 0, or a frame size of 14 bytes or more")
if tool.output_problem(out):
    cmd.error(f"OUT {out}: {tool.output_problem(out)}")
size = int(size)


def fill(f):
    f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1))  # ns timestamps
    for i in range(1000 if size else 0):
        frame = bytes.fromhex("020000000002" "020000000001" "88b5") + \
            bytes((i + k) & 255 for k in range(size - 14))
        f.write(struct.pack("<IIII", 0, i * 1000, len(frame), len(frame)) + frame)


try:
    tool.write_output(out, fill, binary=True)
except OSError as e:
    sys.stderr.write(f"{cmd.prog}: cannot write {e.filename}: {e.strerror}\n")
    sys.exit(tool.EXIT_FAILED)
