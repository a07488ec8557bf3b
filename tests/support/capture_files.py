"""Readers of the capture files the system tests check, little-endian as
written on this machine: classic pcap (DPDK's net_pcap, the tests' inputs)
and fabemu's pcapng (pcap-tools/FORMAT.md: nanosecond timestamps).
Imported by the tests' inline Python: sys.path.insert(0, SOURCE_DIR/tests/support)."""

import calendar
import re
import struct
import time

PCAP_SCALE_TO_NS = {0xA1B2C3D4: 1000, 0xA1B23C4D: 1}  # microsecond and nanosecond magic


def pcap_records(path):
    """[(time in ns, frame bytes)] of a classic pcap file."""
    d = open(path, "rb").read()
    scale = PCAP_SCALE_TO_NS[struct.unpack_from("<I", d)[0]]
    off, out = 24, []
    while off < len(d):
        s, frac, cap, _ = struct.unpack_from("<IIII", d, off)
        out.append((s * 10**9 + frac * scale, d[off + 16:off + 16 + cap]))
        off += 16 + cap
    return out


def pcapng_records(path):
    """(interface names, [(interface name, time in ns, epb_flags, frame bytes,
    original length)]) of a fabemu pcapng file."""
    d = open(path, "rb").read()
    off, names, out = 0, [], []
    while off < len(d):
        btype, n = struct.unpack_from("<II", d, off)
        if btype == 1:  # interface description: the if_name option
            o, name = off + 16, None
            while o < off + n - 4:
                code, length = struct.unpack_from("<HH", d, o)
                if code == 0:
                    break
                if code == 2:
                    name = d[o + 4:o + 4 + length].decode()
                o += 4 + (length + 3) // 4 * 4
            names.append(name)
        elif btype == 6:  # enhanced packet: epb_flags is the only option fabemu writes
            iface, hi, lo, cap, orig = struct.unpack_from("<IIIII", d, off + 8)
            o = off + 28 + (cap + 3) // 4 * 4
            flags = struct.unpack_from("<I", d, o + 4)[0] if struct.unpack_from("<H", d, o)[0] == 2 else 0
            out.append((names[iface], (hi << 32) | lo, flags, d[off + 28:off + 28 + cap], orig))
        off += n
    return names, out


def run_start_ns(path):
    """The run's start a fabemu pcapng file's timestamps count from (ns since
    the Unix epoch), read from its section header's comment."""
    d = open(path, "rb").read()
    n = struct.unpack_from("<I", d, 4)[0]
    o = 24  # after the block header, byte-order magic, version and section length
    while o < n - 4:
        code, length = struct.unpack_from("<HH", d, o)
        if code == 1:
            m = re.search(r"the run's start, (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.(\d{9})Z",
                          d[o + 4:o + 4 + length].decode())
            if m:
                sec = calendar.timegm(time.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S"))
                return sec * 10**9 + int(m.group(2))
        if code == 0:
            break
        o += 4 + (length + 3) // 4 * 4
    raise ValueError(f"{path}: no run start in the section header's comment")
