#!/usr/bin/env python3
"""Writes fabemu capture files with known contents for the dissector test.

    python3 tests/support/make_capture.py OUTDIR
        -> OUTDIR/yarc.pcapng, OUTDIR/t3e.pcapng
    python3 tests/support/make_capture.py --frames FILE N
        -> FILE: a classic pcap of N ICMP echo requests (seq 0..N-1, 18 + 37 seq
           data bytes) for a host port to send into a run

The files follow pcap-tools/FORMAT.md (pcapng, one IDB per link, Ethernet
frames of EtherType 0x88B5 with the 48-byte fabemu header) and the packets
are encoded here from the bit layouts of dataplane/codec/yarc_phit.h and
t3e_flit.h, independently of the C++ codec, so that the dissector is checked
against the documented layout rather than against itself.
tests/system/dissector.sh asserts the values listed with each packet below.
Standard library only.
"""
import struct
import sys

# ---------------------------------------------------------------- pcapng --


def _options(opts):
    """pcapng options: (code, bytes) pairs, each padded to 4, then opt_endofopt."""
    out = b""
    for code, value in opts:
        out += struct.pack("<HH", code, len(value)) + value + b"\0" * (-len(value) % 4)
    return out + struct.pack("<HH", 0, 0)


def _block(kind, body):
    total = 12 + len(body)
    return struct.pack("<II", kind, total) + body + struct.pack("<I", total)


def shb(hardware, comment):
    body = struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)
    body += _options([(4, b"fabemu make_capture.py"), (2, hardware.encode()), (1, comment.encode())])
    return _block(0x0A0D0D0A, body)


def idb(name, description, snaplen):
    body = struct.pack("<HHI", 1, 0, snaplen)  # LINKTYPE_ETHERNET
    body += _options([(2, name.encode()), (3, description.encode()), (9, bytes([9]))])
    return _block(1, body)


def epb(interface, time_ns, frame, snaplen):
    data = frame[:snaplen]
    body = struct.pack("<IIIII", interface, time_ns >> 32, time_ns & 0xFFFFFFFF, len(data), len(frame))
    body += data + b"\0" * (-len(data) % 4)
    body += _options([(2, struct.pack("<I", 2))])  # epb_flags: outbound
    return _block(6, body)


# ------------------------------------------------------- fabemu framing --

ENDPOINT = 0x800000  # node number of an endpoint in the MAC addresses


def mac(node):
    return bytes([0x02, 0xFA, 0xBE]) + node.to_bytes(3, "big")


FLAG_RETRY, FLAG_BAD_CRC, FLAG_TRUNCATED, FLAG_LAST = 0x01, 0x02, 0x04, 0x08
FLAG_FRAME, FLAG_RESPONSE, FLAG_MEASURED = 0x10, 0x20, 0x40


def fabric_frame(profile, enc, units, *, flags, vc, link, link_seq, time_ps, src, dst, packet_id,
                 msg_seq, seg, nseg, from_node, to_node, snaplen):
    if len(enc) + 62 > snaplen:
        flags |= FLAG_TRUNCATED
    header = struct.pack(">BBBBIIHHQIIQIHH", 1, profile, flags, vc, link, link_seq, units, len(enc),
                         time_ps, src, dst, packet_id, msg_seq, seg, nseg)
    assert len(header) == 48
    return mac(to_node) + mac(from_node) + struct.pack(">H", 0x88B5) + header + enc


# ------------------------------------------------------------------ YARC --


