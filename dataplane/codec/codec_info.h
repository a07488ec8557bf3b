// What a packet codec says about itself (CodecInfo), for the codec list of
// dataplane/codec/codec.h: each codec is a struct in its own header
// (yarc_codec.h, t3e_codec.h, spider_codec.h, mesh3d_codec.h) with a constexpr `info` and static functions
// for the fast path (format, encode, check, decode_payload, the bits a
// link's CRC checks, link CRC, transmit-error mark). The engine holds the
// codec's CodecKind and codec.h dispatches on it at compile time over the
// list: no virtual call per packet.
#pragma once
#include <rte_mbuf.h>

#include <cstdint>
#include <string_view>

namespace fabemu {

// One value per codec of the list in codec.h (EngineConfig::codec holds it).
enum class CodecKind : uint8_t { yarc, t3e, spider, mesh3d };

struct CodecInfo {
  CodecKind kind;
  std::string_view name;   // "yarc"
  std::string_view label;  // in messages: "YARC"
  std::string_view unit;   // its flow unit: "phit"
  uint32_t unit_bytes;     // a unit in a packet buffer (a YARC phit 3, a T3E flit 9)
  uint32_t max_units;      // the longest packet its header can describe
  uint32_t max_header_units;  // header units it can carry; 0: no limit of its own
  uint32_t max_endpoints;     // destinations its header addresses
  uint32_t max_vcs;           // VCs its units can tag; 0: as many as the engine has
  // Segments of one message its header can count with `header_units`.
  uint32_t (*max_segments)(uint32_t header_units);
  uint8_t capture_profile;  // pcap-tools/capture_writer.h CaptureProfile
  // The selection rule (codec_for in codec.h): the codec of the profiles it
  // lists; for a profile no codec lists (custom), of the families it lists;
  // else the fallback codec.
  std::string_view profiles[4];
  std::string_view families[4];
  bool fallback;
};

// Flips bit `b` (from the least significant bit of the unit's big-endian
// word) of unit `unit` of the packet in m.
inline void flip_unit_bit(rte_mbuf* m, uint32_t unit_bytes, uint32_t unit, uint32_t b) {
  uint8_t* p = rte_pktmbuf_mtod(m, uint8_t*) + unit * unit_bytes + (unit_bytes - 1) - b / 8;
  *p = static_cast<uint8_t>(*p ^ (1u << (b % 8)));
}

}  // namespace fabemu
