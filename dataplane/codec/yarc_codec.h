// The YARC phit codec (Scott et al., "The BlackWidow High-Radix Clos
// Network", ISCA 2006, section 4.1): 24-bit phits, head, hash and EOP phit
// with CRC-16 (yarc_phit.h). The yarc and flatfly profiles use it, and so
// does every fabric no other codec claims.
#pragma once
#include <cstring>

#include "dataplane/codec/codec_info.h"
#include "dataplane/codec/packet_format.h"
#include "dataplane/codec/yarc_phit.h"
#include "dataplane/core/packet_meta.h"

namespace fabemu {

struct YarcPhitCodec {
  static constexpr CodecInfo info{
      .kind = CodecKind::yarc,
      .name = "yarc",
      .label = "YARC",
      .unit = "phit",
      .unit_bytes = kYarcPhitBytes,
      .max_units = kYarcMaxPhits,
      .max_header_units = 0,
      .max_endpoints = kYarcHeadDestMask + 1,
      .max_vcs = 0,
      .max_segments = [](uint32_t) -> uint32_t { return 65535; },  // PacketMeta's 16 bits
      .capture_profile = 1,                                        // CaptureProfile::yarc_phits
      .profiles = {"yarc", "flatfly"},
      .families = {},
      .fallback = true,
  };

  static PacketFormat format(uint32_t header_units, uint32_t max_units) {
    return yarc_format(header_units, max_units);
  }
  static uint16_t encode(rte_mbuf* m, const PacketMeta& meta, const uint8_t* payload) {
    return yarc_encode_meta(m, meta, payload);
  }
  static bool check(const rte_mbuf* m, const PacketMeta& meta) { return yarc_check_meta(m, meta); }
  static int decode_payload(const rte_mbuf* m, uint8_t* out, uint32_t room) {
    YarcDecoded d;
    if (!yarc_decode(m, d) || !d.crc_ok || d.ok != YarcOk::healthy || d.payload_bytes > room)
      return -1;
    std::memcpy(out, d.payload, d.payload_bytes);
    return d.payload_bytes;
  }
  // A phit's 22 data bits, but for the EOP's ok field (routers mark it
  // after the CRC check, so the CRC leaves it out). The 2 sideband bits
  // carry the LCB's own sequence numbers and acks, which fabemu keeps out
  // of band.
  static uint32_t checked_bits(uint32_t units) { return kYarcDataBits * units - 2; }
  static void flip_checked_bit(rte_mbuf* m, uint32_t units, uint32_t bit) {
    const uint32_t unit = bit / kYarcDataBits;
    uint32_t b = bit % kYarcDataBits;
    if (unit == units - 1 && b >= kYarcEopOkShift)
      b += 2;  // over the EOP's ok field, to its pad and reserved bits
    flip_unit_bit(m, kYarcPhitBytes, unit, b);
  }
  // The link checks the EOP's CRC-16, in the packet.
  static void link_crc_seal(rte_mbuf*) {}
  static bool link_crc_ok(const rte_mbuf* m) { return yarc_crc_ok(m); }
  static void mark_transmit_error(rte_mbuf* m) { yarc_mark(m, YarcOk::transmit_error); }
};

}  // namespace fabemu