def crc16_x25(data):
    """CRC-16/X-25 (crc16.h): reflected 0x8408, init 0xFFFF, final XOR 0xFFFF."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return crc ^ 0xFFFF


assert crc16_x25(b"123456789") == 0x906E


def yarc(dest, v, h, a, r, hash_, xhdr, payload, *, ok=0, sideband=None):
    """Phits as yarc_encode writes them: head, hash (if h), len(xhdr)
    transport header phits, the payload as a 22-bit stream, EOP with pad, ok
    and CRC. sideband: {phit index: 2 bits} set after the CRC (outside it)."""
    np = (len(payload) * 8 + 21) // 22
    hlen = len(xhdr)
    words = [(dest << 7) | (v << 6) | (h << 5) | (a << 4) | (r << 3) | hlen]
    if h:
        words.append(hash_)
    words += xhdr
    stream = int.from_bytes(payload, "big") << (np * 22 - len(payload) * 8)
    words += [(stream >> (22 * (np - 1 - k))) & 0x3FFFFF for k in range(np)]
    pad = np * 22 // 8 - len(payload)
    assert len(words) + 1 >= 4 and pad <= 2
    eop = (pad << 18) | (ok << 16)
    body = b"".join(w.to_bytes(3, "big") for w in words)
    # The CRC covers the data bits before the EOP and the EOP's bits 21..18.
    crc = crc16_x25(body + bytes([(eop >> 16) & 0x3C]))
    phits = [*words, eop | crc]
    for i, bits in (sideband or {}).items():
        phits[i] |= bits << 22
    return b"".join(w.to_bytes(3, "big") for w in phits)


def yarc_meta_xhdr(src, flags, msg_seq, seg, nseg, packet_id):
    """Transport header T0..T3 as yarc_encode_meta fills them."""
    return [(src << 7) | flags, msg_seq & 0x3FFFFF, ((seg & 0x7FF) << 11) | (nseg & 0x7FF),
            packet_id & 0x3FFFFF]


# ------------------------------------------------------------------- T3E --


def t3e(head_words, payload, response):
    """Flits as t3e_encode writes them: control byte (head, tail, header,
    class), then the 64-bit word big-endian; payload words zero-padded."""
    words = list(head_words)
    hdr = len(words)
    for off in range(0, len(payload), 8):
        words.append(int.from_bytes(payload[off:off + 8].ljust(8, b"\0"), "big"))
    n = len(words)
    out = b""
    for i, w in enumerate(words):
        ctl = (0x20 if i == 0 else 0) | (0x10 if i == n - 1 else 0) | (0x08 if i < hdr else 0)
        out += bytes([ctl | (0x04 if response else 0)]) + w.to_bytes(8, "big")
    return out


def t3e_h0(dst, cmd, payload_bytes, header_flits, route_tag):
    return (dst << 48) | (cmd << 42) | (payload_bytes << 35) | (header_flits << 32) | route_tag


def t3e_h1(src, msg_seq, seg, nseg):
    return (src << 48) | (msg_seq << 24) | (seg << 12) | nseg


# ------------------------------------------------- the host's frame --


def _ones_complement_sum(data):
    data += b"\0" * (len(data) % 2)  # an odd length counts as padded with a zero byte
    s = sum(struct.unpack(">%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def icmp_echo_frame(seq=7, data=bytes(range(56))):
    """Ethernet/IPv4/ICMP echo request 10.0.0.1 -> 10.0.0.2, id 0x1234,
    checksums correct; by default the 98-byte one with 56 data bytes 0..55."""
    icmp = struct.pack(">BBHHH", 8, 0, 0, 0x1234, seq) + data
    icmp = icmp[:2] + struct.pack(">H", _ones_complement_sum(icmp)) + icmp[4:]
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(icmp), 1, 0, 64, 1, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    ip = ip[:10] + struct.pack(">H", _ones_complement_sum(ip)) + ip[12:]
    eth = bytes.fromhex("020000000002" "020000000001") + struct.pack(">H", 0x0800)
    return eth + ip + icmp


# ----------------------------------------------------------------- files --


def yarc_file():
    """BlackWidow YARC, requests with hash phit and 4 transport header phits
    (the 32-byte write shape: 6 header phits, up to 12 payload, EOP).

    link 0 ep3>r0.p3, link 1 r0.p3>ep3, link 2 r5.p40>r9.p1, link 3
    r2.p7>r4.p0 (snaplen 80). Packets in file order:
      1 request 3->12, 32 bytes 0..31, hash 0x1234, 19 phits, sideband 2 on
        phit 0 and 1 on phit 5, msg 77, good CRC
      2 frame segment 1/3 (link 0)        3 the same segment on link 2
      4 response 12->3 on link 1, vc 1, 8 bytes, h 0 a 1, 9 phits
      5 frame segment 2/3 (link 0)        6 segment 2/3 (link 2)
      7 segment 3/3 (link 2): frame reassembled (link 2's copy)
      8 request 3->12 msg 78 with one payload bit flipped: bad CRC, flag 1
      9 its retransmission (flag 0): good CRC
     10 segment 3/3 (link 0): frame reassembled (link 0's copy)
     11 request 3->12 msg 79, ok field 2 (soft error), CRC resealed: good
     12 request 3->12 msg 80 on link 3: truncated to 6 phits
    """
    frame = icmp_echo_frame()
    links = [("ep3>r0.p3", "fabric link 0: ep3 -> r0.p3, yarc phits, 2 VCs", 0x800003, 0, 256),
             ("r0.p3>ep3", "fabric link 1: r0.p3 -> ep3, yarc phits, 2 VCs", 0, 0x800003, 256),
             ("r5.p40>r9.p1", "fabric link 2: r5.p40 -> r9.p1, yarc phits, 2 VCs", 5, 9, 256),
             ("r2.p7>r4.p0", "fabric link 3: r2.p7 -> r4.p0, yarc phits, 2 VCs", 2, 4, 80)]
    out = shb("yarc fixture", "tests/support/make_capture.py")
    out += b"".join(idb(name, desc, snap) for name, desc, _, _, snap in links)
    seq = [0, 0, 0, 0]
    time = [1_000_000]

    def put(link, enc, *, src, dst, msg, flags=0, vc=0, seg=0, nseg=1, count=0):
        name, desc, frm, to, snap = links[link]
        pid = (src << 40) | count
        if seg == nseg - 1:
            flags |= FLAG_LAST
        rec = fabric_frame(1, enc, len(enc) // 3, flags=flags, vc=vc, link=link, link_seq=seq[link],
                           time_ps=time[0], src=src, dst=dst, packet_id=pid, msg_seq=msg, seg=seg,
                           nseg=nseg, from_node=frm, to_node=to, snaplen=snap)
        seq[link] += 1
        time[0] += 12_345
        return epb(link, time[0] // 1000, rec, snap)

    def request(msg, payload, count, flags=0, seg=0, nseg=1, ok=0, sideband=None):
        xhdr = yarc_meta_xhdr(3, 0x01 | (0x08 if flags & FLAG_FRAME else 0) |
                              (0x02 if seg == nseg - 1 else 0), msg, seg, nseg, (3 << 40) | count)
        return yarc(12, 0, 1, 0, 0, 0x1234, xhdr, payload, ok=ok, sideband=sideband)

    segs = [frame[0:33], frame[33:66], frame[66:98]]

    def segment(link, k):
        return put(link, request(100, segs[k], 50 + k, FLAG_FRAME, k, 3), src=3, dst=12, msg=100,
                   flags=FLAG_FRAME | FLAG_MEASURED, seg=k, nseg=3, count=50 + k)

    out += put(0, request(77, bytes(range(32)), 42, sideband={0: 2, 5: 1}), src=3, dst=12, msg=77,
               flags=FLAG_MEASURED, count=42)
    out += segment(0, 0) + segment(2, 0)
    resp = yarc(3, 1, 0, 1, 0, 0, yarc_meta_xhdr(12, 0x03, 500, 0, 1, (12 << 40) | 9),
                bytes.fromhex("0102030405060708"))
    out += put(1, resp, src=12, dst=3, msg=500, flags=FLAG_RESPONSE | FLAG_MEASURED, vc=1, count=9)
    out += segment(0, 1) + segment(2, 1) + segment(2, 2)
    good = request(78, bytes(range(100, 132)), 43)
    bad = bytearray(good)
    bad[30] ^= 0x10  # a payload phit's data bit, after the CRC was computed
    out += put(0, bytes(bad), src=3, dst=12, msg=78, flags=FLAG_BAD_CRC, count=43)
    out += put(0, good, src=3, dst=12, msg=78, flags=FLAG_RETRY, count=43)
    out += segment(0, 2)
    out += put(0, request(79, bytes(16), 44, ok=2), src=3, dst=12, msg=79, count=44)
    out += put(3, request(80, bytes(range(32)), 45), src=3, dst=12, msg=80, count=45)
    return out


def t3e_file():
    """Cray T3E flits. link 0 ep0>r0.p0, link 7 r1.p2>r2.p5, link 9
    r3.p1>r3.p4 (snaplen 80). Packets in file order:
      1 Get request 5->21 (2 header flits, no payload), route tag 0x01020304,
        msg 0x123456, sideband 3 on flit 1
      2 frame segment 1/2 0->42 (link 0): 2 header flits + 8 words
      3 single-word Put 5->42: 3 header flits (addr = packet id) + 1 word
        0xdeadbeefcafef00d
      4 Get response 21->5, class response, 1 header flit + 1 word
      5 frame segment 2/2 (link 0): 34 bytes in 5 words, frame reassembled
      6 vector Get response 21->5: 2 header flits + 8 words
      7 a 10-flit packet on link 9: truncated to 2 flits
      8 request whose fabemu header says dst 43, encoding dst 42: mismatch
      9 request 5->42 with the bad CRC flag (T3E flits carry no CRC)
    """
    frame = icmp_echo_frame()
    links = [("ep0>r0.p0", "fabric link 0: ep0 -> r0.p0, t3e flits, 5 VCs", 0x800000, 0, 256),
             ("r1.p2>r2.p5", "fabric link 7: r1.p2 -> r2.p5, t3e flits, 5 VCs", 1, 2, 256),
             ("r3.p1>r3.p4", "fabric link 9: r3.p1 -> r3.p4, t3e flits, 5 VCs", 3, 3, 80)]
    ids = [0, 7, 9]
    out = shb("t3e fixture", "tests/support/make_capture.py")
    out += b"".join(idb(name, desc, snap) for name, desc, _, _, snap in links)
    seq = [0, 0, 0]
    time = [2_000_000]

    def put(i, enc, *, src, dst, msg, flags=0, vc=0, seg=0, nseg=1, count=0):
        name, desc, frm, to, snap = links[i]
        if seg == nseg - 1:
            flags |= FLAG_LAST
        rec = fabric_frame(2, enc, len(enc) // 9, flags=flags, vc=vc, link=ids[i], link_seq=seq[i],
                           time_ps=time[0], src=src, dst=dst, packet_id=(src << 40) | count,
                           msg_seq=msg, seg=seg, nseg=nseg, from_node=frm, to_node=to, snaplen=snap)
        seq[i] += 1
        time[0] += 20_000
        return epb(i, time[0] // 1000, rec, snap)

    get = bytearray(t3e([t3e_h0(21, 2, 0, 2, 0x01020304), t3e_h1(5, 0x123456, 0, 1)], b"", False))
    get[9] |= 3  # sideband of flit 1
    out += put(1, bytes(get), src=5, dst=21, msg=0x123456, vc=2)

    def segment(k):
        part = frame[64 * k:64 * (k + 1)]
        enc = t3e([t3e_h0(42, 0, len(part), 2, 0x0A0B0C0D), t3e_h1(0, 7, k, 2)], part, False)
        return put(0, enc, src=0, dst=42, msg=7, flags=FLAG_FRAME, seg=k, nseg=2, count=20 + k)

    out += segment(0)
    word = bytes.fromhex("deadbeefcafef00d")
    pid = (5 << 40) | 3
    out += put(1, t3e([t3e_h0(42, 6, 8, 3, 0), t3e_h1(5, 8, 0, 1), pid], word, False),
               src=5, dst=42, msg=8, count=3)
    out += put(1, t3e([t3e_h0(5, 3, 8, 1, 0)], word, True), src=21, dst=5, msg=9,
               flags=FLAG_RESPONSE, vc=3, count=4)
    out += segment(1)
    vec = bytes(range(64))
    out += put(1, t3e([t3e_h0(5, 5, 64, 2, 0), t3e_h1(21, 10, 0, 1)], vec, True), src=21, dst=5,
               msg=10, flags=FLAG_RESPONSE, vc=3, count=5)
    out += put(2, t3e([t3e_h0(6, 0, 64, 2, 0), t3e_h1(5, 11, 0, 1)], vec, False), src=5, dst=6,
               msg=11, count=6)
    out += put(1, t3e([t3e_h0(42, 0, 0, 2, 0), t3e_h1(5, 12, 0, 1)], b"", False), src=5, dst=43,
               msg=12, count=7)
    out += put(1, t3e([t3e_h0(42, 0, 0, 2, 0), t3e_h1(5, 13, 0, 1)], b"", False), src=5, dst=42,
               msg=13, flags=FLAG_BAD_CRC, count=8)
    return out


def frames_pcap(n):
    out = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
    for i in range(n):
        frame = icmp_echo_frame(i, bytes((i + k) & 255 for k in range(18 + 37 * i)))
        out += struct.pack("<IIII", 1, i * 1000, len(frame), len(frame)) + frame
    return out


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--frames":
        with open(sys.argv[2], "wb") as f:
            f.write(frames_pcap(int(sys.argv[3])))
        return
    if len(sys.argv) != 2:
        sys.exit("usage: make_capture.py OUTDIR | --frames FILE N")
    with open(sys.argv[1] + "/yarc.pcapng", "wb") as f:
        f.write(yarc_file())
    with open(sys.argv[1] + "/t3e.pcapng", "wb") as f:
        f.write(t3e_file())


if __name__ == "__main__":
    main()
