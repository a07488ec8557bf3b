// The low-latency 3D mesh's codec: packets of 80-bit words whose first word
// is the source route (mesh3d_packet.h). The mesh3d profile uses it.
#pragma once
#include <cstring>

#include "dataplane/codec/codec_info.h"
#include "dataplane/codec/mesh3d_packet.h"
#include "dataplane/codec/packet_format.h"
#include "dataplane/core/packet_meta.h"

namespace fabemu {

struct Mesh3dCodec {
  static constexpr CodecInfo info{
      .kind = CodecKind::mesh3d,
      .name = "mesh3d",
      .label = "3D mesh",
      .unit = "word",
      .unit_bytes = kMesh3dWordBytes,
      .max_units = kMesh3dMaxWords,
      .max_header_units = kMesh3dHeaderWords,
      .max_endpoints = kMesh3dMaxEndpoints,
      .max_vcs = 0,
      .max_segments = [](uint32_t) -> uint32_t { return kMesh3dMaxSegments - 1; },  // 10 bits
      .capture_profile = 4,  // CaptureProfile::mesh3d_words
      .profiles = {"mesh3d"},
      .families = {"mesh3d"},
      .fallback = false,
  };

  static PacketFormat format(uint32_t header_units, uint32_t max_units) {
    return mesh3d_format(header_units, max_units);
  }
  static uint16_t encode(rte_mbuf* m, const PacketMeta& meta, const uint8_t* payload) {
    return mesh3d_encode_meta(m, meta, payload);
  }
  static bool check(const rte_mbuf* m, const PacketMeta& meta) { return mesh3d_check_meta(m, meta); }
  static int decode_payload(const rte_mbuf* m, uint8_t* out, uint32_t room) {
    return mesh3d_decode_payload(m, out, room);
  }
  // Every line of every word.
  static uint32_t checked_bits(uint32_t units) { return kMesh3dWordBits * units; }
  static void flip_checked_bit(rte_mbuf* m, uint32_t, uint32_t bit) { mesh3d_flip_bit(m, bit); }
  static void link_crc_seal(rte_mbuf* m) { mesh3d_seal(m); }
  static bool link_crc_ok(const rte_mbuf* m) { return mesh3d_link_crc_ok(m); }
  static void mark_transmit_error(rte_mbuf* m) { mesh3d_stomp(m); }
  static void refresh_capture(uint8_t* bytes, uint32_t len, const PacketMeta& meta, uint8_t,
                              uint32_t) {
    mesh3d_refresh(bytes, len, meta);
  }
};

}  // namespace fabemu
