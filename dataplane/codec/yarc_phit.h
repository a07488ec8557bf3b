// BlackWidow / YARC packet encoding: 24-bit phits (ISCA 2006, section 4.1-4.3).
//
// The paper fixes the phit width, the 2 sideband bits per phit used by the
// link control block (LCB), the fields of the head phit (destination, v, h,
// a, r), the optional hash phit (15 hash bits), the EOP phit with the CRC and
// the ok field, a 4-phit minimum packet carrying 32 payload bits and the
// 19-phit 32-byte write (6 header, 12 data, 1 EOP). It does not give bit
// positions; this is fabemu's layout.
//
// On the wire (mbuf data, pcap) each phit is 3 bytes, a big-endian 24-bit
// word:  bits 23..22 sideband (LCB sequence/ack; 0 unless set by the link
// layer), bits 21..0 data. Data bits, MSB first:
//
//   head phit       [21:7] dest (15 bits, up to 32K endpoints)
//                   [6] v   virtual channel: 0 request, 1 response
//                   [5] h   a hash phit follows and deterministic routing
//                           hashes it
//                   [4] a   route adaptively (else deterministically)
//                   [3] r   source routed (maintenance; the routing vector
//                           travels in the transport header phits)
//                   [2:0] hlen  number of transport header phits (0..7)
//   hash phit       [21:15] reserved 0, [14:0] hash   (present iff h = 1)
//   transport hdr   hlen phits, 22 opaque data bits each (command, address,
//                   source...; fabemu's own use is in yarc_encode_meta)
//   payload phits   the payload as one bit stream, MSB of byte 0 first, 22
//                   bits per phit, the last phit zero-padded; P phits carry
//                   floor(22P/8) - pad bytes
//   EOP phit        [21:20] reserved 0, [19:18] pad (0..2 unused whole bytes
//                   of the last payload phit), [17:16] ok, [15:0] CRC-16
//
// hlen and pad are fabemu's: the paper's header phits imply the payload
// length through the command they carry; we need the bytes to be
// self-describing for decode and capture analysis, and the head phit's three
// spare bits plus the EOP's spare bits hold exactly that.
//
// The CRC (CRC-16/X-25, crc16.h) covers the data bits of every phit before
// the EOP and the EOP's reserved and pad bits, with the sideband bits taken
// as zero: the LCB rewrites sideband bits per link without resealing, and it
// marks the ok field after the CRC check ("transmit error with a corrected
// CRC"), so neither may enter the CRC.
//
// Lengths: head 1 + hash h + hlen + payload P + EOP 1 phits, at least 4
// (shorter packets get zero transport header phits), at most kYarcMaxPhits.
//   minimum packet: head, 2 payload (32 bits, pad 1), EOP      = 4 phits
//   32-byte write:  head, hash, 4 transport, 12 payload, EOP   = 19 phits
#pragma once
#include <rte_mbuf.h>

#include <cstdint>

