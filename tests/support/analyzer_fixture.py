#!/usr/bin/python3
"""Writes small pcapng captures with known fabemu packets for the analyzer's
test (tests/system/pcap_analyzer.sh), in the layout of pcap-tools/FORMAT.md.

  analyzer_fixture.py OUT_DIR

writes OUT_DIR/a.pcapng (little-endian, ns timestamps: links ep0>r0.p0 and
r0.p1>r1.p4, port h0), OUT_DIR/b.pcapng (a big-endian section with link
r1.p0>ep1, then a little-endian one with port h1, 1/1024 s timestamps), OUT_DIR/cut.pcapng (a.pcapng with its
last block cut short; its offset printed as `cut_offset=N`) and
OUT_DIR/classic.pcap (a libpcap file). The packets (times in ps):

  packet  msg/seg  ep0>r0.p0       r0.p1>r1.p4                    r1.p0>ep1
  P1      5/0      1000000 vc0     1012345 vc0 seq0               1030000 seq0
  P2      5/1      1010000 vc0     1041000 vc1 seq2 bad CRC,      1066000 seq2 (after P3:
                                   1052000 vc1 seq3 retry                   out of order)
  P3      5/2      1020000 vc0     1030500 vc0 seq1               1045000 seq1
  P4      6/0      1030000 vc1     1070000 vc1 seq6 (4, 5 lost)   1085000 seq3

P1-P3 are 10 flits, P4 is 4; P1 and P3 are measured. Port h0: in 60, 100 and 1514 bytes at 500, 600
and 700 ns; out 60 and 1514 bytes at 2000 and 2100 ns; a statistics block
gives it 7 interface drops. Port h1: out 64 bytes at 1, 2 and 3 s.
"""

import os
import struct
import sys

LITTLE, BIG = "<", ">"


def options(bo, opts):
    out = b""
    for code, value in opts:
        out += struct.pack(bo + "HH", code, len(value)) + value + b"\0" * (-len(value) % 4)
    return out + struct.pack(bo + "HH", 0, 0) if opts else b""


def block(bo, btype, body):
    body += b"\0" * (-len(body) % 4)
    n = len(body) + 12
    return struct.pack(bo + "II", btype, n) + body + struct.pack(bo + "I", n)


def shb(bo, comment):
    body = struct.pack(bo + "IHHq", 0x1A2B3C4D, 1, 0, -1)
    body += options(bo, [(4, b"fabemu 0.1.0"), (2, b"t3e 2x1x1"), (1, comment.encode())])
    return block(bo, 0x0A0D0D0A, body)


def idb(bo, name, description, tsresol):
    body = struct.pack(bo + "HHI", 1, 0, 65535)
    body += options(bo, [(2, name.encode()), (3, description.encode()), (9, bytes([tsresol]))])
    return block(bo, 1, body)


def epb(bo, if_id, ts, frame, direction):
    body = struct.pack(bo + "IIIII", if_id, ts >> 32, ts & 0xFFFFFFFF, len(frame), len(frame))
    body += frame + b"\0" * (-len(frame) % 4)
    body += options(bo, [(2, struct.pack(bo + "I", direction))])
    return block(bo, 6, body)


def isb(bo, if_id, drops):
    body = struct.pack(bo + "III", if_id, 0, 0)
    body += options(bo, [(5, struct.pack(bo + "Q", drops))])
    return block(bo, 5, body)


def mac(node):
    return bytes([0x02, 0xFA, 0xBE]) + node.to_bytes(3, "big")


def fabric_frame(link_id, seq, flags, vc, units, time_ps, src, dst, count, msg, seg, segs):
    encoding = bytes(9 * units)  # T3E flits; the analyzer reads only the header
    header = struct.pack(">BBBBIIHHQIIQIHH", 1, 2, flags, vc, link_id, seq, units, len(encoding),
                         time_ps, src, dst, (src << 40) | count, msg, seg, segs)
    return mac(0) + mac(0x800000) + struct.pack(">H", 0x88B5) + header + encoding


