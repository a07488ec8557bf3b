// The SGI Spider micropacket codec (Galles, IEEE Micro 1997): 160-bit
// micropackets of 128 data and 8 sideband bits with the LLP's sequence,
// acknowledge and CRC-16 bits, a header micropacket per message
// (spider_micropacket.h). The spider profile uses it.
#pragma once
#include <cstring>

#include "dataplane/codec/codec_info.h"
#include "dataplane/codec/packet_format.h"
#include "dataplane/codec/spider_micropacket.h"
#include "dataplane/core/packet_meta.h"

namespace fabemu {

struct SpiderCodec {
  static constexpr CodecInfo info{
      .kind = CodecKind::spider,
      .name = "spider",
      .label = "Spider",
      .unit = "micropacket",
      .unit_bytes = kSpiderMpBytes,
      .max_units = kSpiderMaxMicropackets,
      .max_header_units = 1,
      .max_endpoints = kSpiderMaxEndpoints,
      .max_vcs = 4,  // the sideband's 2-bit Vch
      .max_segments = [](uint32_t) -> uint32_t { return kSpiderSegMask; },  // 10 bits
      .capture_profile = 3,  // CaptureProfile::spider_micropackets
      .profiles = {"spider"},
      .families = {},
      .fallback = false,
  };

  static PacketFormat format(uint32_t header_units, uint32_t max_units) {
    return spider_format(header_units, max_units);
  }
  static uint16_t encode(rte_mbuf* m, const PacketMeta& meta, const uint8_t* payload) {
    return spider_encode_meta(m, meta, payload);
  }
  static bool check(const rte_mbuf* m, const PacketMeta& meta) {
    return spider_check_meta(m, meta);
  }
  static int decode_payload(const rte_mbuf* m, uint8_t* out, uint32_t room) {
    SpiderDecoded d;
    if (!spider_decode(m, d) || !d.intact || d.payload_bytes > room) return -1;
    std::memcpy(out, d.payload, d.payload_bytes);
    return d.payload_bytes;
  }
  // Every bit of every micropacket: data, sideband, sequence and
  // acknowledge numbers and the CRC itself. Bit b of a micropacket is its
  // serial bit b (wire order, spider_micropacket.h).
  static uint32_t checked_bits(uint32_t units) { return kSpiderMpBits * units; }
  static void flip_checked_bit(rte_mbuf* m, uint32_t, uint32_t bit) {
    uint8_t* p = rte_pktmbuf_mtod(m, uint8_t*) + (bit / kSpiderMpBits) * kSpiderMpBytes;
    const uint32_t b = bit % kSpiderMpBits;
    p[b / 8] = static_cast<uint8_t>(p[b / 8] ^ (1u << (b % 8)));
  }
  // Each micropacket carries its CRC, sealed where it is encoded.
  static void link_crc_seal(rte_mbuf*) {}
  static bool link_crc_ok(const rte_mbuf* m) { return spider_link_crc_ok(m); }
  static void mark_transmit_error(rte_mbuf* m) { spider_stomp(m); }
  // The capture's copy as it is on its link (capture_tap.h).
  static void refresh_capture(uint8_t* bytes, uint32_t len, const PacketMeta& meta, uint8_t vc,
                              uint32_t first_seq) {
    spider_refresh(bytes, len, meta, vc, first_seq);
  }
};

}  // namespace fabemu
