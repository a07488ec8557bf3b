// The T3E flit codec (Scott & Thorson, "The Cray T3E Network", Hot
// Interconnects IV, 1996): 5-phit flits of 70 bits, header flits
// (t3e_flit.h). The t3e profile uses it, and a custom-profile torus.
#pragma once
#include <cstring>

#include "dataplane/codec/codec_info.h"
#include "dataplane/codec/crc16.h"
#include "dataplane/codec/packet_format.h"
#include "dataplane/codec/t3e_flit.h"
#include "dataplane/core/packet_meta.h"

namespace fabemu {

struct T3eFlitCodec {
  static constexpr uint32_t kCheckedBits = 70;  // a flit's bits

  static constexpr CodecInfo info{
      .kind = CodecKind::t3e,
      .name = "t3e",
      .label = "T3E",
      .unit = "flit",
      .unit_bytes = kT3eFlitBytes,
      .max_units = kT3eMaxFlits,
      .max_header_units = kT3eMaxHeaderFlits,
      .max_endpoints = 65536,
      .max_vcs = 0,
      // Header flit 1 counts segments in 12 bits; one header flit has no
      // count (PacketMeta's 16 bits).
      .max_segments = [](uint32_t header_units) -> uint32_t {
        return header_units > 1 ? 4095 : 65535;
      },
      .capture_profile = 2,  // CaptureProfile::t3e_flits
      .profiles = {"t3e"},
      .families = {"torus"},
      .fallback = false,
  };

  static PacketFormat format(uint32_t header_units, uint32_t max_units) {
    return t3e_format(header_units, max_units);
  }
  static uint16_t encode(rte_mbuf* m, const PacketMeta& meta, const uint8_t* payload) {
    return t3e_encode_meta(m, meta, payload);
  }
  static bool check(const rte_mbuf* m, const PacketMeta& meta) { return t3e_check_meta(m, meta); }
  static int decode_payload(const rte_mbuf* m, uint8_t* out, uint32_t room) {
    T3eDecoded d;
    if (!t3e_decode(m, d) || d.payload_bytes > room) return -1;
    std::memcpy(out, d.payload, d.payload_bytes);
    return d.payload_bytes;
  }
  static uint32_t checked_bits(uint32_t units) { return kCheckedBits * units; }
  static void flip_checked_bit(rte_mbuf* m, uint32_t, uint32_t bit) {
    flip_unit_bit(m, kT3eFlitBytes, bit / kCheckedBits, bit % kCheckedBits);
  }
  // Flits have no CRC field: the link's CRC-16 over the flits is computed
  // once where the packet is made (the flits do not change on the way) and
  // carried beside them.
  static void link_crc_seal(rte_mbuf* m) {
    meta(m)->link_crc = crc16_ccitt(rte_pktmbuf_mtod(m, const uint8_t*), rte_pktmbuf_data_len(m));
  }
  static bool link_crc_ok(const rte_mbuf* m) {
    return crc16_ccitt(rte_pktmbuf_mtod(m, const uint8_t*), rte_pktmbuf_data_len(m)) ==
           meta(m)->link_crc;
  }
  static void mark_transmit_error(rte_mbuf* m) { link_crc_seal(m); }
};

}  // namespace fabemu