namespace fabemu {

struct PacketFormat;  // dataplane/engine/engine_base.h
struct PacketMeta;    // dataplane/core/packet_meta.h

inline constexpr uint32_t kYarcPhitBytes = 3;
inline constexpr uint32_t kYarcDataBits = 22;  // payload bits per phit
inline constexpr uint32_t kYarcDataMask = (1u << kYarcDataBits) - 1;
inline constexpr uint32_t kYarcMinPhits = 4;
// The LCB clips packets longer than a programmed maximum (19 phits in the
// BlackWidow system). 64 leaves room for custom formats and bounds the
// stack buffer the CRC check uses.
inline constexpr uint32_t kYarcMaxPhits = 64;
inline constexpr uint32_t kYarcMaxHlen = 7;
inline constexpr uint32_t kYarcMaxPayloadBytes = (kYarcMaxPhits - 2) * kYarcDataBits / 8;  // 170

// Head phit data bit positions.
inline constexpr uint32_t kYarcHeadDestShift = 7;
inline constexpr uint32_t kYarcHeadDestMask = 0x7FFF;
inline constexpr uint32_t kYarcHeadVBit = 6;
inline constexpr uint32_t kYarcHeadHBit = 5;
inline constexpr uint32_t kYarcHeadABit = 4;
inline constexpr uint32_t kYarcHeadRBit = 3;
inline constexpr uint32_t kYarcHeadHlenMask = 0x7;
inline constexpr uint32_t kYarcHashMask = 0x7FFF;
// EOP phit data bit positions.
inline constexpr uint32_t kYarcEopPadShift = 18;
inline constexpr uint32_t kYarcEopOkShift = 16;
inline constexpr uint32_t kYarcEopCrcMask = 0xFFFF;

// The EOP ok field (section 4.3).
enum class YarcOk : uint8_t {
  healthy = 0,
  transmit_error = 1,  // CRC error on the current link: drop, await retry
  soft_error = 2,      // corrupted inside a router: carried to the NIC, discarded there
  reserved = 3,
};

struct YarcHead {
  uint16_t dest = 0;  // 15 bits
  uint16_t hash = 0;  // 15 bits, sent only when h
  bool v = false;
  bool h = false;
  bool a = false;
  bool r = false;
  // Data of the transport header phits (22 bits each); yarc_encode sends the
  // first extra_header_phits of them.
  uint32_t xhdr[kYarcMaxHlen] = {};
};

struct YarcDecoded {
  YarcHead head;       // head.xhdr[0..hlen) filled, the rest zero
  uint8_t hlen = 0;    // transport header phits
  uint16_t phits = 0;  // whole packet, EOP included
  uint16_t payload_phits = 0;
  uint16_t payload_bytes = 0;
  uint16_t crc = 0;     // as carried in the EOP
  bool crc_ok = false;  // recomputed CRC matches
  YarcOk ok = YarcOk::healthy;
  uint8_t payload[kYarcMaxPayloadBytes];  // first payload_bytes valid
};

// Flow-control format: header_units counts head + hash + transport header
// phits (6 for the 32-byte write), tail 1 EOP, 22 payload bits per phit,
// minimum 4. max_units is the LCB's clip length (19 in BlackWidow); the
// encoder refuses more than kYarcMaxPhits whatever the format says.
PacketFormat yarc_format(uint32_t header_units, uint32_t max_units);

// Phits a packet will take, or 0 if it cannot be encoded.
uint32_t yarc_phits_for(bool h, uint32_t extra_header_phits, uint32_t payload_bytes);

// Writes the packet into m, which must be an empty single-segment mbuf (the
// packet is the whole of its data; prepend outer headers afterwards, into
// the headroom). payload may be nullptr: zero bits are sent (synthetic
// traffic). Sideband bits are 0. Returns the phit count, or 0 (m untouched)
// if m is not empty, a field is out of range (dest, hash or a transport word
// wider than its field, extra_header_phits > 7), the packet would exceed
// kYarcMaxPhits or the mbuf lacks tailroom.
uint16_t yarc_encode(rte_mbuf* m, const YarcHead& head, const uint8_t* payload,
                     uint32_t payload_bytes, uint32_t extra_header_phits);

// Parses the packet occupying m's data. Returns false if it is not a
// well-formed YARC packet (length, hlen, pad); out.crc_ok and out.ok are set
// whenever the length is a whole number of phits within the limits, so a
// corrupted length field still shows as a CRC failure. Callers must look at
// crc_ok and ok: true only means "parsed".
bool yarc_decode(const rte_mbuf* m, YarcDecoded& out);

// Link-layer helpers for the LCB and fault injection. All return false when
// m does not hold a whole number of phits within the limits.
bool yarc_crc_ok(const rte_mbuf* m);
YarcOk yarc_get_ok(const rte_mbuf* m);  // reserved when m is malformed
// Marks the EOP ok field and generates a good CRC over the current contents,
// as the LCB does for transmit errors (bad CRC on arrival) and soft errors
// (found corrupted before transmission), so that later hops do not see it
// as a fresh transmission error.
bool yarc_mark(rte_mbuf* m, YarcOk ok);
// Sideband bits (2) of phit i: outside the CRC, free for the LCB.
bool yarc_set_sideband(rte_mbuf* m, uint32_t phit, uint8_t bits);
uint8_t yarc_get_sideband(const rte_mbuf* m, uint32_t phit);
// Data bits of phit i (for tests, captures and dissectors); UINT32_MAX when
// m is malformed or i is past the end.
uint32_t yarc_phit_data(const rte_mbuf* m, uint32_t phit);

// The engine's mapping from PacketMeta (codec.h dispatches here).
//   head: dest = dst, v = cls, requests h = 1 (hash = meta.hash, when the
//   format leaves room for the hash phit) and a = 0 (ordered, deterministic),
//   responses h = 0 and a = 1 (adaptive), r = 0.
//   transport header phits, as many as meta.units leaves (zero beyond T3):
//     T0 [21:7] src, [6:0] flags     T1 msg_seq[21:0]
//     T2 [21:11] seg[10:0], [10:0] nseg[10:0]     T3 id[21:0]
// Returns the phit count, equal to meta.units, or 0 if meta.units cannot
// hold the packet or a field does not fit.
uint16_t yarc_encode_meta(rte_mbuf* m, const PacketMeta& meta, const uint8_t* payload);
// Decodes m and checks it is healthy (CRC good, ok healthy) and agrees with
// meta: length, payload bytes, dest, v, hash (when h), src, msg_seq, seg,
// nseg, id (when their phits are present). Not compared: payload contents,
// T0 flags (the engine may update them in flight) and the VC (it changes
// per hop; v is the class).
bool yarc_check_meta(const rte_mbuf* m, const PacketMeta& meta);

}  // namespace fabemu