def packet(bo, if_id, link_id, seq, time_ps, pkt, vc, flags=0):
    count, msg, seg, units = pkt
    if pkt in MEASURED:
        flags |= 0x40
    frame = fabric_frame(link_id, seq, flags, vc, units, time_ps, 0, 1, count, msg, seg, 3)
    return epb(bo, if_id, time_ps // 1000, frame, 2)  # ns timestamps; the header has the ps


def host_frame(length):
    return bytes.fromhex("020000000002" "020000000001" "0800") + bytes(length - 14)


P1, P2, P3, P4 = (1, 5, 0, 10), (2, 5, 1, 10), (3, 5, 2, 10), (4, 6, 0, 4)
RETRY, BAD_CRC = 0x01, 0x02
MEASURED = (P1, P3)  # header flag bit 6, as packets of a run's measurement window


def main(out_dir):
    comment = "spec fixture.yaml seed 1"
    bo = LITTLE
    a = [shb(bo, comment),
         idb(bo, "ep0>r0.p0", "fabric link 100: ep0 -> r0.p0, t3e flits, 2 VCs", 9),
         idb(bo, "r0.p1>r1.p4", "fabric link 0: r0.p1 -> r1.p4, t3e flits, 2 VCs", 9),
         idb(bo, "port:h0", "port h0 at endpoint 0", 9)]
    # A custom block (type 0x40000BAD) that a reader must skip.
    a.append(block(bo, 0x40000BAD, b"\x01\x02\x03\x04skip me!"))
    for seq, (t, p, vc) in enumerate([(1_000_000, P1, 0), (1_010_000, P2, 0),
                                      (1_020_000, P3, 0), (1_030_000, P4, 1)]):
        a.append(packet(bo, 0, 100, seq, t, p, vc))
    for seq, t, p, vc, flags in [(0, 1_012_345, P1, 0, 0), (1, 1_030_500, P3, 0, 0),
                                 (2, 1_041_000, P2, 1, BAD_CRC), (3, 1_052_000, P2, 1, RETRY),
                                 (6, 1_070_000, P4, 1, 0)]:
        a.append(packet(bo, 1, 0, seq, t, p, vc, flags))
    for t_ns, length, direction in [(500, 60, 1), (600, 100, 1), (700, 1514, 1),
                                    (2000, 60, 2), (2100, 1514, 2)]:
        a.append(epb(bo, 2, t_ns, host_frame(length), direction))
    a.append(isb(bo, 2, 7))

    bo = BIG
    b = [shb(bo, comment),
         idb(bo, "r1.p0>ep1", "fabric link 101: r1.p0 -> ep1, t3e flits, 2 VCs", 9)]
    for seq, (t, p) in enumerate([(1_030_000, P1), (1_045_000, P3), (1_066_000, P2),
                                  (1_085_000, P4)]):
        b.append(packet(bo, 0, 101, seq, t, p, 0))
    # A second section, of the other byte order: its interfaces count from 0.
    bo = LITTLE
    b += [shb(bo, comment), idb(bo, "port:h1", "port h1 at endpoint 1", 0x80 | 10)]
    for ticks in (1024, 2048, 3072):
        b.append(epb(bo, 0, ticks, host_frame(64), 2))

    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "a.pcapng"), "wb") as f:
        f.write(b"".join(a))
    with open(os.path.join(out_dir, "b.pcapng"), "wb") as f:
        f.write(b"".join(b))
    cut = b"".join(a[:-1]) + a[-1][:len(a[-1]) - 8]
    with open(os.path.join(out_dir, "cut.pcapng"), "wb") as f:
        f.write(cut)
    with open(os.path.join(out_dir, "classic.pcap"), "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
    print(f"cut_offset={len(b''.join(a[:-1]))}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
