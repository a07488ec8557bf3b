// The packet codec the engine uses, picked once at start-up from the profile
// and dispatched by a switch per call (no virtual call per packet, STYLE 7).
// encode_packet at injection writes the profile's bit-level encoding into the
// mbuf; decode_check at delivery checks the bytes that crossed the fabric
// still say what the packet's metadata says.
#pragma once
#include <rte_mbuf.h>

#include <cstdint>
#include <cstring>
#include <string_view>

#include "dataplane/codec/crc16.h"
#include "dataplane/codec/t3e_flit.h"
#include "dataplane/codec/yarc_phit.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/engine/engine_base.h"

namespace fabemu {

enum class CodecKind : uint8_t { yarc, t3e };

// t3e uses T3E flits. yarc and every other profile (flatfly, spider, mesh3d,
// custom) use YARC phits until they get codecs of their own.
inline CodecKind codec_for_profile(std::string_view profile) {
  return profile == "t3e" ? CodecKind::t3e : CodecKind::yarc;
}

inline const char* codec_name(CodecKind k) { return k == CodecKind::t3e ? "t3e" : "yarc"; }

// The profile's flow-control format. header_units: YARC head + hash +
// transport header phits (6 for a 32-byte write); T3E header flits (2).
// max_units: YARC 19, T3E 10.
inline PacketFormat codec_format(CodecKind k, uint32_t header_units, uint32_t max_units) {
  switch (k) {
    case CodecKind::t3e:
      return t3e_format(header_units, max_units);
    case CodecKind::yarc:
    default:
      return yarc_format(header_units, max_units);
  }
}

// Bytes one flow unit takes in a packet buffer: a T3E flit 9, a YARC phit 3.
inline uint32_t codec_unit_bytes(CodecKind k) {
  return k == CodecKind::t3e ? kT3eFlitBytes : kYarcPhitBytes;
}

// Data room of a packet buffer (rte_pktmbuf_pool_create's data_room_size):
// DPDK's headroom, which the data room includes, plus the longest encoded
// packet. The engine's pools use it; codec_check.h encodes into it.
inline uint16_t packet_data_room(CodecKind k, uint32_t max_units) {
  return static_cast<uint16_t>(RTE_PKTMBUF_HEADROOM + max_units * codec_unit_bytes(k));
}

// Writes the encoding of the packet described by meta (meta.units long,
// carrying meta.payload_bytes of payload, which may be nullptr for synthetic
// traffic) into the empty mbuf m. Returns the units written (= meta.units),
// 0 if meta does not fit the format or m lacks room (m then untouched).
inline uint16_t encode_packet(CodecKind k, rte_mbuf* m, const PacketMeta& meta,
                              const uint8_t* payload) {
  switch (k) {
    case CodecKind::t3e:
      return t3e_encode_meta(m, meta, payload);
    case CodecKind::yarc:
    default:
      return yarc_encode_meta(m, meta, payload);
  }
}

// True when m decodes, is intact (YARC: CRC good and ok = healthy) and
// agrees with meta (length, payload bytes, destination, class, source and
// sequence fields where the header carries them).
inline bool decode_check(CodecKind k, const rte_mbuf* m, const PacketMeta& meta) {
  switch (k) {
    case CodecKind::t3e:
      return t3e_check_meta(m, meta);
    case CodecKind::yarc:
    default:
      return yarc_check_meta(m, meta);
  }
}

// Copies the payload carried by the packet in m to out (room bytes) and
// returns its length; -1 when m does not decode, is damaged (YARC: CRC bad or
// ok not healthy) or the payload does not fit. Frames crossing the fabric
// are rebuilt from this at their egress endpoint.
inline int decode_payload(CodecKind k, const rte_mbuf* m, uint8_t* out, uint32_t room) {
  switch (k) {
    case CodecKind::t3e: {
      T3eDecoded d;
      if (!t3e_decode(m, d) || d.payload_bytes > room) return -1;
      std::memcpy(out, d.payload, d.payload_bytes);
      return d.payload_bytes;
    }
    case CodecKind::yarc:
    default: {
      YarcDecoded d;
      if (!yarc_decode(m, d) || !d.crc_ok || d.ok != YarcOk::healthy || d.payload_bytes > room)
        return -1;
      std::memcpy(out, d.payload, d.payload_bytes);
      return d.payload_bytes;
    }
  }
}

// ---- link-level protection (dataplane/link/go_back_n.h) --------------------
// The bits a link's CRC checks in a packet of `units`, where bit errors are
// drawn: a T3E flit's 70 bits; a YARC phit's 22 data bits, but for the EOP's
// ok field (routers mark it after the CRC check, so the CRC leaves it out).
// A YARC phit's 2 sideband bits carry the LCB's own sequence numbers and
// acks, which fabemu keeps out of band.
inline uint32_t packet_checked_bits(CodecKind k, uint32_t units) {
  return k == CodecKind::t3e ? 70 * units : kYarcDataBits * units - 2;
}

// Flips checked bit `bit` (counted from the least significant bit of the
// first unit's word; units are big-endian words) of the packet in m.
inline void flip_checked_bit(CodecKind k, rte_mbuf* m, uint32_t units, uint32_t bit) {
  const uint32_t ub = codec_unit_bytes(k), per = k == CodecKind::t3e ? 70 : kYarcDataBits;
  const uint32_t unit = bit / per;
  uint32_t b = bit % per;
  if (k != CodecKind::t3e && unit == units - 1 && b >= kYarcEopOkShift)
    b += 2;  // over the EOP's ok field, to its pad and reserved bits
  uint8_t* p = rte_pktmbuf_mtod(m, uint8_t*) + unit * ub + (ub - 1) - b / 8;
  *p = static_cast<uint8_t>(*p ^ (1u << (b % 8)));
}

// The CRC the receiving link control block checks: YARC's EOP CRC-16, in the
// packet; for T3E flits, which have no CRC field, the link's CRC-16 over the
// flits, computed once where the packet is made (the flits do not change on
// the way) and carried beside them.
inline void link_crc_seal(CodecKind k, rte_mbuf* m) {
  if (k == CodecKind::t3e)
    meta(m)->link_crc = crc16_ccitt(rte_pktmbuf_mtod(m, const uint8_t*), rte_pktmbuf_data_len(m));
}
inline bool link_crc_ok(CodecKind k, const rte_mbuf* m) {
  if (k == CodecKind::t3e)
    return crc16_ccitt(rte_pktmbuf_mtod(m, const uint8_t*), rte_pktmbuf_data_len(m)) ==
           meta(m)->link_crc;
  return yarc_crc_ok(m);
}

// A packet moved on before its CRC failed (speculative forwarding): it is
// marked transmit error with a corrected CRC (BlackWidow §4.3; YARC: the EOP
// ok field) so that later links take it, and its destination discards it.
inline void mark_transmit_error(CodecKind k, rte_mbuf* m) {
  meta(m)->flags |= kPktTransmitError;
  if (k == CodecKind::t3e)
    link_crc_seal(k, m);
  else
    yarc_mark(m, YarcOk::transmit_error);
}

}  // namespace fabemu
